import type { ProviderReplies, ProviderRules } from '../types.js'
import { native, overflow, promptTokens, requestLimits } from './limits.js'
import { responsesMessages } from './rules.js'

/** OpenAI Responses: its rules (the codec is in index.ts). */
export const openaiResponsesProvider: ProviderRules = {
  name: 'openai-responses',
  format: 'openai-responses',
  userFirst: false,
  counter: () => undefined,
  tools: {},
  requestLimits,
  messages: responsesMessages,
}

/** What OpenAI Responses sends back: its "too long" error, its usage, its compaction. */
export const openaiResponsesReplies: ProviderReplies = { overflow, promptTokens, native }

import type { ProviderReplies, ProviderRules } from '../types.js'
import { overflow, promptTokens, requestLimits } from './limits.js'
import { openaiChatMessages } from './rules.js'

/** OpenAI Chat Completions: its rules (the codec is in index.ts). */
export const openaiChatProvider: ProviderRules = {
  name: 'openai',
  format: 'openai-chat',
  userFirst: false,
  counter: () => undefined,
  tools: {},
  requestLimits,
  messages: openaiChatMessages,
}

/** What OpenAI Chat Completions sends back: its "too long" error, its usage. */
export const openaiChatReplies: ProviderReplies = { overflow, promptTokens }

import type { ProviderRules } from '../types.js'
import { native, overflow, promptTokens } from './limits.js'

/** OpenAI Responses: its rules (the codec is in index.ts). */
export const openaiResponsesProvider: ProviderRules = {
  name: 'openai-responses',
  format: 'openai-responses',
  userFirst: false,
  counter: () => undefined,
  overflow,
  promptTokens,
  tools: {},
  native,
}

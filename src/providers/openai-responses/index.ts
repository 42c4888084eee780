import type { ProviderApi } from '../types.js'
import { encodeOpenAIResponses, fromOpenAIResponses } from './codec.js'
import { native, overflow, promptTokens } from './limits.js'

/** OpenAI Responses. */
export const openaiResponses: ProviderApi = {
  name: 'openai-responses',
  format: 'openai-responses',
  userFirst: false,
  decode: fromOpenAIResponses,
  encode: (messages, options) => encodeOpenAIResponses(messages, options),
  counter: () => undefined,
  overflow,
  promptTokens,
  tools: {},
  native,
}

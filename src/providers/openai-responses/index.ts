import { decodedAt, namedResults } from '../codec-kit.js'
import type { ProviderApi } from '../types.js'
import { encodeOpenAIResponses, fromOpenAIResponses, isModelItem } from './codec.js'
import { native, overflow, promptTokens } from './limits.js'

/** OpenAI Responses. */
export const openaiResponses: ProviderApi = {
  name: 'openai-responses',
  format: 'openai-responses',
  userFirst: false,
  decode: fromOpenAIResponses,
  decodeAdded: (list, after) =>
    decodedAt(after.firstIndex, () => namedResults(fromOpenAIResponses(list), after.calls)),
  inModelRun: isModelItem,
  encode: (messages, options) => encodeOpenAIResponses(messages, options),
  counter: () => undefined,
  overflow,
  promptTokens,
  tools: {},
  native,
}

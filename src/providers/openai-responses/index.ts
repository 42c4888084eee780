import { decodedAt, namedResults } from '../codec-kit.js'
import type { ProviderApi } from '../types.js'
import { encodeOpenAIResponses, fromOpenAIResponses, isModelItem } from './codec.js'
import { defineTool } from './limits.js'
import { openaiResponsesProvider, openaiResponsesReplies } from './provider.js'

/** OpenAI Responses. */
export const openaiResponses: ProviderApi = {
  ...openaiResponsesProvider,
  ...openaiResponsesReplies,
  defineTool,
  decode: fromOpenAIResponses,
  decodeAdded: (list, after) =>
    decodedAt(after.firstIndex, () => namedResults(fromOpenAIResponses(list), after.calls)),
  inModelRun: isModelItem,
  encode: (messages, options) => encodeOpenAIResponses(messages, options),
}

import { decodedAt, namedResults } from '../codec-kit.js'
import type { ProviderApi } from '../types.js'
import { encodeOpenAIChat, fromOpenAIChat } from './codec.js'
import { defineTool } from './limits.js'
import { openaiChatProvider, openaiChatReplies } from './provider.js'

/** OpenAI Chat Completions. */
export const openaiChat: ProviderApi = {
  ...openaiChatProvider,
  ...openaiChatReplies,
  defineTool,
  decode: fromOpenAIChat,
  decodeAdded: (list, after) =>
    decodedAt(after.firstIndex, () => namedResults(fromOpenAIChat(list), after.calls)),
  encode: (messages) => encodeOpenAIChat(messages),
}

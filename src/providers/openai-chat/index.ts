import { decodedAt, namedResults } from '../codec-kit.js'
import type { ProviderApi } from '../types.js'
import { encodeOpenAIChat, fromOpenAIChat } from './codec.js'
import { overflow, promptTokens } from './limits.js'

/** OpenAI Chat Completions. */
export const openaiChat: ProviderApi = {
  name: 'openai',
  format: 'openai-chat',
  userFirst: false,
  decode: fromOpenAIChat,
  decodeAdded: (list, after) =>
    decodedAt(after.firstIndex, () => namedResults(fromOpenAIChat(list), after.calls)),
  encode: (messages) => encodeOpenAIChat(messages),
  counter: () => undefined,
  overflow,
  promptTokens,
  tools: {},
}

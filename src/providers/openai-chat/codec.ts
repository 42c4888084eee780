/**
 * The OpenAI chat codec: its message shapes (`wire.ts`), reading them (`decode.ts`, content
 * parts in `decode-parts.ts`) and writing them back (`encode.ts`).
 */
export { fromOpenAIChat, readOpenAIChat } from './decode.js'
export { encodeOpenAIChat, toOpenAIChat } from './encode.js'
export {
  OPENAI_CHAT,
  type OpenAIChatAudioPart,
  type OpenAIChatFilePart,
  type OpenAIChatImagePart,
  type OpenAIChatMessage,
  type OpenAIChatRefusalPart,
  type OpenAIChatTextPart,
  type OpenAIChatToolCall,
} from './wire.js'

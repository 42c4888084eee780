export {
  ANTHROPIC,
  type AnthropicRequest,
  fromAnthropic,
  toAnthropic,
} from '../providers/anthropic-messages/codec.js'
export type { Loss } from '../providers/codec-kit.js'
export {
  encodeGemini,
  fromGemini,
  GEMINI,
  type GeminiContent,
  type GeminiPart,
  type GeminiRequest,
  toGemini,
} from '../providers/gemini/codec.js'
export {
  fromOpenAIChat,
  type OpenAIChatMessage,
  toOpenAIChat,
} from '../providers/openai-chat/codec.js'
export {
  encodeOpenAIResponses,
  fromOpenAIResponses,
  OPENAI_RESPONSES,
  type ResponsesInputItem,
  type ResponsesRequest,
  type ToOpenAIResponsesOptions,
  toOpenAIResponses,
} from '../providers/openai-responses/codec.js'
export { AI_SDK, fromAISDK, type ModelMessageJson, toAISDK } from './ai-sdk.js'
export { AUTOGEN, fromAutoGen, toAutoGen } from './autogen.js'
export { convert, decode, detectFormat, encode, FORMATS, type Format } from './detect.js'
export { fromLangChain, LANGCHAIN, toLangChain } from './langchain.js'

export { AI_SDK, fromAISDK, type ModelMessageJson, toAISDK } from './ai-sdk.js'
export {
  ANTHROPIC,
  type AnthropicRequest,
  fromAnthropic,
  type Loss,
  toAnthropic,
} from './anthropic-messages.js'
export { AUTOGEN, fromAutoGen, toAutoGen } from './autogen.js'
export { convert, decode, detectFormat, encode, FORMATS, type Format } from './detect.js'
export {
  encodeGemini,
  fromGemini,
  GEMINI,
  type GeminiContent,
  type GeminiPart,
  type GeminiRequest,
  toGemini,
} from './gemini.js'
export { fromLangChain, LANGCHAIN, toLangChain } from './langchain.js'
export { fromOpenAIChat, type OpenAIChatMessage, toOpenAIChat } from './openai-chat.js'
export {
  encodeOpenAIResponses,
  fromOpenAIResponses,
  OPENAI_RESPONSES,
  type ResponsesInputItem,
  type ResponsesRequest,
  type ToOpenAIResponsesOptions,
  toOpenAIResponses,
} from './openai-responses.js'

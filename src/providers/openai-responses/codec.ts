/**
 * The OpenAI Responses codec: its input items' shapes (`wire.ts`), reading them
 * (`decode.ts`, a run of the model's items in `model-run.ts`) and writing them back
 * (`encode.ts`, an assistant's items in `encode-assistant.ts`).
 */
export type { ToOpenAIResponsesOptions } from '../types.js'
export { fromOpenAIResponses, isModelItem, readOpenAIResponses } from './decode.js'
export { encodeOpenAIResponses, toOpenAIResponses } from './encode.js'
export {
  OPENAI_RESPONSES,
  type ResponsesAnnotation,
  type ResponsesBuiltInItem,
  type ResponsesCompaction,
  type ResponsesCustomToolCall,
  type ResponsesCustomToolCallOutput,
  type ResponsesEasyMessage,
  type ResponsesFunctionCall,
  type ResponsesFunctionCallOutput,
  type ResponsesInputContent,
  type ResponsesInputFile,
  type ResponsesInputImage,
  type ResponsesInputItem,
  type ResponsesInputText,
  type ResponsesOutputMessage,
  type ResponsesOutputRefusal,
  type ResponsesReasoning,
  type ResponsesRequest,
} from './wire.js'

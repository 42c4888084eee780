import type { Format } from '../../formats/detect.js'
import type {
  AISDKInputMessage,
  AnthropicInputMessage,
  AutoGenInputMessage,
  GeminiInputContent,
  LangChainInputMessage,
  OpenAIChatInputMessage,
  OpenAIResponsesInputItem,
} from '../../messages/input.js'
import type { Message } from '../../messages/message.js'

/** A context's `format` option: a format, `'auto'`, or none (the library's own `Message`). */
export type ContextFormat = Format | 'auto' | undefined

/** One message (or Responses item) of each format, as its SDK types it or its JSON holds it. */
export interface FormatMessages {
  'openai-chat': OpenAIChatInputMessage
  'openai-responses': OpenAIResponsesInputItem
  anthropic: AnthropicInputMessage
  gemini: GeminiInputContent
  'ai-sdk': AISDKInputMessage
  autogen: AutoGenInputMessage
  langchain: LangChainInputMessage
}

/**
 * What `ChatContext.addMessage` takes, by the context's `format`: without one, the library's
 * `Message`; with one, that format's message (`{ role: 'user', content }` for OpenAI chat, a
 * `Content` for Gemini, ...); with `'auto'`, any of them. A misspelt field is a compile error.
 */
export type AddedMessage<F extends ContextFormat> = [F] extends [undefined]
  ? Message
  : F extends Format
    ? FormatMessages[F]
    : Message | FormatMessages[Format]

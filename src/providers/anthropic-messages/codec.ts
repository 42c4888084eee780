/**
 * The Anthropic Messages codec: its block shapes (`wire.ts`), reading them (`decode.ts`) and
 * writing them back (`encode.ts`).
 */
export { fromAnthropic, readAnthropic } from './decode.js'
export { toAnthropic } from './encode.js'
export {
  ANTHROPIC,
  type AnthropicBlock,
  type AnthropicCacheControl,
  type AnthropicDocumentBlock,
  type AnthropicImageBlock,
  type AnthropicRedactedThinkingBlock,
  type AnthropicRequest,
  type AnthropicTextBlock,
  type AnthropicThinkingBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
} from './wire.js'

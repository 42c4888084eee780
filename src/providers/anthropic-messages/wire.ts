/** The Messages API's block shapes, and what this codec keeps of them for the way back. */
import { isJson, type Json, metadataFor } from '../codec-kit.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const ANTHROPIC = 'anthropic'

export type Block = Json & { type: string }

/** A block as the API sends it: an object with a string `type`. */
export function isBlock(v: unknown): v is Block {
  return isJson(v) && typeof v.type === 'string'
}

// Structural copies of the Anthropic SDK's block parameter types: assignable to
// `MessageParam` and `TextBlockParam` without importing the SDK.
export interface AnthropicCacheControl {
  type: 'ephemeral'
  ttl?: '5m' | '1h'
}
export interface AnthropicTextBlock {
  type: 'text'
  text: string
  cache_control?: AnthropicCacheControl | null
}
export interface AnthropicImageBlock {
  type: 'image'
  source:
    | {
        type: 'base64'
        media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'
        data: string
      }
    | { type: 'url'; url: string }
  cache_control?: AnthropicCacheControl | null
}
export interface AnthropicDocumentBlock {
  type: 'document'
  source:
    | { type: 'base64'; media_type: 'application/pdf'; data: string }
    | { type: 'text'; media_type: 'text/plain'; data: string }
    | { type: 'url'; url: string }
  cache_control?: AnthropicCacheControl | null
  title?: string | null
  context?: string | null
}
export interface AnthropicToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
  cache_control?: AnthropicCacheControl | null
}
export interface AnthropicToolResultBlock {
  type: 'tool_result'
  tool_use_id: string
  content?: string | (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[]
  is_error?: boolean
  cache_control?: AnthropicCacheControl | null
}
export interface AnthropicThinkingBlock {
  type: 'thinking'
  thinking: string
  signature: string
}
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking'
  data: string
}
/** A content block; other kinds a turn came with (server tool blocks) are carried as they were. */
export type AnthropicBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock

export interface AnthropicRequest {
  system?: string | AnthropicTextBlock[]
  messages: (
    | { role: 'user'; content: string | AnthropicBlock[] }
    | { role: 'assistant'; content: string | AnthropicBlock[] }
  )[]
}

export const { meta, withMeta } = metadataFor(ANTHROPIC)

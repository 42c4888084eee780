/** OpenAI chat's message shapes, and what this codec keeps of them for the way back. */
import type { Message, ProviderMetadata } from '../../messages/message.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const OPENAI_CHAT = 'openai-chat'

// Structural copies of the OpenAI SDK's message parameter types: assignable to
// `ChatCompletionMessageParam` without importing the SDK.
export interface OpenAIChatTextPart {
  type: 'text'
  text: string
}
export interface OpenAIChatRefusalPart {
  type: 'refusal'
  refusal: string
}
export interface OpenAIChatImagePart {
  type: 'image_url'
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' }
}
export interface OpenAIChatAudioPart {
  type: 'input_audio'
  input_audio: { data: string; format: 'wav' | 'mp3' }
}
export interface OpenAIChatFilePart {
  type: 'file'
  file: { file_data?: string; file_id?: string; filename?: string }
}
export interface OpenAIChatToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** An OpenAI chat message, by role; unknown fields a message came with are kept beside these. */
export type OpenAIChatMessage =
  | { role: 'system'; content: string | OpenAIChatTextPart[]; name?: string }
  | { role: 'developer'; content: string | OpenAIChatTextPart[]; name?: string }
  | {
      role: 'user'
      content:
        | string
        | (OpenAIChatTextPart | OpenAIChatImagePart | OpenAIChatAudioPart | OpenAIChatFilePart)[]
      name?: string
    }
  | {
      role: 'assistant'
      content?: string | (OpenAIChatTextPart | OpenAIChatRefusalPart)[] | null
      name?: string
      refusal?: string | null
      tool_calls?: OpenAIChatToolCall[]
      function_call?: { name: string; arguments: string } | null
      /** Written back only where it was read (OpenAI-compatible servers). */
      reasoning_content?: string
    }
  | { role: 'tool'; content: string | OpenAIChatTextPart[]; tool_call_id: string }
  | { role: 'function'; content: string | null; name: string }

export type Json = Record<string, unknown>
export type Meta = Record<string, unknown>

export function withMeta<T extends Message>(m: T, meta: Meta): T {
  if (Object.keys(meta).length === 0) return m
  return { ...m, providerMetadata: { ...m.providerMetadata, [OPENAI_CHAT]: meta } }
}

export function metaOf(x: { providerMetadata?: ProviderMetadata | undefined }): Meta {
  return x.providerMetadata?.[OPENAI_CHAT] ?? {}
}

/** The Responses API's input items, and what this codec keeps of them for the way back. */
import { isJson, type Json, metadataFor } from '../codec-kit.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const OPENAI_RESPONSES = 'openai-responses'

export const { meta, withMeta } = metadataFor(OPENAI_RESPONSES)

// Structural copies of the OpenAI SDK's input item types: assignable to
// `ResponseInputItem` without importing the SDK.

export interface ResponsesInputText {
  type: 'input_text'
  text: string
}
export interface ResponsesInputImage {
  type: 'input_image'
  detail: 'low' | 'high' | 'auto'
  image_url?: string | null
  file_id?: string | null
}
export interface ResponsesInputFile {
  type: 'input_file'
  file_data?: string
  file_id?: string | null
  file_url?: string
  filename?: string
}
export type ResponsesInputContent = ResponsesInputText | ResponsesInputImage | ResponsesInputFile

export type ResponsesAnnotation =
  | { type: 'file_citation'; file_id: string; filename: string; index: number }
  | { type: 'url_citation'; url: string; title: string; start_index: number; end_index: number }
  | {
      type: 'container_file_citation'
      container_id: string
      file_id: string
      filename: string
      start_index: number
      end_index: number
    }
  | { type: 'file_path'; file_id: string; index: number }

export interface ResponsesOutputText {
  type: 'output_text'
  text: string
  annotations: ResponsesAnnotation[]
}
export interface ResponsesOutputRefusal {
  type: 'refusal'
  refusal: string
}

/** A message given by role (user, system, developer, or an assistant turn without its id). */
export interface ResponsesEasyMessage {
  type?: 'message'
  role: 'user' | 'assistant' | 'system' | 'developer'
  content: string | ResponsesInputContent[]
}
/** An assistant message as the API returned it, with its id. */
export interface ResponsesOutputMessage {
  type: 'message'
  id: string
  role: 'assistant'
  status: 'in_progress' | 'completed' | 'incomplete'
  content: (ResponsesOutputText | ResponsesOutputRefusal)[]
}
export interface ResponsesFunctionCall {
  type: 'function_call'
  call_id: string
  name: string
  arguments: string
  id?: string
  status?: 'in_progress' | 'completed' | 'incomplete'
}
export interface ResponsesFunctionCallOutput {
  type: 'function_call_output'
  call_id: string
  output: string | ResponsesInputContent[]
  id?: string | null
  status?: 'in_progress' | 'completed' | 'incomplete' | null
}
export interface ResponsesCustomToolCall {
  type: 'custom_tool_call'
  call_id: string
  name: string
  input: string
  id?: string
}
export interface ResponsesCustomToolCallOutput {
  type: 'custom_tool_call_output'
  call_id: string
  output: string | ResponsesInputContent[]
  id?: string
}
export interface ResponsesReasoning {
  type: 'reasoning'
  id: string
  summary: { type: 'summary_text'; text: string }[]
  content?: { type: 'reasoning_text'; text: string }[]
  encrypted_content?: string | null
  status?: 'in_progress' | 'completed' | 'incomplete'
}
export interface ResponsesCompaction {
  type: 'compaction'
  encrypted_content: string
  id?: string | null
}
/**
 * Items the API runs itself (web and file search, code interpreter, image generation, MCP):
 * their `id` is required on input, and nothing of the client's answers them.
 */
export const SERVER_ITEM =
  /^(web_search_call|file_search_call|code_interpreter_call|image_generation_call|mcp_call|mcp_list_tools)$/

/** A built-in tool item (web or file search), carried as it came. */
export type ResponsesBuiltInItem =
  | {
      type: 'web_search_call'
      id: string
      status: 'in_progress' | 'searching' | 'completed' | 'failed'
      action:
        | { type: 'search'; query: string }
        | { type: 'open_page'; url?: string | null }
        | { type: 'find_in_page'; url: string; pattern: string }
    }
  | {
      type: 'file_search_call'
      id: string
      queries: string[]
      status: 'in_progress' | 'searching' | 'completed' | 'incomplete' | 'failed'
    }

/** One item of a Responses API `input` list. */
export type ResponsesInputItem =
  | ResponsesEasyMessage
  | ResponsesOutputMessage
  | ResponsesFunctionCall
  | ResponsesFunctionCallOutput
  | ResponsesCustomToolCall
  | ResponsesCustomToolCallOutput
  | ResponsesReasoning
  | ResponsesCompaction
  | ResponsesBuiltInItem

/** A Responses API request's conversation: `instructions` and `input`. */
export interface ResponsesRequest {
  instructions?: string
  input: ResponsesInputItem[]
}

export type Slot =
  | { t: 'reasoning'; item: Json }
  | { t: 'message'; form: 'string' | 'parts'; n: number; extra: Json }
  | { t: 'call' }
  | { t: 'opaque' }

/** A slot of an assistant message's layout, as the decoder wrote it. */
export function isSlot(v: unknown): v is Slot {
  if (!isJson(v)) return false
  switch (v.t) {
    case 'reasoning':
      return isJson(v.item)
    case 'message':
      return (
        (v.form === 'string' || v.form === 'parts') && typeof v.n === 'number' && isJson(v.extra)
      )
    default:
      return v.t === 'call' || v.t === 'opaque'
  }
}

export const CALL_OUTPUT = /_call_output$/

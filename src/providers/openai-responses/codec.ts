import { InvalidInputError } from '../../errors.js'
import type { OpenAIResponsesInput, ReaderInput } from '../../messages/input.js'
import type {
  AssistantMessage,
  ContentPart,
  Message,
  TextPart,
  ToolCall,
  ToolMessage,
} from '../../messages/message.js'
import { describeValue, requireOptions } from '../../options-check.js'
import {
  describe,
  detach,
  fail,
  type Json,
  type Loss,
  metadataFor,
  refuseDeep,
  requireList,
} from '../codec-kit.js'
import type { ToOpenAIResponsesOptions } from '../types.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const OPENAI_RESPONSES = 'openai-responses'

const { meta, withMeta } = metadataFor(OPENAI_RESPONSES)

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
const SERVER_ITEM =
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

export type { ToOpenAIResponsesOptions }

type Slot =
  | { t: 'reasoning'; item: Json }
  | { t: 'message'; form: 'string' | 'parts'; n: number; extra: Json }
  | { t: 'call' }
  | { t: 'opaque' }

const CALL_OUTPUT = /_call_output$/

/**
 * Whether an item is one of the model's (reasoning, an assistant message, a call, a built-in
 * tool item): consecutive model items are one run, decoded as one assistant message.
 */
export function isModelItem(item: unknown): boolean {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return false
  const { type, role, call_id: callId } = item as Json
  if (type === undefined || type === 'message') return role === 'assistant'
  if (typeof type !== 'string' || type === 'compaction') return false
  if (type === 'function_call_output' || type === 'custom_tool_call_output') return false
  return !(CALL_OUTPUT.test(type) && typeof callId === 'string')
}

/**
 * Decodes an OpenAI Responses conversation: a request (`{ instructions, input }`, `input` a
 * string or a list of items) or a bare item list. Each run of model items (reasoning,
 * assistant messages, calls, built-in tool items) becomes one assistant message, so a
 * reasoning item always travels with what follows it; ids, `encrypted_content`, statuses
 * and unknown fields are kept for the way back. Throws `InvalidInputError` naming the item.
 */
export function fromOpenAIResponses<const T>(
  input: ReaderInput<T, OpenAIResponsesInput>,
): Message[] {
  return readOpenAIResponses(input)
}

/** `fromOpenAIResponses` for a value of any type (a caller generic over the SDK's item type). */
export function readOpenAIResponses(input: unknown): Message[] {
  refuseDeep(input)
  const out: Message[] = []
  let items: unknown
  if (Array.isArray(input)) items = input
  else if (input && typeof input === 'object' && 'input' in input) {
    const req = input as Json
    if (req.instructions !== undefined && req.instructions !== null) {
      if (typeof req.instructions !== 'string')
        fail(-1, 'instructions', `expected a string, got ${describe(req.instructions)}`)
      out.push(withMeta({ role: 'system', content: req.instructions }, { instructions: true }))
    }
    items = req.input
    if (typeof items === 'string') {
      out.push(withMeta({ role: 'user', content: items }, { inputString: true }))
      return out
    }
  }
  if (!Array.isArray(items))
    throw new InvalidInputError('expected a list of items or an object with an "input" list', {
      field: 'input',
    })
  const names = new Map<string, string>()
  let run: Run | undefined
  const close = () => {
    if (run) out.push(run.message())
    run = undefined
  }
  items.forEach((raw, i) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      fail(i, 'item', `expected an object, got ${describe(raw)}`)
    const item = raw as Json
    const type = item.type
    if (type !== undefined && typeof type !== 'string')
      fail(i, 'type', `expected a string, got ${describe(type)}`)
    if (type === undefined || type === 'message') {
      const role = item.role
      if (role === 'assistant') {
        run ??= new Run()
        run.addMessage(item, i)
        return
      }
      if (role !== 'user' && role !== 'system' && role !== 'developer')
        fail(i, 'role', `expected user, assistant, system or developer, got ${describeValue(role)}`)
      close()
      // `pinned: true` is the library's (sent whenever the system prompt is), never the wire's.
      const { role: _r, content, pinned, ...extra } = item
      if (pinned !== undefined && typeof pinned !== 'boolean') extra.pinned = pinned
      const data: Json = Object.keys(extra).length ? { extra } : {}
      if (role === 'developer') data.role = 'developer'
      out.push(
        withMeta(
          {
            role: role === 'user' ? 'user' : 'system',
            content: decodeInput(content, i, 'content'),
            ...(pinned === true && { pinned: true }),
          },
          data,
        ),
      )
      return
    }
    if (type === 'compaction') {
      close()
      if (typeof item.encrypted_content !== 'string')
        fail(i, 'encrypted_content', `expected a string, got ${describe(item.encrypted_content)}`)
      // Stands for the history it compacted: a system message, counted as its encrypted text.
      out.push(
        withMeta(
          { role: 'system', content: [{ type: 'text', text: item.encrypted_content }] },
          { item },
        ),
      )
      return
    }
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      close()
      out.push(decodeOutput(item, i, names))
      return
    }
    if (CALL_OUTPUT.test(type) && typeof item.call_id === 'string') {
      close()
      const content = typeof item.output === 'string' ? item.output : JSON.stringify(item.output)
      out.push(
        withMeta(
          {
            role: 'tool',
            toolCallId: nonEmpty(item.call_id, i, 'call_id'),
            content,
            ...(names.has(item.call_id) && { toolName: names.get(item.call_id) }),
          },
          { item },
        ),
      )
      return
    }
    run ??= new Run()
    if (type === 'reasoning') run.addReasoning(item, i)
    else if (
      type === 'function_call' ||
      type === 'custom_tool_call' ||
      typeof item.call_id === 'string'
    )
      run.addCall(item, i, names)
    else run.addOpaque(item)
  })
  close()
  return out
}

function nonEmpty(v: unknown, i: number, field: string): string {
  if (typeof v !== 'string' || !v) fail(i, field, `expected a non-empty string, got ${describe(v)}`)
  return v
}

/** The model's items between two inputs: one assistant message. */
class Run {
  private parts: ContentPart[] = []
  private calls: ToolCall[] = []
  private thoughts: string[] = []
  private layout: Slot[] = []
  private encryptedChars = 0
  private single: string | undefined

  addMessage(item: Json, i: number): void {
    const { role: _r, content, ...extra } = item
    if (typeof content === 'string') {
      this.single = this.layout.length === 0 ? content : undefined
      if (content) this.parts.push({ type: 'text', text: content })
      this.layout.push({ t: 'message', form: 'string', n: content ? 1 : 0, extra })
      return
    }
    if (!Array.isArray(content))
      fail(i, 'content', `expected a string or a list of parts, got ${describe(content)}`)
    this.single = undefined
    content.forEach((p, k) => {
      this.parts.push(decodeOutputPart(p, i, `content.${k}`))
    })
    this.layout.push({ t: 'message', form: 'parts', n: content.length, extra })
  }

  addReasoning(item: Json, i: number): void {
    if (typeof item.id !== 'string') fail(i, 'id', `expected a string, got ${describe(item.id)}`)
    if (!Array.isArray(item.summary))
      fail(i, 'summary', `expected a list, got ${describe(item.summary)}`)
    const texts = (item.summary as Json[]).map((s, k) => {
      if (typeof s?.text !== 'string')
        fail(i, `summary.${k}.text`, `expected a string, got ${describe(s?.text)}`)
      return s.text as string
    })
    this.thoughts.push(texts.join('\n\n'))
    if (typeof item.encrypted_content === 'string')
      this.encryptedChars += item.encrypted_content.length
    this.single = undefined
    this.layout.push({ t: 'reasoning', item })
  }

  addCall(item: Json, i: number, names: Map<string, string>): void {
    const id = nonEmpty(item.call_id, i, 'call_id')
    let call: ToolCall
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const { type, call_id: _c, name, arguments: args, input, ...extra } = item
      if (typeof name !== 'string') fail(i, 'name', `expected a string, got ${describe(name)}`)
      const text = type === 'function_call' ? args : input
      if (typeof text !== 'string')
        fail(
          i,
          type === 'function_call' ? 'arguments' : 'input',
          `expected a string, got ${describe(text)}`,
        )
      call = withMeta(
        { id, name, arguments: text },
        {
          ...(type === 'custom_tool_call' && { custom: true }),
          ...(Object.keys(extra).length && { extra }),
        },
      )
    } else {
      // computer, shell and other client-run calls: kept whole, their action as the arguments.
      const { type, call_id: _c, id: _id, status: _s, ...rest } = item
      call = withMeta({ id, name: String(type), arguments: JSON.stringify(rest) }, { item })
    }
    names.set(id, call.name)
    this.calls.push(call)
    this.single = undefined
    this.layout.push({ t: 'call' })
  }

  addOpaque(item: Json): void {
    this.parts.push(withMeta({ type: 'text', text: JSON.stringify(item) }, { item }))
    this.single = undefined
    this.layout.push({ t: 'opaque' })
  }

  message(): AssistantMessage {
    const simple =
      !!this.single &&
      this.layout.length === 1 &&
      Object.keys((this.layout[0] as { extra: Json }).extra).length === 0
    if (simple) return { role: 'assistant', content: this.single as string }
    const out: AssistantMessage = { role: 'assistant', content: this.parts }
    if (this.calls.length) out.toolCalls = this.calls
    if (this.thoughts.length) out.thought = this.thoughts.join('\n\n')
    return withMeta(out, {
      layout: this.layout,
      ...(this.encryptedChars && { encryptedChars: this.encryptedChars }),
    })
  }
}

function decodeOutputPart(raw: unknown, i: number, field: string): ContentPart {
  if (!raw || typeof raw !== 'object') fail(i, field, `expected an object, got ${describe(raw)}`)
  const p = raw as Json
  if (p.type === 'output_text' || p.type === 'input_text' || p.type === 'text') {
    if (typeof p.text !== 'string')
      fail(i, `${field}.text`, `expected a string, got ${describe(p.text)}`)
    const { type, text, ...extra } = p
    return withMeta({ type: 'text', text }, { ...(type !== 'output_text' && { type }), ...extra })
  }
  if (p.type === 'refusal') {
    if (typeof p.refusal !== 'string')
      fail(i, `${field}.refusal`, `expected a string, got ${describe(p.refusal)}`)
    const { type: _t, refusal, ...extra } = p
    return withMeta({ type: 'text', text: refusal }, { type: 'refusal', ...extra })
  }
  return withMeta({ type: 'text', text: JSON.stringify(p) }, { part: p })
}

function decodeInput(content: unknown, i: number, field: string): string | ContentPart[] {
  if (typeof content === 'string') return content
  if (!Array.isArray(content))
    fail(i, field, `expected a string or a list of parts, got ${describe(content)}`)
  return content.map((raw, k): ContentPart => {
    const f = `${field}.${k}`
    if (!raw || typeof raw !== 'object') fail(i, f, `expected an object, got ${describe(raw)}`)
    const p = raw as Json
    switch (p.type) {
      case 'input_text':
      case 'output_text': {
        if (typeof p.text !== 'string')
          fail(i, `${f}.text`, `expected a string, got ${describe(p.text)}`)
        const { type, text, ...extra } = p
        return withMeta(
          { type: 'text', text },
          { ...(type !== 'input_text' && { type }), ...extra },
        )
      }
      case 'input_image': {
        const { type: _t, image_url, detail, ...extra } = p
        if (image_url !== undefined && image_url !== null && typeof image_url !== 'string')
          fail(i, `${f}.image_url`, `expected a string, got ${describe(image_url)}`)
        const part: ContentPart = { type: 'image' }
        if (typeof image_url === 'string') part.url = image_url
        if (detail === 'low' || detail === 'high' || detail === 'auto') part.detail = detail
        else if (detail !== undefined) extra.detail = detail
        if (image_url === null) extra.image_url = null
        return withMeta(part, extra)
      }
      case 'input_file': {
        const { type: _t, file_data, filename, file_url, ...extra } = p
        const part: ContentPart = { type: 'file' }
        if (typeof file_data === 'string') {
          const m = /^data:([^;,]+)[^,]*,/.exec(file_data)
          if (m) {
            part.data = file_data.slice(m[0].length)
            part.mediaType = m[1] as string
            extra.dataUrl = file_data.slice(0, m[0].length)
          } else part.data = file_data
        }
        if (typeof filename === 'string') part.filename = filename
        if (typeof file_url === 'string') part.url = file_url
        return withMeta(part, extra)
      }
      default:
        return withMeta({ type: 'text', text: JSON.stringify(p) }, { part: p })
    }
  })
}

function decodeOutput(item: Json, i: number, names: Map<string, string>): ToolMessage {
  const { type, call_id, output, ...extra } = item
  const toolCallId = nonEmpty(call_id, i, 'call_id')
  const name = names.get(toolCallId)
  return withMeta(
    {
      role: 'tool',
      toolCallId,
      content: decodeInput(output, i, 'output'),
      ...(name !== undefined && { toolName: name }),
    },
    {
      ...(type === 'custom_tool_call_output' && { custom: true }),
      ...(Object.keys(extra).length && { extra }),
    },
  )
}

/**
 * Encodes messages as a Responses API `input` list. Items decoded by `fromOpenAIResponses`
 * come back as they were. A reasoning item goes only where an item of its own follows it
 * (and, with `store: false`, only with its `encrypted_content`); where one is left out,
 * the ids of the items it produced are left out too, so the API does not ask for it. An
 * assistant's `refusal` goes as a refusal part of an output message. Reasoning text that
 * came from another format has no reasoning item to go back in and is not sent:
 * `encodeOpenAIResponses` lists it as lost, and `repair` (so `fit`) takes it out before
 * counting.
 */
export function toOpenAIResponses(
  messages: readonly Message[],
  options: ToOpenAIResponsesOptions = {},
): ResponsesInputItem[] {
  requireList(messages)
  requireOptions(options, 'toOpenAIResponses', ['ids', 'store'])
  return detach(encodeItems(messages, options, []).items)
}

/** `toOpenAIResponses` with what could not be sent, by input message. */
export function encodeOpenAIResponses(
  messages: readonly Message[],
  options: ToOpenAIResponsesOptions & { request?: boolean } = {},
): { output: ResponsesRequest | ResponsesInputItem[]; lost: Loss[] } {
  requireList(messages)
  requireOptions(options, 'encodeOpenAIResponses', ['ids', 'store', 'request'])
  const lost: Loss[] = []
  if (!options.request) return { output: detach(encodeItems(messages, options, lost).items), lost }
  const first = messages[0]
  let instructions: string | undefined
  let rest = messages
  if (
    first?.role === 'system' &&
    typeof first.content === 'string' &&
    (meta(first).instructions || !first.providerMetadata?.[OPENAI_RESPONSES])
  ) {
    instructions = first.content
    rest = messages.slice(1)
  }
  const only = rest[0]
  if (rest.length === 1 && only && meta(only).inputString && typeof only.content === 'string')
    return {
      output: { ...(instructions !== undefined && { instructions }), input: only.content as never },
      lost,
    }
  const { items } = encodeItems(rest, options, lost, instructions !== undefined ? 1 : 0)
  return {
    output: { ...(instructions !== undefined && { instructions }), input: detach(items) },
    lost,
  }
}

function encodeItems(
  messages: readonly Message[],
  options: ToOpenAIResponsesOptions,
  lost: Loss[],
  offset = 0,
): { items: ResponsesInputItem[] } {
  const items: Json[] = []
  const seen = new Set<string>()
  messages.forEach((m, k) => {
    const data = meta(m)
    if (m.role === 'assistant') {
      items.push(...encodeAssistant(m, options, seen, lost, k + offset))
      return
    }
    if (m.role === 'tool') {
      if (data.item) {
        items.push(data.item as Json)
        return
      }
      const out: Json = {
        type: data.custom ? 'custom_tool_call_output' : 'function_call_output',
        call_id: m.toolCallId,
        output: encodeInput(m.content),
        ...((data.extra as Json | undefined) ?? {}),
      }
      if (options.ids === 'omit') delete out.id
      items.push(out)
      return
    }
    if (data.item) {
      items.push(data.item as Json)
      return
    }
    const role = m.role === 'system' ? ((data.role as string | undefined) ?? 'system') : 'user'
    items.push({
      role,
      content: encodeInput(m.content),
      ...((data.extra as Json | undefined) ?? {}),
    })
  })
  return { items: items as unknown as ResponsesInputItem[] }
}

function encodeInput(content: Message['content']): string | Json[] {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  return content.map((p) => {
    const data = meta(p)
    if (data.part) return data.part as Json
    if (p.type === 'text') {
      const { type, ...extra } = data
      return { type: (type as string | undefined) ?? 'input_text', text: p.text, ...extra }
    }
    if (p.type === 'image') {
      const url =
        p.url ?? (p.data ? `data:${p.mediaType ?? 'image/png'};base64,${p.data}` : undefined)
      return {
        type: 'input_image',
        ...(url !== undefined && { image_url: url }),
        detail: p.detail ?? 'auto',
        ...data,
      }
    }
    const { dataUrl, ...extra } = data
    const out: Json = { type: 'input_file' }
    if (p.data !== undefined)
      out.file_data =
        typeof dataUrl === 'string'
          ? `${dataUrl}${p.data}`
          : p.mediaType
            ? `data:${p.mediaType};base64,${p.data}`
            : p.data
    if (p.filename !== undefined) out.filename = p.filename
    if (p.url !== undefined) out.file_url = p.url
    return { ...out, ...extra }
  })
}

function textParts(content: Message['content']): TextPart[] {
  if (content === undefined) return []
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : []
  return content.filter((p): p is TextPart => p.type === 'text')
}

function outputPart(p: TextPart): Json {
  const data = meta(p)
  if (data.part) return data.part as Json
  const { type, ...extra } = data
  if (type === 'refusal') return { type: 'refusal', refusal: p.text, ...extra }
  return {
    type: (type as string | undefined) ?? 'output_text',
    text: p.text,
    annotations: [],
    ...extra,
  }
}

function encodeAssistant(
  m: AssistantMessage,
  options: ToOpenAIResponsesOptions,
  seen: Set<string>,
  lost: Loss[],
  index: number,
): Json[] {
  const data = meta(m)
  const parts = textParts(m.content)
  const calls = [...(m.toolCalls ?? [])]
  const layout = (data.layout as Slot[] | undefined) ?? []
  const slots: (Json | 'reasoning-dropped')[] = []
  const takeCall = (c: ToolCall): Json => {
    const cm = meta(c)
    if (cm.item) return { ...(cm.item as Json), call_id: c.id }
    return cm.custom
      ? {
          type: 'custom_tool_call',
          call_id: c.id,
          name: c.name,
          input: c.arguments,
          ...((cm.extra as Json | undefined) ?? {}),
        }
      : {
          type: 'function_call',
          call_id: c.id,
          name: c.name,
          arguments: c.arguments,
          ...((cm.extra as Json | undefined) ?? {}),
        }
  }
  const messageSlots = layout.filter((s) => s.t === 'message').length
  let messagesSeen = 0
  for (const slot of layout) {
    if (slot.t === 'reasoning') {
      const enc = slot.item.encrypted_content
      const sendable =
        m.thought !== undefined &&
        (options.store !== false || (typeof enc === 'string' && enc.length > 0))
      slots.push(sendable ? { ...slot.item } : 'reasoning-dropped')
      if (!sendable && m.thought !== undefined)
        lost.push({
          index,
          what: `reasoning item ${String(slot.item.id)} (no encrypted_content to send with store: false)`,
        })
    } else if (slot.t === 'call') {
      const c = calls.shift()
      if (c) slots.push(takeCall(c))
    } else if (slot.t === 'opaque') {
      const at = parts.findIndex((p) => meta(p).item)
      if (at >= 0) slots.push(meta(parts.splice(at, 1)[0] as TextPart).item as Json)
    } else {
      messagesSeen++
      const last = messagesSeen === messageSlots
      let mine: TextPart[] = []
      const take = last ? parts.length : Math.min(slot.n, parts.length)
      // Opaque items sit in the parts in their own slots: a message takes only text of its own.
      while (mine.length < take && parts.length && !meta(parts[0] as TextPart).item)
        mine.push(parts.shift() as TextPart)
      if (last) {
        const rest = parts.filter((p) => !meta(p).item)
        mine = [...mine, ...rest]
        for (const p of rest) parts.splice(parts.indexOf(p), 1)
      }
      if (slot.form === 'string' && mine.every((p) => !Object.keys(meta(p)).length)) {
        if (mine.length === 0 && slot.n > 0) continue
        slots.push({ role: 'assistant', content: mine.map((p) => p.text).join(''), ...slot.extra })
      } else {
        if (mine.length === 0 && slot.n > 0) continue
        slots.push({ ...slot.extra, role: 'assistant', content: mine.map(outputPart) })
      }
    }
  }
  if (m.thought !== undefined && !layout.some((s) => s.t === 'reasoning'))
    lost.push({ index, what: 'reasoning text (a Responses reasoning item needs its id)' })
  if (Array.isArray(m.content))
    for (const p of m.content)
      if (p.type !== 'text')
        lost.push({
          index,
          what: `${p.type} part of an assistant message (an output message holds only output_text and refusal parts)`,
        })
  // What the layout did not place: text as one message (with the refusal, as a refusal part
  // of an output message), then the calls.
  const leftText = parts.filter((p) => !meta(p).item)
  const refusal = m.refusal ? [{ type: 'refusal', refusal: m.refusal }] : []
  if (leftText.length || refusal.length) {
    const simple = !refusal.length && leftText.every((p) => !Object.keys(meta(p)).length)
    slots.push(
      simple
        ? { role: 'assistant', content: leftText.map((p) => p.text).join('\n') }
        : {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [...leftText.map(outputPart), ...refusal],
          },
    )
  }
  for (const c of calls) slots.push(takeCall(c))

  // A reasoning item already sent (a duplicated history) cannot be sent twice.
  const local = new Set<string>()
  slots.forEach((s, k) => {
    if (s === 'reasoning-dropped' || s.type !== 'reasoning') return
    const id = s.id as string
    if (seen.has(id) || local.has(id)) slots[k] = 'reasoning-dropped'
    else local.add(id)
  })
  // A reasoning item must be followed by an item of its own turn; otherwise it is left out.
  for (let s = slots.length - 1; s >= 0; s--) {
    const cur = slots[s]
    if (cur === 'reasoning-dropped' || cur?.type !== 'reasoning') continue
    let next = s + 1
    while (slots[next] === 'reasoning-dropped') next++
    const after = slots[next]
    if (after === undefined || (after !== 'reasoning-dropped' && after.type === 'reasoning')) {
      slots[s] = 'reasoning-dropped'
      lost.push({ index, what: `reasoning item ${String(cur.id)} (nothing of its own follows it)` })
    }
  }
  // Items whose reasoning is not sent go without their ids, or the API asks for it.
  const anyDropped = slots.some((s) => s === 'reasoning-dropped')
  const out: Json[] = []
  for (const s of slots) {
    if (s === 'reasoning-dropped') continue
    const item = { ...s }
    if (item.type === 'reasoning') {
      seen.add(item.id as string)
      out.push(item)
      continue
    }
    const id = item.id
    if (typeof id === 'string' && SERVER_ITEM.test(String(item.type)) && !seen.has(id)) {
      // The API refuses a server-side tool item without its id, and with it but without the
      // reasoning it followed: when that reasoning is not sent, the item is left out (the
      // answer it led to stays); otherwise it keeps its id, `ids: 'omit'` or not.
      if (anyDropped) {
        lost.push({ index, what: `${String(item.type)} ${id} (its reasoning is not sent)` })
        continue
      }
      seen.add(id)
      out.push(item)
      continue
    }
    const strip = options.ids === 'omit' || anyDropped || (typeof id === 'string' && seen.has(id))
    if (typeof id === 'string' && !strip) seen.add(id)
    if (strip && 'id' in item) {
      delete item.id
      if (item.role === 'assistant') {
        // Without its id an assistant message is sent by role, as text.
        const content = item.content
        const text = Array.isArray(content)
          ? (content as Json[]).map((p) => (p.type === 'refusal' ? p.refusal : p.text)).join('')
          : content
        out.push({
          ...(item.type === 'message' && { type: 'message' }),
          role: 'assistant',
          content: text,
        })
        continue
      }
    }
    out.push(item)
  }
  return out
}

import { InvalidInputError } from '../../errors.js'
import type { OpenAIChatInput, ReaderInput } from '../../messages/input.js'
import type {
  AssistantMessage,
  ContentPart,
  Message,
  ProviderMetadata,
  ToolCall,
} from '../../messages/message.js'
import { describeValue } from '../../options-check.js'
import { describe, detach, type Loss, refuseDeep, requireList } from '../codec-kit.js'

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

type Out = Record<string, unknown> & { role: string }

type Json = Record<string, unknown>
type Meta = Record<string, unknown>

const KNOWN: Record<string, readonly string[]> = {
  system: ['role', 'content', 'name'],
  developer: ['role', 'content', 'name'],
  user: ['role', 'content', 'name'],
  assistant: [
    'role',
    'content',
    'name',
    'tool_calls',
    'function_call',
    'refusal',
    'reasoning_content',
  ],
  tool: ['role', 'content', 'tool_call_id', 'name'],
  function: ['role', 'content', 'name'],
}

/**
 * Decodes OpenAI chat messages: a list, or an object with `messages`. Roles system,
 * developer, user, assistant, tool and the legacy function role. Throws
 * `InvalidInputError` naming the message index and the field on anything malformed.
 */
export function fromOpenAIChat<const T>(input: ReaderInput<T, OpenAIChatInput>): Message[] {
  return readOpenAIChat(input)
}

/** `fromOpenAIChat` for a value of any type (a caller generic over the SDK's message type). */
export function readOpenAIChat(input: unknown): Message[] {
  refuseDeep(input)
  const list = messageList(input)
  const out: Message[] = []
  const callNames = new Map<string, string>()
  let pendingLegacy: string | undefined
  for (let i = 0; i < list.length; i++) {
    const m = decodeOne(list[i], i, callNames, pendingLegacy)
    if (m.role === 'assistant' && m.providerMetadata?.[OPENAI_CHAT]?.legacyFunctionCall) {
      pendingLegacy = m.toolCalls?.[0]?.id
    } else if (m.role === 'tool' && m.providerMetadata?.[OPENAI_CHAT]?.legacyFunction) {
      pendingLegacy = undefined
    }
    // `pinned: true` is the library's (sent whenever the system prompt is), never the wire's.
    const raw = list[i] as Json
    out.push(raw.pinned === true ? { ...m, pinned: true } : m)
  }
  return out
}

function messageList(input: unknown): unknown[] {
  if (Array.isArray(input)) return input
  if (input && typeof input === 'object' && Array.isArray((input as Json).messages)) {
    return (input as { messages: unknown[] }).messages
  }
  throw new InvalidInputError('expected a list of messages or an object with a "messages" list', {
    field: 'messages',
  })
}

function fail(index: number, field: string, detail: string): never {
  throw new InvalidInputError(detail, { index, field })
}

function str(v: unknown, index: number, field: string, optional = false): string | undefined {
  if (v === undefined && optional) return undefined
  if (typeof v !== 'string') fail(index, field, `expected a string, got ${describe(v)}`)
  return v
}

function decodeOne(
  raw: unknown,
  i: number,
  callNames: Map<string, string>,
  pendingLegacy: string | undefined,
): Message {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    fail(i, 'message', `expected an object, got ${describe(raw)}`)
  }
  const m = raw as Json
  const role = m.role
  if (typeof role !== 'string' || !Object.hasOwn(KNOWN, role)) {
    fail(
      i,
      'role',
      `unknown role ${describeValue(role)} (expected one of ${Object.keys(KNOWN).join(', ')})`,
    )
  }
  const meta: Meta = {}
  const extra: Json = {}
  for (const key of Object.keys(m))
    if (!KNOWN[role]?.includes(key) && !(key === 'pinned' && typeof m[key] === 'boolean'))
      extra[key] = m[key]
  if (Object.keys(extra).length) meta.extra = extra
  const name = str(m.name, i, 'name', true)

  switch (role) {
    case 'system':
    case 'developer': {
      if (role === 'developer') meta.role = 'developer'
      const content = required(decodeContent(m.content, i, meta), i, role)
      return withMeta({ role: 'system', content, ...(name !== undefined && { name }) }, meta)
    }
    case 'user': {
      const content = required(decodeContent(m.content, i, meta), i, role)
      return withMeta({ role: 'user', content, ...(name !== undefined && { name }) }, meta)
    }
    case 'assistant':
      return decodeAssistant(m, i, meta, name, callNames)
    case 'tool': {
      const toolCallId = str(m.tool_call_id, i, 'tool_call_id') as string
      if (!toolCallId) fail(i, 'tool_call_id', 'must not be empty')
      const content = required(decodeContent(m.content, i, meta), i, role)
      if (name !== undefined) meta.nameField = true
      const toolName = name ?? callNames.get(toolCallId)
      return withMeta(
        {
          role: 'tool',
          toolCallId,
          content,
          ...(toolName !== undefined && { toolName }),
        },
        meta,
      )
    }
    default: {
      // Legacy `function` role: the result of the `function_call` just before it.
      meta.legacyFunction = true
      const content = decodeContent(m.content, i, meta)
      const toolName = str(m.name, i, 'name') as string
      return withMeta(
        {
          role: 'tool',
          toolCallId: pendingLegacy ?? `legacy-function-${i}`,
          toolName,
          content: content ?? '',
        },
        meta,
      )
    }
  }
}

function decodeAssistant(
  m: Json,
  i: number,
  meta: Meta,
  name: string | undefined,
  callNames: Map<string, string>,
): AssistantMessage {
  const out: AssistantMessage = { role: 'assistant' }
  const content = decodeContent(m.content, i, meta)
  if (content !== undefined) out.content = content
  if (name !== undefined) out.name = name
  if (m.refusal === null) meta.refusalNull = true
  else if (m.refusal !== undefined) out.refusal = str(m.refusal, i, 'refusal')
  if (m.reasoning_content !== undefined) {
    // Some OpenAI-compatible servers carry reasoning here; written back only where it was read.
    out.thought = str(m.reasoning_content, i, 'reasoning_content')
    meta.reasoningField = true
  }

  if (m.tool_calls !== undefined) {
    if (!Array.isArray(m.tool_calls))
      fail(i, 'tool_calls', `expected a list, got ${describe(m.tool_calls)}`)
    if (m.tool_calls.length === 0) meta.emptyToolCalls = true
    out.toolCalls = m.tool_calls.map((c, k) => decodeCall(c, i, `tool_calls.${k}`, callNames))
  }
  if (m.function_call !== undefined && m.function_call !== null) {
    const fc = m.function_call as Json
    if (typeof fc !== 'object') fail(i, 'function_call', `expected an object, got ${describe(fc)}`)
    const call: ToolCall = {
      id: `legacy-function-call-${i}`,
      name: str(fc.name, i, 'function_call.name') as string,
      arguments: str(fc.arguments, i, 'function_call.arguments') as string,
    }
    callNames.set(call.id, call.name)
    meta.legacyFunctionCall = true
    out.toolCalls = [...(out.toolCalls ?? []), call]
  } else if (m.function_call === null) {
    meta.functionCallNull = true
  }
  return withMeta(out, meta)
}

function decodeCall(
  raw: unknown,
  i: number,
  field: string,
  callNames: Map<string, string>,
): ToolCall {
  if (!raw || typeof raw !== 'object') fail(i, field, `expected an object, got ${describe(raw)}`)
  const c = raw as Json
  const id = str(c.id, i, `${field}.id`) as string
  if (!id) fail(i, `${field}.id`, 'must not be empty')
  const fn = c.function as Json | undefined
  if (!fn || typeof fn !== 'object')
    fail(i, `${field}.function`, `expected an object, got ${describe(fn)}`)
  const call: ToolCall = {
    id,
    name: str(fn.name, i, `${field}.function.name`) as string,
    arguments: str(fn.arguments, i, `${field}.function.arguments`) as string,
  }
  const meta: Meta = {}
  if (c.type !== 'function') meta.type = c.type
  const extra: Json = {}
  for (const k of Object.keys(c)) if (!['id', 'type', 'function'].includes(k)) extra[k] = c[k]
  for (const k of Object.keys(fn))
    if (!['name', 'arguments'].includes(k)) extra[`function.${k}`] = fn[k]
  if (Object.keys(extra).length) meta.extra = extra
  callNames.set(id, call.name)
  return Object.keys(meta).length ? { ...call, providerMetadata: { [OPENAI_CHAT]: meta } } : call
}

/** OpenAI takes `content` as optional on assistant messages only. */
function required<T>(content: T | undefined, i: number, role: string): T {
  if (content === undefined)
    fail(i, 'content', `a ${role} message without content (absent or null)`)
  return content
}

function decodeContent(v: unknown, i: number, meta: Meta): string | ContentPart[] | undefined {
  if (typeof v === 'string') return v
  if (v === undefined) {
    meta.contentAbsent = true
    return undefined
  }
  if (v === null) {
    meta.contentNull = true
    return undefined
  }
  if (!Array.isArray(v))
    fail(i, 'content', `expected a string or a list of parts, got ${describe(v)}`)
  return v.map((p, k) => decodePart(p, i, `content.${k}`))
}

function decodePart(raw: unknown, i: number, field: string): ContentPart {
  if (!raw || typeof raw !== 'object') fail(i, field, `expected an object, got ${describe(raw)}`)
  const p = raw as Json
  switch (p.type) {
    case 'text':
      return { type: 'text', text: str(p.text, i, `${field}.text`) as string }
    case 'refusal':
      return {
        type: 'text',
        text: str(p.refusal, i, `${field}.refusal`) as string,
        providerMetadata: { [OPENAI_CHAT]: { type: 'refusal' } },
      }
    case 'image_url': {
      const img = p.image_url as Json | undefined
      if (!img || typeof img !== 'object')
        fail(i, `${field}.image_url`, `expected an object, got ${describe(img)}`)
      const url = str(img.url, i, `${field}.image_url.url`) as string
      const detail = img.detail
      if (detail !== undefined && detail !== 'auto' && detail !== 'low' && detail !== 'high') {
        fail(i, `${field}.image_url.detail`, `expected auto, low or high, got ${describe(detail)}`)
      }
      return { type: 'image', url, ...(detail !== undefined && { detail }) }
    }
    case 'input_audio': {
      const a = p.input_audio as Json | undefined
      if (!a || typeof a !== 'object')
        fail(i, `${field}.input_audio`, `expected an object, got ${describe(a)}`)
      return {
        type: 'file',
        data: str(a.data, i, `${field}.input_audio.data`) as string,
        mediaType: `audio/${str(a.format, i, `${field}.input_audio.format`)}`,
        providerMetadata: { [OPENAI_CHAT]: { type: 'input_audio' } },
      }
    }
    case 'file': {
      const f = p.file as Json | undefined
      if (!f || typeof f !== 'object')
        fail(i, `${field}.file`, `expected an object, got ${describe(f)}`)
      const data = str(f.file_data, i, `${field}.file.file_data`, true)
      const filename = str(f.filename, i, `${field}.file.filename`, true)
      const fileId = str(f.file_id, i, `${field}.file.file_id`, true)
      return {
        type: 'file',
        ...(data !== undefined && { data }),
        ...(filename !== undefined && { filename }),
        ...(fileId !== undefined && { providerMetadata: { [OPENAI_CHAT]: { fileId } } }),
      }
    }
    default:
      return fail(i, `${field}.type`, `unknown content part type ${describeValue(p.type)}`)
  }
}

function withMeta<T extends Message>(m: T, meta: Meta): T {
  if (Object.keys(meta).length === 0) return m
  return { ...m, providerMetadata: { ...m.providerMetadata, [OPENAI_CHAT]: meta } }
}

function metaOf(x: { providerMetadata?: ProviderMetadata | undefined }): Meta {
  return x.providerMetadata?.[OPENAI_CHAT] ?? {}
}

/**
 * Encodes messages as OpenAI chat JSON; messages decoded by `fromOpenAIChat` come back as they
 * were. An image or file part of an assistant, system or tool message is not written (OpenAI
 * takes only text and refusal parts from the assistant, only text from the others); `encode`
 * lists it as lost, and `repair` moves a tool result's to a user message.
 */
export function toOpenAIChat(messages: readonly Message[]): OpenAIChatMessage[] {
  requireList(messages)
  return detach(messages.map(encodeOne)) as unknown as OpenAIChatMessage[]
}

function encodeOne(m: Message): Out {
  const meta = metaOf(m)
  const out: Out = { role: m.role }
  switch (m.role) {
    case 'system':
      if (meta.role === 'developer') out.role = 'developer'
      encodeContent(out, m.content, meta, false, true)
      if (m.name !== undefined) out.name = m.name
      break
    case 'user':
      encodeContent(out, m.content, meta)
      if (m.name !== undefined) out.name = m.name
      break
    case 'assistant': {
      encodeContent(out, m.content, meta, true)
      if (m.name !== undefined) out.name = m.name
      if (m.refusal !== undefined) out.refusal = m.refusal
      else if (meta.refusalNull) out.refusal = null
      if (m.thought !== undefined && meta.reasoningField) out.reasoning_content = m.thought
      const calls = m.toolCalls ?? []
      if (meta.legacyFunctionCall && calls.length) {
        const legacy = calls[calls.length - 1] as ToolCall
        out.function_call = { name: legacy.name, arguments: legacy.arguments }
        const rest = calls.slice(0, -1)
        if (rest.length || meta.emptyToolCalls) out.tool_calls = rest.map(encodeCall)
      } else if (calls.length || meta.emptyToolCalls) {
        out.tool_calls = calls.map(encodeCall)
      }
      if (meta.functionCallNull) out.function_call = null
      break
    }
    case 'tool':
      if (meta.legacyFunction) {
        out.role = 'function'
        out.name = m.toolName ?? ''
        encodeContent(out, m.content, meta, false, true)
      } else {
        encodeContent(out, m.content, meta, false, true)
        out.tool_call_id = m.toolCallId
        if (meta.nameField && m.toolName !== undefined) out.name = m.toolName
      }
      break
  }
  if (meta.extra) Object.assign(out, meta.extra)
  return out
}

function encodeCall(c: ToolCall): Json {
  const meta = metaOf(c)
  const fn: Json = { name: c.name, arguments: c.arguments }
  const out: Json = { id: c.id, type: 'type' in meta ? meta.type : 'function', function: fn }
  if (out.type === undefined) delete out.type
  for (const [k, v] of Object.entries((meta.extra as Json | undefined) ?? {})) {
    if (k.startsWith('function.')) fn[k.slice(9)] = v
    else out[k] = v
  }
  return out
}

function encodeContent(
  out: Json,
  content: Message['content'],
  meta: Meta,
  assistant = false,
  textOnly = assistant,
): void {
  const empty = content === undefined || content === ''
  if (empty && meta.contentAbsent) return
  if (empty && meta.contentNull) {
    out.content = null
    return
  }
  // OpenAI takes only text and refusal parts from the assistant, and only text in a system,
  // developer or tool message: an image or file part is not sent there (`encode` reports it
  // lost; `repair` takes it out, or moves a tool result's to a user message, before counting).
  const parts =
    textOnly && Array.isArray(content) ? content.filter((p) => p.type === 'text') : content
  // An assistant's `[]` beside its calls is no text: OpenAI refuses an empty part list. A
  // message whose every part was left out keeps its place with empty text.
  if (
    parts === undefined ||
    (Array.isArray(parts) && parts.length === 0 && (assistant || (content as unknown[]).length > 0))
  ) {
    out.content = assistant ? null : ''
    return
  }
  out.content = typeof parts === 'string' ? parts : parts.map(encodePart)
}

function encodePart(p: ContentPart): Json {
  const meta = metaOf(p)
  if (p.type === 'text')
    return meta.type === 'refusal'
      ? { type: 'refusal', refusal: p.text }
      : { type: 'text', text: p.text }
  if (p.type === 'image') {
    const url = p.url ?? `data:${p.mediaType ?? 'image/png'};base64,${p.data ?? ''}`
    return {
      type: 'image_url',
      image_url: { url, ...(p.detail !== undefined && { detail: p.detail }) },
    }
  }
  if (meta.type === 'input_audio' || p.mediaType?.startsWith('audio/')) {
    return {
      type: 'input_audio',
      input_audio: { data: p.data ?? '', format: (p.mediaType ?? 'audio/wav').slice(6) },
    }
  }
  const file: Json = {}
  if (p.data !== undefined) file.file_data = p.data
  if (meta.fileId !== undefined) file.file_id = meta.fileId
  if (p.filename !== undefined) file.filename = p.filename
  return { type: 'file', file }
}

/** OpenAI chat messages and what they cannot carry (reasoning text, non-text parts where only text goes). */
export function encodeOpenAIChat(messages: readonly Message[]): {
  output: OpenAIChatMessage[]
  lost: Loss[]
} {
  const lost: Loss[] = []
  messages.forEach((m, index) => {
    if (
      m.role === 'assistant' &&
      m.thought !== undefined &&
      !m.providerMetadata?.['openai-chat']?.reasoningField
    ) {
      lost.push({
        index,
        what: 'reasoning text and any signature (OpenAI chat has no field for them)',
      })
    }
    if (m.role !== 'user' && Array.isArray(m.content))
      for (const p of m.content)
        if (p.type !== 'text')
          lost.push({
            index,
            what:
              m.role === 'assistant'
                ? `${p.type} part of an assistant message (OpenAI chat takes only text and refusal parts from the assistant)`
                : `${p.type} part of a ${m.role} message (OpenAI chat takes only text there; repair moves a tool result's to a user message)`,
          })
  })
  return { output: toOpenAIChat(messages), lost }
}

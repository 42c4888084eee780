import { InvalidInputError } from '../errors.js'
import { bytesToBase64 } from '../messages/base64.js'
import type { AISDKInput, ReaderInput } from '../messages/input.js'
import {
  type AssistantMessage,
  type ContentPart,
  contentText,
  type Message,
  type ToolCall,
} from '../messages/message.js'
import { describeValue } from '../options-check.js'
import {
  describe,
  detach,
  fail,
  type Json,
  metadataFor,
  parseArguments,
  refuseDeep,
  requireList,
} from '../providers/codec-kit.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const AI_SDK = 'ai-sdk'

type Part = Json & { type: string }

/** A Vercel AI SDK `ModelMessage` (v5 and later) as plain JSON. */
export type ModelMessageJson = {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | Part[]
} & Json

const { meta, withMeta } = metadataFor(AI_SDK)
const opts = (p: Json): Json =>
  p.providerOptions !== undefined ? { providerOptions: p.providerOptions } : {}

/** Binary data as base64, a URL object as its string: what JSON can hold. */
function dataString(v: unknown): string {
  if (typeof v === 'string') return v
  if (v instanceof URL) return v.toString()
  if (v instanceof Uint8Array) return bytesToBase64(v)
  if (v instanceof ArrayBuffer) return bytesToBase64(new Uint8Array(v))
  return String(v)
}
const isUrl = (s: string) => /^(https?:|data:)/.test(s)

/**
 * Decodes AI SDK `ModelMessage`s: system, user, assistant and tool messages with text,
 * image, file, reasoning, tool-call and tool-result parts (every `output` variant);
 * `providerOptions` are kept. One canonical tool message per tool result.
 */
export function fromAISDK<const T>(input: ReaderInput<T, AISDKInput>): Message[] {
  return readAISDK(input)
}

/** `fromAISDK` for a value of any type (a caller generic over the SDK's message type). */
export function readAISDK(input: unknown): Message[] {
  refuseDeep(input)
  const list = Array.isArray(input) ? input : (input as Json | undefined)?.messages
  if (!Array.isArray(list))
    throw new InvalidInputError('expected a list of ModelMessages', { field: 'messages' })
  const out: Message[] = []
  list.forEach((raw, i) => {
    if (!raw || typeof raw !== 'object')
      fail(i, 'message', `expected an object, got ${describe(raw)}`)
    const m = raw as Json
    const base = opts(m)
    // Pinned in `providerOptions.contextWindow` (a key no provider reads): every message it becomes.
    const push = pinnedOf(m)
      ? (x: Message) => out.push({ ...x, pinned: true })
      : (x: Message) => out.push(x)
    switch (m.role) {
      case 'system':
        if (typeof m.content !== 'string')
          fail(i, 'content', `expected a string, got ${describe(m.content)}`)
        push(withMeta({ role: 'system', content: m.content as string }, base))
        return
      case 'user':
        push(withMeta({ role: 'user', content: userContent(m.content, i) }, base))
        return
      case 'assistant':
        push(decodeAssistant(m, i, base))
        return
      case 'tool': {
        if (!Array.isArray(m.content))
          fail(i, 'content', `expected a list of tool results, got ${describe(m.content)}`)
        const parts = m.content as Part[]
        parts.forEach((p, k) => {
          if (p?.type !== 'tool-result') {
            push(
              withMeta(
                { role: 'tool', toolCallId: `other-${i}-${k}`, content: '' },
                { turn: i, other: p, ...base },
              ),
            )
            return
          }
          push(decodeResult(p, i, `content.${k}`, { turn: i, ...(k === 0 ? base : {}) }))
        })
        return
      }
      default:
        fail(
          i,
          'role',
          `unknown role ${describeValue(m.role)} (expected system, user, assistant or tool)`,
        )
    }
  })
  return out
}

/** Where a `ModelMessage` carries `pinned`: its own key of `providerOptions`, which providers leave alone. */
const PINNED_KEY = 'contextWindow'

function pinnedOf(m: Json): boolean {
  const own = (m.providerOptions as Json | undefined)?.[PINNED_KEY] as Json | undefined
  return own?.pinned === true
}

/** `base` (a message's kept `providerOptions`) saying `pinned` as the message does. */
function withPinned(base: Json, pinned: boolean): Json {
  const options = (base.providerOptions as Json | undefined) ?? {}
  const own = (options[PINNED_KEY] as Json | undefined) ?? {}
  if (pinned) return { ...base, providerOptions: { ...options, [PINNED_KEY]: { ...own, pinned } } }
  if (own.pinned === undefined) return base
  const { pinned: _p, ...ownRest } = own
  const { [PINNED_KEY]: _o, ...rest } = options
  const next = Object.keys(ownRest).length ? { ...rest, [PINNED_KEY]: ownRest } : rest
  const { providerOptions: _x, ...without } = base
  return Object.keys(next).length ? { ...without, providerOptions: next } : without
}

function userContent(c: unknown, i: number): string | ContentPart[] {
  if (typeof c === 'string') return c
  if (!Array.isArray(c))
    return fail(i, 'content', `expected a string or a list of parts, got ${describe(c)}`)
  return c.map((p, k) => mediaPart(p as Part, i, `content.${k}`))
}

function mediaPart(p: Part, i: number, field: string): ContentPart {
  if (!p || typeof p !== 'object') return fail(i, field, `expected a part, got ${describe(p)}`)
  if (p.type === 'text') {
    if (typeof p.text !== 'string')
      fail(i, `${field}.text`, `expected a string, got ${describe(p.text)}`)
    return withMeta({ type: 'text', text: p.text as string }, opts(p))
  }
  if (p.type === 'image') {
    const v = dataString(p.image)
    const part: ContentPart = isUrl(v) ? { type: 'image', url: v } : { type: 'image', data: v }
    if (typeof p.mediaType === 'string') part.mediaType = p.mediaType
    return withMeta(part, opts(p))
  }
  if (p.type === 'file') {
    const v = dataString(p.data)
    const part: ContentPart = isUrl(v) ? { type: 'file', url: v } : { type: 'file', data: v }
    if (typeof p.mediaType === 'string') part.mediaType = p.mediaType
    if (typeof p.filename === 'string') part.filename = p.filename
    return withMeta(part, opts(p))
  }
  return fail(i, `${field}.type`, `unknown part type ${describeValue(p.type)}`)
}

function decodeAssistant(m: Json, i: number, base: Json): AssistantMessage {
  if (typeof m.content === 'string')
    return withMeta({ role: 'assistant', content: m.content }, base)
  if (!Array.isArray(m.content))
    return fail(i, 'content', `expected a string or a list of parts, got ${describe(m.content)}`)
  const parts: ContentPart[] = []
  const calls: ToolCall[] = []
  const thoughts: string[] = []
  const layout: Json[] = []
  ;(m.content as Part[]).forEach((p, k) => {
    if (p?.type === 'text' || p?.type === 'file') {
      parts.push(mediaPart(p, i, `content.${k}`))
      layout.push({ t: 'part' })
    } else if (p?.type === 'reasoning') {
      if (typeof p.text !== 'string')
        fail(i, `content.${k}.text`, `expected a string, got ${describe(p.text)}`)
      thoughts.push(p.text as string)
      layout.push({ t: 'reasoning', part: p })
    } else if (p?.type === 'tool-call') {
      if (typeof p.toolCallId !== 'string' || !p.toolCallId)
        fail(i, `content.${k}.toolCallId`, `expected a string, got ${describe(p.toolCallId)}`)
      if (typeof p.toolName !== 'string')
        fail(i, `content.${k}.toolName`, `expected a string, got ${describe(p.toolName)}`)
      const { type: _t, toolCallId, toolName, input, ...rest } = p
      calls.push(
        withMeta(
          {
            id: toolCallId as string,
            name: toolName as string,
            arguments: JSON.stringify(input ?? {}),
          },
          rest,
        ),
      )
      layout.push({ t: 'call' })
    } else {
      layout.push({ t: 'other', part: p })
    }
  })
  const out: AssistantMessage = { role: 'assistant', content: parts }
  if (calls.length) out.toolCalls = calls
  if (thoughts.length) out.thought = thoughts.join('\n\n')
  return withMeta(out, { ...base, layout })
}

function decodeResult(p: Part, i: number, field: string, data: Json): Message {
  if (typeof p.toolCallId !== 'string' || !p.toolCallId)
    fail(i, `${field}.toolCallId`, `expected a string, got ${describe(p.toolCallId)}`)
  const output = p.output as Json | undefined
  if (!output || typeof output.type !== 'string')
    return fail(i, `${field}.output`, `expected an output with a type, got ${describe(output)}`)
  const { type: _t, toolCallId, toolName, output: _o, ...rest } = p
  const common = {
    role: 'tool' as const,
    toolCallId: toolCallId as string,
    ...(typeof toolName === 'string' && { toolName }),
  }
  const extra = {
    ...data,
    ...rest,
    outputType: output.type,
    ...(output.providerOptions !== undefined && { outputOptions: output.providerOptions }),
  }
  switch (output.type) {
    case 'text':
      return withMeta({ ...common, content: String(output.value) }, extra)
    case 'error-text':
      return withMeta({ ...common, content: String(output.value), isError: true }, extra)
    case 'json':
      return withMeta({ ...common, content: JSON.stringify(output.value) }, extra)
    case 'error-json':
      return withMeta({ ...common, content: JSON.stringify(output.value), isError: true }, extra)
    default: {
      // `content` and newer variants: the text they carry is what is counted and shown.
      const value = output.value
      const text = Array.isArray(value)
        ? value
            .map((v) => (v && typeof v === 'object' && 'text' in v ? String((v as Json).text) : ''))
            .join('\n')
        : JSON.stringify(value ?? null)
      return withMeta({ ...common, content: text }, { ...extra, output, text })
    }
  }
}

/** Encodes messages as AI SDK `ModelMessage` JSON; what `fromAISDK` decoded comes back as it was. */
export function toAISDK(messages: readonly Message[]): ModelMessageJson[] {
  requireList(messages)
  return detach(encodeAISDK(messages))
}

function encodeAISDK(messages: readonly Message[]): ModelMessageJson[] {
  const out: ModelMessageJson[] = []
  let open: { turn: unknown; parts: Part[]; base: Json; pinned: boolean } | undefined
  const flush = () => {
    if (open) out.push({ role: 'tool', content: open.parts, ...withPinned(open.base, open.pinned) })
    open = undefined
  }
  for (const m of messages) {
    const data = meta(m)
    if (m.role === 'tool') {
      if (!open || (data.turn !== undefined && data.turn !== open.turn)) {
        flush()
        open = { turn: data.turn, parts: [], base: opts(data), pinned: false }
      }
      open.parts.push(data.other ? (data.other as Part) : encodeResult(m, data))
      if (m.pinned === true) open.pinned = true
      continue
    }
    flush()
    const base = withPinned(opts(data), m.pinned === true)
    if (m.role === 'system') out.push({ role: 'system', content: contentText(m.content), ...base })
    else if (m.role === 'user')
      out.push({
        role: 'user',
        content: typeof m.content === 'string' ? m.content : m.content.map(encodePart),
        ...base,
      })
    else out.push({ role: 'assistant', content: encodeAssistant(m, data), ...base })
  }
  flush()
  return out
}

function encodePart(p: ContentPart): Part {
  const base = opts(meta(p))
  if (p.type === 'text') return { type: 'text', text: p.text, ...base }
  if (p.type === 'image')
    return {
      type: 'image',
      image: p.data ?? p.url ?? '',
      ...(p.mediaType && { mediaType: p.mediaType }),
      ...base,
    }
  return {
    type: 'file',
    data: p.data ?? p.url ?? '',
    mediaType: p.mediaType ?? 'application/octet-stream',
    ...(p.filename && { filename: p.filename }),
    ...base,
  }
}

function encodeResult(m: Extract<Message, { role: 'tool' }>, data: Json): Part {
  const {
    outputType,
    outputOptions,
    output,
    text,
    turn: _turn,
    providerOptions: _p,
    ...rest
  } = data
  const text_ = contentText(m.content)
  let out: Json
  if (output && text === text_) out = output as Json
  else if ((outputType === 'json' || outputType === 'error-json') && isJson(text_)) {
    out = { type: m.isError ? 'error-json' : 'json', value: JSON.parse(text_) }
  } else out = { type: m.isError ? 'error-text' : 'text', value: text_ }
  if (outputOptions !== undefined && !output) out.providerOptions = outputOptions
  return {
    type: 'tool-result',
    toolCallId: m.toolCallId,
    toolName: m.toolName ?? '',
    output: out,
    ...rest,
  }
}

function isJson(s: string): boolean {
  try {
    JSON.parse(s)
    return true
  } catch {
    return false
  }
}

function encodeAssistant(m: AssistantMessage, data: Json): string | Part[] {
  if (typeof m.content === 'string' && !m.toolCalls?.length && !m.thought) return m.content
  const parts =
    typeof m.content === 'string'
      ? m.content
        ? [{ type: 'text', text: m.content } as Part]
        : []
      : (m.content ?? []).map(encodePart)
  const calls = (m.toolCalls ?? []).map(
    (c): Part => ({
      type: 'tool-call',
      toolCallId: c.id,
      toolName: c.name,
      input: parseArguments(c.arguments),
      ...meta(c),
    }),
  )
  const out: Part[] = []
  const layout = data.layout as Json[] | undefined
  for (const slot of layout ?? []) {
    if (slot.t === 'part') {
      const p = parts.shift()
      if (p) out.push(p)
    } else if (slot.t === 'call') {
      const c = calls.shift()
      if (c) out.push(c)
    } else if (slot.t === 'reasoning') {
      if (m.thought !== undefined) out.push(slot.part as Part)
    } else out.push(slot.part as Part)
  }
  if (!layout && m.thought) out.push({ type: 'reasoning', text: m.thought })
  return [...out, ...parts, ...calls]
}

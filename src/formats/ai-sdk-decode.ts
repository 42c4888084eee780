/** Reading AI SDK `ModelMessage` JSON into messages. */
import { InvalidInputError } from '../errors.js'
import { bytesToBase64 } from '../messages/base64.js'
import type { AISDKInput, ReaderInput } from '../messages/input.js'
import type { AssistantMessage, ContentPart, Message, ToolCall } from '../messages/message.js'
import { describeValue } from '../options-check.js'
import { describe, fail, isJson, isList, type Json, refuseDeep } from '../providers/codec-kit.js'
import { opts, pinnedOf, withMeta } from './ai-sdk-wire.js'

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
  const list = Array.isArray(input) ? input : isJson(input) ? input.messages : undefined
  if (!isList(list))
    throw new InvalidInputError('expected a list of ModelMessages', { field: 'messages' })
  const out: Message[] = []
  list.forEach((raw, i) => {
    if (!isJson(raw)) fail(i, 'message', `expected an object, got ${describe(raw)}`)
    const m = raw
    const base = opts(m)
    // Pinned in `providerOptions.contextWindow` (a key no provider reads): every message it becomes.
    const push = pinnedOf(m)
      ? (x: Message) => out.push({ ...x, pinned: true })
      : (x: Message) => out.push(x)
    switch (m.role) {
      case 'system':
        if (typeof m.content !== 'string')
          fail(i, 'content', `expected a string, got ${describe(m.content)}`)
        push(withMeta({ role: 'system', content: m.content }, base))
        return
      case 'user':
        push(withMeta({ role: 'user', content: userContent(m.content, i) }, base))
        return
      case 'assistant':
        push(decodeAssistant(m, i, base))
        return
      case 'tool': {
        if (!isList(m.content))
          fail(i, 'content', `expected a list of tool results, got ${describe(m.content)}`)
        m.content.forEach((p, k) => {
          if (!isJson(p) || p.type !== 'tool-result') {
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

function userContent(c: unknown, i: number): string | ContentPart[] {
  if (typeof c === 'string') return c
  if (!Array.isArray(c))
    return fail(i, 'content', `expected a string or a list of parts, got ${describe(c)}`)
  return c.map((p, k) => mediaPart(p, i, `content.${k}`))
}

function mediaPart(p: unknown, i: number, field: string): ContentPart {
  if (!isJson(p)) return fail(i, field, `expected a part, got ${describe(p)}`)
  if (p.type === 'text') {
    if (typeof p.text !== 'string')
      fail(i, `${field}.text`, `expected a string, got ${describe(p.text)}`)
    return withMeta({ type: 'text', text: p.text }, opts(p))
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
  if (!isList(m.content))
    return fail(i, 'content', `expected a string or a list of parts, got ${describe(m.content)}`)
  const parts: ContentPart[] = []
  const calls: ToolCall[] = []
  const thoughts: string[] = []
  const layout: Json[] = []
  m.content.forEach((p, k) => {
    if (isJson(p) && (p.type === 'text' || p.type === 'file')) {
      parts.push(mediaPart(p, i, `content.${k}`))
      layout.push({ t: 'part' })
    } else if (isJson(p) && p.type === 'reasoning') {
      if (typeof p.text !== 'string')
        fail(i, `content.${k}.text`, `expected a string, got ${describe(p.text)}`)
      thoughts.push(p.text)
      layout.push({ t: 'reasoning', part: p })
    } else if (isJson(p) && p.type === 'tool-call') {
      if (typeof p.toolCallId !== 'string' || !p.toolCallId)
        fail(i, `content.${k}.toolCallId`, `expected a string, got ${describe(p.toolCallId)}`)
      if (typeof p.toolName !== 'string')
        fail(i, `content.${k}.toolName`, `expected a string, got ${describe(p.toolName)}`)
      const { type: _t, toolCallId: _id, toolName: _n, input, ...rest } = p
      calls.push(
        withMeta(
          { id: p.toolCallId, name: p.toolName, arguments: JSON.stringify(input ?? {}) },
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

function decodeResult(p: Json, i: number, field: string, data: Json): Message {
  if (typeof p.toolCallId !== 'string' || !p.toolCallId)
    fail(i, `${field}.toolCallId`, `expected a string, got ${describe(p.toolCallId)}`)
  const output = p.output
  if (!isJson(output) || typeof output.type !== 'string')
    return fail(i, `${field}.output`, `expected an output with a type, got ${describe(output)}`)
  const { type: _t, toolCallId: _id, toolName, output: _o, ...rest } = p
  const common = {
    role: 'tool' as const,
    toolCallId: p.toolCallId,
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
        ? value.map((v) => (isJson(v) && 'text' in v ? String(v.text) : '')).join('\n')
        : JSON.stringify(value ?? null)
      return withMeta({ ...common, content: text }, { ...extra, output, text })
    }
  }
}

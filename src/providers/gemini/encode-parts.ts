/** Writing a message's parts, calls and tool results as Gemini parts. */
import type {
  AssistantMessage,
  ContentPart,
  Message,
  TextPart,
  ToolCall,
  ToolMessage,
} from '../../messages/message.js'
import { fieldsOf, isList, type Json, jsonField, parseArguments } from '../codec-kit.js'
import { isSlot, meta } from './wire.js'

export function encodePlain(content: Message['content']): Json[] {
  if (content === undefined) return []
  if (typeof content === 'string') return [{ text: content }]
  return content.map(encodePart)
}

export function encodePart(p: ContentPart): Json {
  const data = meta(p)
  const whole = jsonField(data, 'part')
  if (whole) return whole
  const { blobExtra, fileExtra, noMime, ...extra } = data
  if (p.type === 'text') return { text: p.text, ...extra }
  if (p.data !== undefined)
    return {
      inlineData: {
        mimeType: p.mediaType ?? (p.type === 'image' ? 'image/png' : 'application/octet-stream'),
        data: p.data,
        ...fieldsOf(blobExtra),
      },
      ...extra,
    }
  if (p.url?.startsWith('data:')) {
    const comma = p.url.indexOf(',')
    const mime = /^data:([^;,]+)/.exec(p.url)?.[1] ?? 'image/png'
    return { inlineData: { mimeType: mime, data: p.url.slice(comma + 1) }, ...extra }
  }
  return {
    fileData: {
      ...(!noMime && {
        mimeType: p.mediaType ?? (p.type === 'image' ? 'image/png' : 'application/pdf'),
      }),
      fileUri: p.url ?? '',
      ...fieldsOf(fileExtra),
    },
    ...extra,
  }
}

function encodeCall(c: ToolCall): Json {
  const data = meta(c)
  const fc: Json = { name: c.name }
  if (!data.idAbsent) fc.id = c.id
  const args = parseArguments(c.arguments, asObject)
  if (!(data.argsAbsent && args && typeof args === 'object' && Object.keys(args).length === 0))
    fc.args = args
  // Field order as the API writes it: id, name, args, then the rest.
  const ordered: Json = {}
  if (fc.id !== undefined) ordered.id = fc.id
  ordered.name = fc.name
  if (fc.args !== undefined) ordered.args = fc.args
  // Spread, not assign: a kept key such as `__proto__` stays data, never a prototype.
  return {
    functionCall: { ...ordered, ...fieldsOf(data.callExtra) },
    ...fieldsOf(data.partExtra),
  }
}

export function encodeModel(m: AssistantMessage): Json[] {
  const data = meta(m)
  const parts: ContentPart[] =
    typeof m.content === 'string'
      ? m.content
        ? [{ type: 'text', text: m.content }]
        : []
      : [...(m.content ?? [])]
  const calls = [...(m.toolCalls ?? [])]
  const out: Json[] = []
  for (const slot of isList(data.layout) ? data.layout.filter(isSlot) : []) {
    if (slot.t === 'thought') {
      // A dropped thought is not sent; a kept one goes back as it came, signature and all,
      // but for an empty one without a signature, which Gemini refuses and which says nothing.
      const empty = !slot.part.text && slot.part.thoughtSignature === undefined
      if (m.thought !== undefined && !empty) out.push(slot.part)
    } else if (slot.t === 'call') {
      const c = calls.shift()
      if (c) out.push(encodeCall(c))
    } else {
      const p = parts.shift()
      if (p) out.push(encodePart(p))
    }
  }
  for (const p of parts) out.push(encodePart(p))
  for (const c of calls) out.push(encodeCall(c))
  return out
}

export function encodeResponse(
  m: ToolMessage,
  call: { name: string; idAbsent: boolean } | undefined,
): Json {
  const data = meta(m)
  // Text goes in `response`; media (an image a tool returned) in the response's own `parts`.
  const content = typeof m.content === 'string' ? [] : m.content
  const media = content.filter((p) => p.type !== 'text' || meta(p).part !== undefined)
  const text =
    typeof m.content === 'string'
      ? m.content
      : content
          .filter((p): p is TextPart => p.type === 'text' && meta(p).part === undefined)
          .map((p) => p.text)
          .join('\n')
  let response: unknown
  if (data.form === 'json') {
    try {
      response = JSON.parse(text)
    } catch {
      response = { output: text }
    }
    if (!response || typeof response !== 'object' || Array.isArray(response))
      response = { output: response }
  } else if (data.form === 'error' || (data.form === undefined && m.isError))
    response = { error: text }
  else response = { output: text }
  const fr: Json = {}
  const idAbsent = data.form !== undefined ? data.idAbsent : call?.idAbsent
  if (!idAbsent) fr.id = m.toolCallId
  fr.name = m.toolName ?? call?.name ?? ''
  if (!data.responseAbsent) fr.response = response
  if (media.length) fr.parts = media.map(encodePart)
  return {
    functionResponse: { ...fr, ...fieldsOf(data.responseExtra) },
    ...fieldsOf(data.partExtra),
  }
}

/** Gemini's `args` is an object: anything else is wrapped. */
function asObject(v: unknown): unknown {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : { value: v }
}

/** Writing messages as AI SDK `ModelMessage` JSON. */
import {
  type AssistantMessage,
  type ContentPart,
  contentText,
  type Message,
} from '../messages/message.js'
import {
  detach,
  fieldsOf,
  isJson,
  isList,
  type Json,
  parseArguments,
  requireList,
} from '../providers/codec-kit.js'
import { isPart, type ModelMessageJson, meta, opts, type Part, withPinned } from './ai-sdk-wire.js'

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
  if (isJson(output) && text === text_) out = output
  else if ((outputType === 'json' || outputType === 'error-json') && parsesAsJson(text_)) {
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

function parsesAsJson(s: string): boolean {
  try {
    JSON.parse(s)
    return true
  } catch {
    return false
  }
}

function encodeAssistant(m: AssistantMessage, data: Json): string | Part[] {
  if (typeof m.content === 'string' && !m.toolCalls?.length && !m.thought) return m.content
  const parts: Part[] =
    typeof m.content === 'string'
      ? m.content
        ? [{ type: 'text', text: m.content }]
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
  const layout = isList(data.layout) ? data.layout : undefined
  for (const s of layout ?? []) {
    const slot = fieldsOf(s)
    if (slot.t === 'part') {
      const p = parts.shift()
      if (p) out.push(p)
    } else if (slot.t === 'call') {
      const c = calls.shift()
      if (c) out.push(c)
    } else if (slot.t === 'reasoning') {
      if (m.thought !== undefined && isPart(slot.part)) out.push(slot.part)
    } else out.push(slot.part as Part)
  }
  if (!layout && m.thought) out.push({ type: 'reasoning', text: m.thought })
  return [...out, ...parts, ...calls]
}

/** Writing messages as OpenAI chat JSON. */
import type { ContentPart, Message, ToolCall } from '../../messages/message.js'
import { detach, jsonField, type Loss, requireList } from '../codec-kit.js'
import { type Json, type Meta, metaOf, type OpenAIChatMessage } from './wire.js'

type Out = Record<string, unknown> & { role: string }

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
      const legacy = calls[calls.length - 1]
      if (meta.legacyFunctionCall && legacy) {
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
  for (const [k, v] of Object.entries(jsonField(meta, 'extra') ?? {})) {
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
    (Array.isArray(parts) &&
      parts.length === 0 &&
      (assistant || (Array.isArray(content) && content.length > 0)))
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

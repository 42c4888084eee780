/** Writing messages as a Gemini request. */
import type { Message } from '../../messages/message.js'
import { requireOptions } from '../../options-check.js'
import { detach, fieldsOf, type Json, type Loss, requireList, stringField } from '../codec-kit.js'
import { encodeModel, encodePart, encodePlain, encodeResponse } from './encode-parts.js'
import { type GeminiContent, type GeminiRequest, meta } from './wire.js'

/**
 * Encodes messages as a Gemini request: the leading system messages as `systemInstruction`,
 * the rest as `contents`. Tool results go in a user turn of their own, right after the turn
 * of their calls; signatures go back byte for byte on the parts that carried them. Messages
 * decoded by `fromGemini` come back as they were.
 */
export function toGemini(messages: readonly Message[]): GeminiRequest {
  const { output } = encodeGemini(messages)
  return output
}

/**
 * `toGemini` with what could not be carried, by output turn. A decoded request's system
 * instruction goes back where it was (`systemInstruction`, `system_instruction` or
 * `config`); `bare` writes every message into `contents` (for a bare list).
 */
export function encodeGemini(
  messages: readonly Message[],
  options: { bare?: boolean } = {},
): {
  output: GeminiRequest & { config?: Json }
  lost: Loss[]
} {
  requireList(messages)
  requireOptions(options, 'encodeGemini', ['bare'])
  const lost: Loss[] = []
  let k = 0
  const lead: Message[] = []
  if (!options.bare) for (let m = messages[k]; m?.role === 'system'; m = messages[++k]) lead.push(m)
  const contents: Json[] = []
  let open: Json[] | undefined
  const names = new Map<string, { name: string; idAbsent: boolean }>()
  for (const [n, m] of messages.entries()) {
    if (n < k) continue
    const data = meta(m)
    if (m.role === 'tool') {
      if (!open) {
        open = []
        contents.push({ role: 'user', parts: open, ...fieldsOf(data.extra) })
      }
      open.push(encodeResponse(m, names.get(m.toolCallId)))
      continue
    }
    open = undefined
    if (m.role === 'assistant') {
      for (const c of m.toolCalls ?? [])
        names.set(c.id, { name: c.name, idAbsent: !!meta(c).idAbsent })
      if (m.thought !== undefined && !data.layout)
        lost.push({
          index: contents.length,
          what: `reasoning of message ${n} (no thought part to send it in)`,
        })
      const parts = encodeModel(m)
      // Gemini rejects a turn without parts: nothing of this message can be sent.
      if (parts.length === 0) lost.push({ index: contents.length, what: `empty message ${n}` })
      else contents.push(turnOf('model', data, parts))
      continue
    }
    if (m.role === 'system') {
      lost.push({ index: contents.length, what: `system message ${n} sent as user text` })
      // Its images and files go in the same turn, as a user's would.
      const media = typeof m.content === 'string' ? [] : m.content.filter((p) => p.type !== 'text')
      contents.push({
        role: 'user',
        parts: [{ text: `[system] ${textOf(m.content)}` }, ...media.map(encodePart)],
      })
      continue
    }
    const parts = encodePlain(m.content)
    if (parts.length === 0) lost.push({ index: contents.length, what: `empty message ${n}` })
    else contents.push(turnOf('user', data, parts))
  }
  const output: GeminiRequest & { config?: Json; system_instruction?: unknown } = {
    contents: contents as GeminiContent[],
  }
  const [first] = lead
  if (first) {
    const data = meta(first)
    const where = stringField(data, 'system') ?? 'systemInstruction'
    let sys: unknown
    if (lead.length === 1 && data.form === 'string' && typeof first.content === 'string')
      sys = first.content
    else if (
      lead.length === 1 &&
      data.form === 'part' &&
      Array.isArray(first.content) &&
      first.content.length === 1
    )
      sys = encodePlain(first.content)[0]
    else
      sys = {
        ...fieldsOf(data.extra),
        parts: lead.flatMap((m) => encodePlain(m.content)),
      }
    if (where === 'config') output.config = { systemInstruction: sys }
    else if (where === 'system_instruction') output.system_instruction = sys
    else output.systemInstruction = sys as GeminiContent
  }
  return { output: detach(output), lost }
}

function textOf(content: Message['content']): string {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  return content
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('\n')
}

function turnOf(role: 'user' | 'model', data: Json, parts: Json[]): Json {
  return {
    ...(!data.noRole && { role }),
    parts,
    ...fieldsOf(data.extra),
  }
}

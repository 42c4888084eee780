/** Writing an assistant message back as the model's items (reasoning only where the API takes it). */

import type { AssistantMessage, Message, TextPart, ToolCall } from '../../messages/message.js'
import { fieldsOf, isJson, isList, type Json, jsonField, type Loss } from '../codec-kit.js'
import type { ToOpenAIResponsesOptions } from '../types.js'
import { isSlot, meta, SERVER_ITEM } from './wire.js'

function textParts(content: Message['content']): TextPart[] {
  if (content === undefined) return []
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : []
  return content.filter((p): p is TextPart => p.type === 'text')
}

function outputPart(p: TextPart): Json {
  const data = meta(p)
  const whole = jsonField(data, 'part')
  if (whole) return whole
  const { type, ...extra } = data
  if (type === 'refusal') return { type: 'refusal', refusal: p.text, ...extra }
  return {
    type: typeof type === 'string' ? type : 'output_text',
    text: p.text,
    annotations: [],
    ...extra,
  }
}

export function encodeAssistant(
  m: AssistantMessage,
  options: ToOpenAIResponsesOptions,
  seen: Set<string>,
  lost: Loss[],
  index: number,
): Json[] {
  const data = meta(m)
  const parts = textParts(m.content)
  const calls = [...(m.toolCalls ?? [])]
  const layout = isList(data.layout) ? data.layout.filter(isSlot) : []
  const slots: (Json | 'reasoning-dropped')[] = []
  const takeCall = (c: ToolCall): Json => {
    const cm = meta(c)
    const item = jsonField(cm, 'item')
    if (item) return { ...item, call_id: c.id }
    return cm.custom
      ? {
          type: 'custom_tool_call',
          call_id: c.id,
          name: c.name,
          input: c.arguments,
          ...fieldsOf(cm.extra),
        }
      : {
          type: 'function_call',
          call_id: c.id,
          name: c.name,
          arguments: c.arguments,
          ...fieldsOf(cm.extra),
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
      const [p] = at >= 0 ? parts.splice(at, 1) : []
      const item = p && jsonField(meta(p), 'item')
      if (item) slots.push(item)
    } else {
      messagesSeen++
      const last = messagesSeen === messageSlots
      let mine: TextPart[] = []
      const take = last ? parts.length : Math.min(slot.n, parts.length)
      // Opaque items sit in the parts in their own slots: a message takes only text of its own.
      for (let p = parts[0]; p && mine.length < take && !meta(p).item; p = parts[0]) {
        mine.push(p)
        parts.shift()
      }
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
          ? content
              .map((p) => (isJson(p) ? (p.type === 'refusal' ? p.refusal : p.text) : undefined))
              .join('')
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

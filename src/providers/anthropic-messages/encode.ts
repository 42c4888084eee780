/** Writing messages as a Messages API request. */
import { base64ToText } from '../../messages/base64.js'
import type { AssistantMessage, ContentPart, Message } from '../../messages/message.js'
import { detach, isJson, isList, type Loss, parseArguments, requireList } from '../codec-kit.js'
import { type AnthropicRequest, type Block, isBlock, meta } from './wire.js'

/**
 * Encodes messages as an Anthropic request. Tool results and the user message after them
 * share one user turn; messages decoded by `fromAnthropic` come back as they were. What
 * cannot be carried is listed in `lost` (a system message after the start becomes user text).
 */
export function toAnthropic(messages: readonly Message[]): AnthropicRequest & { lost: Loss[] } {
  requireList(messages)
  return detach(encodeAnthropic(messages))
}

function encodeAnthropic(messages: readonly Message[]): AnthropicRequest & { lost: Loss[] } {
  const lost: Loss[] = []
  let k = 0
  let system: string | Block[] | undefined
  const lead: Message[] = []
  for (let m = messages[k]; m?.role === 'system'; m = messages[++k]) lead.push(m)
  if (lead.length === 1 && typeof lead[0]?.content === 'string' && meta(lead[0]).form !== 'blocks')
    system = lead[0].content
  else if (lead.length) {
    // `system` takes only text blocks: an image or file there is not sent (`repair` takes it out).
    system = lead.flatMap((m, i) => {
      if (typeof m.content === 'string') return [{ type: 'text', text: m.content }]
      const parts = m.content ?? []
      for (const p of parts)
        if (p.type !== 'text')
          lost.push({
            index: i,
            what: `${p.type} part of system message ${i} (Anthropic's system prompt takes only text blocks)`,
          })
      return parts.filter((p) => p.type === 'text').map(encodePart)
    })
    if (system.length === 0) system = undefined
  }
  const turns: { role: 'user' | 'assistant'; content: string | Block[] }[] = []
  let open:
    | { role: 'user' | 'assistant'; content: Block[]; turn: unknown; string?: string }
    | undefined
  const flush = () => {
    if (!open) return
    turns.push({ role: open.role, content: open.string ?? open.content })
    open = undefined
  }
  for (const [n, m] of messages.entries()) {
    if (n < k) continue
    const data = meta(m)
    if (m.role === 'assistant') {
      flush()
      if (m.thought && !data.layout)
        lost.push({
          index: turns.length,
          what: `reasoning of message ${n} (no signature to send it back with)`,
        })
      turns.push({ role: 'assistant', content: encodeAssistant(m) })
      continue
    }
    if (m.role === 'system')
      lost.push({ index: turns.length, what: `system message ${n} sent as user text` })
    const sameTurn = open?.role === 'user' && (data.turn === undefined || data.turn === open.turn)
    if (!sameTurn || (open && open.string !== undefined)) flush()
    if (!open) open = { role: 'user', content: [], turn: data.turn }
    if (m.role === 'tool') {
      open.content.push(encodeResult(m))
    } else if (
      typeof m.content === 'string' &&
      open.content.length === 0 &&
      m.role === 'user' &&
      !data.order
    ) {
      open.string = m.content
    } else {
      // A later system message goes as user text, with its images and files beside it.
      const parts =
        m.role === 'system'
          ? [
              { type: 'text', text: `[system] ${textOf(m.content)}` },
              ...(typeof m.content === 'string' ? [] : m.content)
                .filter((p) => p.type !== 'text')
                .map(encodePart),
            ]
          : typeof m.content === 'string'
            ? m.content
              ? [{ type: 'text', text: m.content }]
              : []
            : m.content.map(encodePart)
      open.content.push(...parts)
      if (typeof data.order === 'string') open.content = reorder(open.content, data.order)
    }
  }
  flush()
  // The blocks are built as JSON; their shapes are the SDK's (see the types above).
  return {
    ...(system !== undefined && { system: system as AnthropicRequest['system'] }),
    messages: turns as AnthropicRequest['messages'],
    lost,
  }
}

/** The text parts of a content, joined by line breaks. */
function textOf(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content
  return content
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('\n')
}

/** Puts results and other blocks back in the order the source had them. */
function reorder(blocks: Block[], order: string): Block[] {
  const results = blocks.filter((b) => b.type === 'tool_result')
  const others = blocks.filter((b) => b.type !== 'tool_result')
  return [...order]
    .map((c) => (c === 'r' ? results.shift() : others.shift()))
    .filter((b): b is Block => b !== undefined)
}

function encodePart(p: ContentPart): Block {
  const data = meta(p)
  const { sourceType, textSource, source, block, ...rest } = data
  if (p.type === 'text') {
    // A carried block goes back whole while its text is what was counted; a transform that
    // changed the text (cleared, cut) sends the text it counted instead.
    if (isBlock(block) && p.text === JSON.stringify(block)) return block
    return { type: 'text', text: p.text, ...rest }
  }
  if (p.type === 'image') {
    const src =
      p.url && !p.data
        ? { type: 'url', url: p.url }
        : { type: 'base64', media_type: p.mediaType ?? 'image/png', data: p.data ?? dataOf(p.url) }
    return { type: 'image', source: src, ...rest }
  }
  if (isJson(source)) return { type: 'document', source, ...rest }
  if (textSource)
    return {
      type: 'document',
      source: {
        type: 'text',
        media_type: p.mediaType,
        data: base64ToText(p.data ?? ''),
      },
      ...rest,
    }
  if (p.url && !p.data) return { type: 'document', source: { type: 'url', url: p.url }, ...rest }
  return {
    type: 'document',
    source: {
      type: sourceType ?? 'base64',
      media_type: p.mediaType ?? 'application/pdf',
      data: p.data ?? '',
    },
    ...rest,
  }
}

function dataOf(url: string | undefined): string {
  return url?.startsWith('data:') ? url.slice(url.indexOf(',') + 1) : ''
}

function encodeResult(m: Extract<Message, { role: 'tool' }>): Block {
  const data = meta(m)
  const { turn: _turn, isErrorField, contentAbsent, ...rest } = data
  const block: Block = { type: 'tool_result', tool_use_id: m.toolCallId, ...rest }
  if (!contentAbsent)
    block.content = typeof m.content === 'string' ? m.content : m.content.map(encodePart)
  if (isErrorField !== undefined) block.is_error = m.isError ?? false
  else if (m.isError) block.is_error = true
  return block
}

function encodeAssistant(m: AssistantMessage): string | Block[] {
  const data = meta(m)
  if (typeof m.content === 'string' && !m.toolCalls?.length && !data.layout && !m.thought)
    return m.content
  const texts: Block[] =
    typeof m.content === 'string'
      ? m.content
        ? [{ type: 'text', text: m.content }]
        : []
      : (m.content ?? []).map(encodePart)
  const calls = (m.toolCalls ?? []).map(
    (c): Block => ({
      type: 'tool_use',
      id: c.id,
      name: c.name,
      input: parseArguments(c.arguments, asObject),
      ...meta(c),
    }),
  )
  const out: Block[] = []
  for (const slot of isList(data.layout) ? data.layout : []) {
    if (!isJson(slot)) continue
    if (slot.t === 'text') {
      const t = texts.shift()
      if (t) out.push(t)
    } else if (slot.t === 'tool_use') {
      const c = calls.shift()
      if (c) out.push(c)
    } else if (slot.t === 'thinking') {
      // Dropped thoughts are not sent; kept ones go back with their signature.
      if (m.thought !== undefined && isBlock(slot.block)) out.push(slot.block)
    } else if (isBlock(slot.block)) out.push(slot.block)
  }
  return [...out, ...texts, ...calls]
}

/** Anthropic's `input` is an object: anything else is wrapped. */
function asObject(v: unknown): unknown {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : { value: v }
}

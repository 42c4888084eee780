import { InvalidInputError } from '../../errors.js'
import { base64ToText, textToBase64 } from '../../messages/base64.js'
import type { AnthropicInput, ReaderInput } from '../../messages/input.js'
import type { AssistantMessage, ContentPart, Message, ToolCall } from '../../messages/message.js'
import { describeValue } from '../../options-check.js'
import {
  describe,
  detach,
  fail,
  type Json,
  type Loss,
  metadataFor,
  parseArguments,
  refuseDeep,
  requireList,
} from '../codec-kit.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const ANTHROPIC = 'anthropic'

type Block = Json & { type: string }

// Structural copies of the Anthropic SDK's block parameter types: assignable to
// `MessageParam` and `TextBlockParam` without importing the SDK.
export interface AnthropicCacheControl {
  type: 'ephemeral'
  ttl?: '5m' | '1h'
}
export interface AnthropicTextBlock {
  type: 'text'
  text: string
  cache_control?: AnthropicCacheControl | null
}
export interface AnthropicImageBlock {
  type: 'image'
  source:
    | {
        type: 'base64'
        media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'
        data: string
      }
    | { type: 'url'; url: string }
  cache_control?: AnthropicCacheControl | null
}
export interface AnthropicDocumentBlock {
  type: 'document'
  source:
    | { type: 'base64'; media_type: 'application/pdf'; data: string }
    | { type: 'text'; media_type: 'text/plain'; data: string }
    | { type: 'url'; url: string }
  cache_control?: AnthropicCacheControl | null
  title?: string | null
  context?: string | null
}
export interface AnthropicToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
  cache_control?: AnthropicCacheControl | null
}
export interface AnthropicToolResultBlock {
  type: 'tool_result'
  tool_use_id: string
  content?: string | (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[]
  is_error?: boolean
  cache_control?: AnthropicCacheControl | null
}
export interface AnthropicThinkingBlock {
  type: 'thinking'
  thinking: string
  signature: string
}
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking'
  data: string
}
/** A content block; other kinds a turn came with (server tool blocks) are carried as they were. */
export type AnthropicBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock

export interface AnthropicRequest {
  system?: string | AnthropicTextBlock[]
  messages: (
    | { role: 'user'; content: string | AnthropicBlock[] }
    | { role: 'assistant'; content: string | AnthropicBlock[] }
  )[]
}

const { meta, withMeta } = metadataFor(ANTHROPIC)

/**
 * Decodes Anthropic Messages (`{ system, messages }`, or a bare message list). A user turn
 * holding `tool_result` blocks becomes one tool message per result, then a user message for
 * its other blocks; thinking and redacted thinking are kept byte for byte (the text in
 * `thought`, the signature in metadata). Throws `InvalidInputError` naming index and field.
 */
export function fromAnthropic<const T>(input: ReaderInput<T, AnthropicInput>): Message[] {
  return readAnthropic(input)
}

/** `fromAnthropic` for a value of any type (a caller generic over the SDK's message type). */
export function readAnthropic(input: unknown): Message[] {
  refuseDeep(input)
  const req = (Array.isArray(input) ? { messages: input } : input) as Json
  if (!req || typeof req !== 'object' || !Array.isArray(req.messages)) {
    throw new InvalidInputError('expected an object with a "messages" list', { field: 'messages' })
  }
  const out: Message[] = []
  if (req.system !== undefined) {
    if (typeof req.system === 'string') out.push({ role: 'system', content: req.system })
    else if (Array.isArray(req.system)) {
      out.push(
        withMeta(
          {
            role: 'system',
            content: (req.system as Block[]).map((b, k) => textPart(b, -1, `system.${k}`)),
          },
          { form: 'blocks' },
        ),
      )
    } else
      fail(-1, 'system', `expected a string or a list of text blocks, got ${describe(req.system)}`)
  }
  const names = new Map<string, string>()
  ;(req.messages as unknown[]).forEach((raw, i) => {
    if (!raw || typeof raw !== 'object')
      fail(i, 'message', `expected an object, got ${describe(raw)}`)
    const m = raw as Json
    if (m.role !== 'user' && m.role !== 'assistant')
      fail(i, 'role', `expected "user" or "assistant", got ${describeValue(m.role)}`)
    const from = out.length
    if (typeof m.content === 'string') {
      out.push(withMeta({ role: m.role as 'user', content: m.content }, { turn: i }))
    } else {
      if (!Array.isArray(m.content))
        fail(i, 'content', `expected a string or a list of blocks, got ${describe(m.content)}`)
      const blocks = m.content as unknown[]
      blocks.forEach((b, k) => {
        if (!b || typeof b !== 'object' || typeof (b as Json).type !== 'string')
          fail(i, `content.${k}`, `expected a block with a type, got ${describe(b)}`)
      })
      if (m.role === 'assistant') out.push(decodeAssistant(blocks as Block[], i, names))
      else out.push(...decodeUser(blocks as Block[], i, names))
    }
    // `pinned: true` is the library's (sent whenever the system prompt is), never the wire's:
    // every message the turn became is pinned.
    if (m.pinned === true)
      for (let k = from; k < out.length; k++) out[k] = { ...(out[k] as Message), pinned: true }
  })
  return out
}

function textPart(b: unknown, i: number, field: string): ContentPart {
  const block = b as Block
  if (block?.type !== 'text' || typeof block.text !== 'string')
    fail(i, field, 'expected a text block')
  const { type: _t, text, ...rest } = block
  return withMeta({ type: 'text', text: text as string }, rest)
}

/** Block types a user turn or a tool result holds as media (a source) or text. */
const MEDIA_BLOCKS = new Set(['text', 'image', 'document'])

function mediaPart(b: Block, i: number, field: string): ContentPart {
  if (b.type === 'text') return textPart(b, i, field)
  // Other blocks (search results, container uploads, blocks of later API versions) travel as
  // they came: a text part holding their JSON, which is what is counted and, unchanged, what
  // goes back as the block itself.
  if (typeof b.type === 'string' && !MEDIA_BLOCKS.has(b.type))
    return withMeta({ type: 'text', text: JSON.stringify(b) }, { block: b })
  const source = b.source as Json | undefined
  if (!source || typeof source !== 'object')
    return fail(i, `${field}.source`, `expected an object, got ${describe(source)}`)
  const { type: _t, source: _s, ...rest } = b
  const extra: Json = { ...rest, sourceType: source.type }
  if (b.type === 'image') {
    const part: ContentPart =
      source.type === 'url'
        ? { type: 'image', url: String(source.url) }
        : { type: 'image', data: String(source.data), mediaType: String(source.media_type) }
    return withMeta(part, extra)
  }
  if (b.type === 'document') {
    if (source.type === 'text')
      return withMeta(
        {
          type: 'file',
          data: textToBase64(String(source.data)),
          mediaType: String(source.media_type ?? 'text/plain'),
        },
        { ...extra, textSource: true },
      )
    if (source.type === 'url')
      return withMeta(
        { type: 'file', url: String(source.url), mediaType: 'application/pdf' },
        extra,
      )
    if (source.type === 'base64')
      return withMeta(
        { type: 'file', data: String(source.data), mediaType: String(source.media_type) },
        extra,
      )
    return withMeta({ type: 'file', mediaType: 'application/octet-stream' }, { ...extra, source })
  }
  return fail(
    i,
    `${field}.type`,
    `unsupported block type ${describeValue(b.type)} in a user message`,
  )
}

function decodeUser(blocks: Block[], i: number, names: Map<string, string>): Message[] {
  const out: Message[] = []
  const parts: ContentPart[] = []
  const order: string[] = []
  blocks.forEach((b, k) => {
    if (b.type === 'tool_result') {
      const id = b.tool_use_id
      if (typeof id !== 'string' || !id)
        fail(i, `content.${k}.tool_use_id`, `expected a string, got ${describe(id)}`)
      const { type: _t, tool_use_id: _id, content, is_error, ...rest } = b
      const data: Json = { ...rest, turn: i }
      if (is_error !== undefined) data.isErrorField = is_error
      let c: string | ContentPart[] = ''
      if (content === undefined) data.contentAbsent = true
      else if (typeof content === 'string') c = content
      else if (Array.isArray(content))
        c = content.map((p, q) => mediaPart(p as Block, i, `content.${k}.content.${q}`))
      else fail(i, `content.${k}.content`, `expected a string or a list, got ${describe(content)}`)
      const toolName = names.get(id as string)
      out.push(
        withMeta(
          {
            role: 'tool',
            toolCallId: id as string,
            content: c,
            ...(toolName && { toolName }),
            ...(is_error === true && { isError: true }),
          },
          data,
        ),
      )
      order.push('r')
    } else {
      parts.push(mediaPart(b, i, `content.${k}`))
      order.push('p')
    }
  })
  if (parts.length || out.length === 0) {
    out.push(
      withMeta(
        { role: 'user', content: parts },
        {
          turn: i,
          ...(order.join('') !== [...order].sort().reverse().join('') && { order: order.join('') }),
        },
      ),
    )
  }
  return out
}

function decodeAssistant(blocks: Block[], i: number, names: Map<string, string>): AssistantMessage {
  const parts: ContentPart[] = []
  const calls: ToolCall[] = []
  const layout: Json[] = []
  const thoughts: string[] = []
  blocks.forEach((b, k) => {
    switch (b.type) {
      case 'text':
        parts.push(textPart(b, i, `content.${k}`))
        layout.push({ t: 'text' })
        break
      case 'tool_use': {
        const { type: _t, id, name, input, ...rest } = b
        if (typeof id !== 'string' || !id)
          fail(i, `content.${k}.id`, `expected a string, got ${describe(id)}`)
        if (typeof name !== 'string')
          fail(i, `content.${k}.name`, `expected a string, got ${describe(name)}`)
        if (!input || typeof input !== 'object')
          fail(i, `content.${k}.input`, `expected an object, got ${describe(input)}`)
        names.set(id as string, name as string)
        calls.push(
          withMeta(
            { id: id as string, name: name as string, arguments: JSON.stringify(input) },
            rest,
          ),
        )
        layout.push({ t: 'tool_use' })
        break
      }
      case 'thinking':
        if (typeof b.thinking !== 'string')
          fail(i, `content.${k}.thinking`, `expected a string, got ${describe(b.thinking)}`)
        thoughts.push(b.thinking as string)
        layout.push({ t: 'thinking', block: b })
        break
      default:
        // redacted_thinking and server tool blocks: kept as they are, in place.
        layout.push({ t: 'other', block: b })
    }
  })
  const out: AssistantMessage = { role: 'assistant', content: parts }
  if (calls.length) out.toolCalls = calls
  if (thoughts.length) out.thought = thoughts.join('\n\n')
  // Server tool blocks (web search, code execution and their results) go out with the turn
  // as they came: counted as the JSON they are sent as.
  const others = layout.filter((l) => l.t === 'other').map((l) => l.block)
  return withMeta(out, {
    turn: i,
    layout,
    ...(others.length > 0 && { carried: JSON.stringify(others) }),
  })
}

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
  while (k < messages.length && messages[k]?.role === 'system') lead.push(messages[k++] as Message)
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
  for (; k < messages.length; k++) {
    const m = messages[k] as Message
    const data = meta(m)
    if (m.role === 'assistant') {
      flush()
      if (m.thought && !data.layout)
        lost.push({
          index: turns.length,
          what: `reasoning of message ${k} (no signature to send it back with)`,
        })
      turns.push({ role: 'assistant', content: encodeAssistant(m) })
      continue
    }
    if (m.role === 'system')
      lost.push({ index: turns.length, what: `system message ${k} sent as user text` })
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
    if (block && p.text === JSON.stringify(block)) return block as Block
    return { type: 'text', text: p.text, ...rest }
  }
  if (p.type === 'image') {
    const src =
      p.url && !p.data
        ? { type: 'url', url: p.url }
        : { type: 'base64', media_type: p.mediaType ?? 'image/png', data: p.data ?? dataOf(p.url) }
    return { type: 'image', source: src, ...rest }
  }
  if (source) return { type: 'document', source: source as Json, ...rest }
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
  for (const slot of (data.layout as Json[] | undefined) ?? []) {
    if (slot.t === 'text') {
      const t = texts.shift()
      if (t) out.push(t)
    } else if (slot.t === 'tool_use') {
      const c = calls.shift()
      if (c) out.push(c)
    } else if (slot.t === 'thinking') {
      // Dropped thoughts are not sent; kept ones go back with their signature.
      if (m.thought !== undefined) out.push(slot.block as Block)
    } else out.push(slot.block as Block)
  }
  return [...out, ...texts, ...calls]
}

/** Anthropic's `input` is an object: anything else is wrapped. */
function asObject(v: unknown): unknown {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : { value: v }
}

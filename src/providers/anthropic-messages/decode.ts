/** Reading a Messages API request or message list into messages. */
import { InvalidInputError } from '../../errors.js'
import { textToBase64 } from '../../messages/base64.js'
import type { AnthropicInput, ReaderInput } from '../../messages/input.js'
import type { AssistantMessage, ContentPart, Message, ToolCall } from '../../messages/message.js'
import { describeValue } from '../../options-check.js'
import { describe, fail, isJson, isList, type Json, refuseDeep } from '../codec-kit.js'
import { type Block, isBlock, withMeta } from './wire.js'

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
  const req = Array.isArray(input) ? { messages: input } : input
  if (!isJson(req) || !isList(req.messages)) {
    throw new InvalidInputError('expected an object with a "messages" list', { field: 'messages' })
  }
  const out: Message[] = []
  if (req.system !== undefined) {
    if (typeof req.system === 'string') out.push({ role: 'system', content: req.system })
    else if (isList(req.system)) {
      out.push(
        withMeta(
          {
            role: 'system',
            content: req.system.map((b, k) => textPart(b, -1, `system.${k}`)),
          },
          { form: 'blocks' },
        ),
      )
    } else
      fail(-1, 'system', `expected a string or a list of text blocks, got ${describe(req.system)}`)
  }
  const names = new Map<string, string>()
  req.messages.forEach((m, i) => {
    if (!isJson(m)) fail(i, 'message', `expected an object, got ${describe(m)}`)
    if (m.role !== 'user' && m.role !== 'assistant')
      fail(i, 'role', `expected "user" or "assistant", got ${describeValue(m.role)}`)
    const from = out.length
    if (typeof m.content === 'string') {
      out.push(withMeta({ role: m.role, content: m.content }, { turn: i }))
    } else {
      if (!isList(m.content))
        fail(i, 'content', `expected a string or a list of blocks, got ${describe(m.content)}`)
      const blocks = m.content.map((b, k) => {
        if (!isBlock(b)) fail(i, `content.${k}`, `expected a block with a type, got ${describe(b)}`)
        return b
      })
      if (m.role === 'assistant') out.push(decodeAssistant(blocks, i, names))
      else out.push(...decodeUser(blocks, i, names))
    }
    // `pinned: true` is the library's (sent whenever the system prompt is), never the wire's:
    // every message the turn became is pinned.
    if (m.pinned === true) for (const x of out.splice(from)) out.push({ ...x, pinned: true })
  })
  return out
}

function textPart(b: unknown, i: number, field: string): ContentPart {
  if (!isJson(b) || b.type !== 'text' || typeof b.text !== 'string')
    fail(i, field, 'expected a text block')
  const { type: _t, text: _x, ...rest } = b
  return withMeta({ type: 'text', text: b.text }, rest)
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
  const source = b.source
  if (!isJson(source))
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
        c = content.map((p, q) => {
          // A result's own blocks are checked as the message's are: a typed error, not a crash.
          if (!isBlock(p))
            fail(i, `content.${k}.content.${q}`, `expected a block with a type, got ${describe(p)}`)
          return mediaPart(p, i, `content.${k}.content.${q}`)
        })
      else fail(i, `content.${k}.content`, `expected a string or a list, got ${describe(content)}`)
      const toolName = names.get(id)
      out.push(
        withMeta(
          {
            role: 'tool',
            toolCallId: id,
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
        names.set(id, name)
        calls.push(withMeta({ id, name, arguments: JSON.stringify(input) }, rest))
        layout.push({ t: 'tool_use' })
        break
      }
      case 'thinking':
        if (typeof b.thinking !== 'string')
          fail(i, `content.${k}.thinking`, `expected a string, got ${describe(b.thinking)}`)
        thoughts.push(b.thinking)
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

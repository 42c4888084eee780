import { InvalidInputError } from '../errors.js'
import type { AutoGenInput, ReaderInput } from '../messages/input.js'
import { type ContentPart, contentText, type Message } from '../messages/message.js'
import { describeValue } from '../options-check.js'
import {
  describe,
  detach,
  fail,
  fieldsOf,
  isJson,
  isList,
  type Json,
  metadataFor,
  refuseDeep,
  requireList,
} from '../providers/codec-kit.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const AUTOGEN = 'autogen'

const { meta, withMeta } = metadataFor(AUTOGEN)
const rest = (m: Json, known: string[]): Json => {
  const extra: Json = {}
  // `pinned` is the message's own (pydantic leaves an unknown field alone), read as such.
  for (const k of Object.keys(m))
    if (!known.includes(k) && !(k === 'pinned' && typeof m[k] === 'boolean')) extra[k] = m[k]
  return Object.keys(extra).length ? { extra } : {}
}
const pinnedOf = (m: Json) => (m.pinned === true ? { pinned: true } : {})

/**
 * Decodes AutoGen `LLMMessage` JSON (SystemMessage, UserMessage, AssistantMessage with text
 * or FunctionCall lists and `thought`, FunctionExecutionResultMessage with several results):
 * a list, or a `ChatCompletionContextState` (`{ messages }`), so a state AutoGen saved loads here.
 */
export function fromAutoGen<const T>(input: ReaderInput<T, AutoGenInput>): Message[] {
  return readAutoGen(input)
}

/** `fromAutoGen` for a value of any type (a saved state read as JSON of any type). */
export function readAutoGen(input: unknown): Message[] {
  refuseDeep(input)
  const list = Array.isArray(input) ? input : isJson(input) ? input.messages : undefined
  if (!isList(list))
    throw new InvalidInputError('expected a list of AutoGen messages or a state with "messages"', {
      field: 'messages',
    })
  const out: Message[] = []
  for (const [i, raw] of list.entries()) {
    if (!isJson(raw)) fail(i, 'message', `expected an object, got ${describe(raw)}`)
    const m = raw
    const source = typeof m.source === 'string' ? { name: m.source } : {}
    switch (m.type) {
      case 'SystemMessage':
        if (typeof m.content !== 'string')
          fail(i, 'content', `expected a string, got ${describe(m.content)}`)
        out.push(
          withMeta(
            { role: 'system', content: m.content, ...pinnedOf(m) },
            rest(m, ['type', 'content']),
          ),
        )
        continue
      case 'UserMessage': {
        let content: string | ContentPart[]
        if (typeof m.content === 'string') content = m.content
        else if (Array.isArray(m.content)) {
          content = m.content.map((p, k): ContentPart => {
            if (typeof p === 'string') return { type: 'text', text: p }
            if (isJson(p) && typeof p.data === 'string')
              return withMeta({ type: 'image', data: p.data }, { image: p })
            return fail(i, `content.${k}`, `expected a string or an image, got ${describe(p)}`)
          })
        } else
          content = fail(i, 'content', `expected a string or a list, got ${describe(m.content)}`)
        out.push(
          withMeta(
            { role: 'user', content, ...source, ...pinnedOf(m) },
            rest(m, ['type', 'content', 'source']),
          ),
        )
        continue
      }
      case 'AssistantMessage': {
        const data = rest(m, ['type', 'content', 'source', 'thought'])
        if (m.thought === null) data.thoughtNull = true
        const thought = typeof m.thought === 'string' ? { thought: m.thought } : {}
        if (typeof m.content === 'string') {
          out.push(
            withMeta(
              { role: 'assistant', content: m.content, ...thought, ...source, ...pinnedOf(m) },
              data,
            ),
          )
          continue
        }
        if (!Array.isArray(m.content))
          return fail(
            i,
            'content',
            `expected a string or a list of FunctionCall, got ${describe(m.content)}`,
          )
        const toolCalls = m.content.map((call: unknown, k) => {
          if (!isJson(call) || typeof call.id !== 'string' || !call.id)
            fail(
              i,
              `content.${k}.id`,
              `expected a string, got ${describe(isJson(call) ? call.id : undefined)}`,
            )
          if (typeof call.name !== 'string')
            fail(i, `content.${k}.name`, `expected a string, got ${describe(call.name)}`)
          if (typeof call.arguments !== 'string')
            fail(i, `content.${k}.arguments`, `expected a string, got ${describe(call.arguments)}`)
          return { id: call.id, name: call.name, arguments: call.arguments }
        })
        out.push(
          withMeta({ role: 'assistant', toolCalls, ...thought, ...source, ...pinnedOf(m) }, data),
        )
        continue
      }
      case 'FunctionExecutionResultMessage': {
        if (!isList(m.content))
          fail(i, 'content', `expected a list of results, got ${describe(m.content)}`)
        m.content.forEach((res, k) => {
          if (!isJson(res) || typeof res.call_id !== 'string' || !res.call_id)
            fail(
              i,
              `content.${k}.call_id`,
              `expected a string, got ${describe(isJson(res) ? res.call_id : undefined)}`,
            )
          const data: Json = { turn: i, ...(k === 0 ? rest(m, ['type', 'content']) : {}) }
          if ('is_error' in res) data.isErrorField = res.is_error
          out.push(
            withMeta(
              {
                role: 'tool',
                toolCallId: res.call_id,
                content: String(res.content ?? ''),
                ...(typeof res.name === 'string' && { toolName: res.name }),
                ...(res.is_error === true && { isError: true }),
                ...pinnedOf(m),
              },
              data,
            ),
          )
        })
        continue
      }
      default:
        fail(
          i,
          'type',
          `unknown message type ${describeValue(m.type)} (expected SystemMessage, UserMessage, AssistantMessage or FunctionExecutionResultMessage)`,
        )
    }
  }
  return out
}

/** Encodes messages as AutoGen `LLMMessage` JSON; tool results in a row share one FunctionExecutionResultMessage. */
export function toAutoGen(messages: readonly Message[]): Json[] {
  requireList(messages)
  return detach(encodeAutoGen(messages))
}

function encodeAutoGen(messages: readonly Message[]): Json[] {
  const out: Json[] = []
  let open: { turn: unknown; msg: Json & { content: Json[] } } | undefined
  for (const m of messages) {
    const data = meta(m)
    const extra = fieldsOf(data.extra)
    if (m.role === 'tool') {
      if (!open || (data.turn !== undefined && data.turn !== open.turn)) {
        open = {
          turn: data.turn,
          msg: { content: [], type: 'FunctionExecutionResultMessage', ...extra },
        }
        out.push(open.msg)
      }
      if (m.pinned === true) open.msg.pinned = true
      const res: Json = {
        content: contentText(m.content),
        name: m.toolName ?? '',
        call_id: m.toolCallId,
      }
      res.is_error =
        'isErrorField' in data ? (m.isError ?? data.isErrorField) : (m.isError ?? false)
      open.msg.content.push(res)
      continue
    }
    open = undefined
    const source = m.name !== undefined ? { source: m.name } : {}
    const pinned = m.pinned === true ? { pinned: true } : {}
    if (m.role === 'system')
      out.push({ content: contentText(m.content), type: 'SystemMessage', ...extra, ...pinned })
    else if (m.role === 'user') {
      const content =
        typeof m.content === 'string'
          ? m.content
          : m.content.map((p) =>
              p.type === 'text' ? p.text : (meta(p).image ?? { data: p.data ?? p.url ?? '' }),
            )
      out.push({ content, source: m.name ?? 'user', type: 'UserMessage', ...extra, ...pinned })
    } else {
      const thought =
        m.thought !== undefined ? { thought: m.thought } : data.thoughtNull ? { thought: null } : {}
      const content = m.toolCalls?.length
        ? m.toolCalls.map((c) => ({ id: c.id, arguments: c.arguments, name: c.name }))
        : contentText(m.content)
      out.push({
        content,
        ...thought,
        ...(source.source !== undefined ? source : { source: 'assistant' }),
        type: 'AssistantMessage',
        ...extra,
        ...pinned,
      })
    }
  }
  return out
}

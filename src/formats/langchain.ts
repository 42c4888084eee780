import { InvalidInputError } from '../errors.js'
import type { LangChainInput, ReaderInput } from '../messages/input.js'
import type { ContentPart, Message, ToolCall } from '../messages/message.js'
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
  parseArguments,
  refuseDeep,
  requireList,
} from '../providers/codec-kit.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const LANGCHAIN = 'langchain'

const { meta, withMeta } = metadataFor(LANGCHAIN)

const CLASS: Record<string, string> = {
  human: 'HumanMessage',
  ai: 'AIMessage',
  system: 'SystemMessage',
  tool: 'ToolMessage',
}
const TYPE: Record<string, string> = Object.fromEntries(
  Object.entries(CLASS).map(([k, v]) => [v, k]),
)
const KNOWN = ['content', 'type', 'name', 'tool_calls', 'tool_call_id', 'status']

/**
 * Decodes LangChain messages: `BaseMessage` instances, and the serialized forms
 * `{ type: 'human' | 'ai' | 'system' | 'tool', data }` (messages_to_dict) and the `lc` constructor form (`{ lc: 1, type: 'constructor', id:
 * [..., 'HumanMessage'], kwargs }`). Tool-call `args` are kept as their exact JSON string.
 */
export function fromLangChain<const T>(input: ReaderInput<T, LangChainInput>): Message[] {
  return readLangChain(input)
}

/** `fromLangChain` for a value of any type (a caller generic over the message type). */
export function readLangChain(input: unknown): Message[] {
  const list = Array.isArray(input) ? input : isJson(input) ? input.messages : undefined
  if (!isList(list))
    throw new InvalidInputError('expected a list of LangChain messages', { field: 'messages' })
  return list.map((item, i) => {
    // A BaseMessage instance: read as the constructor form it serializes to.
    const raw: unknown = isJson(item) && typeof item.toJSON === 'function' ? item.toJSON() : item
    if (!isJson(raw)) fail(i, 'message', `expected an object, got ${describe(raw)}`)
    refuseDeep(raw, i)
    const r = raw
    let kind: string | undefined
    let body: Json
    let form: Json
    if (r.lc === 1 && r.type === 'constructor') {
      const id = r.id
      const className = String(Array.isArray(id) ? id[id.length - 1] : '')
      kind = Object.hasOwn(TYPE, className) ? TYPE[className] : undefined
      body = fieldsOf(r.kwargs)
      form = { form: 'lc', id }
    } else {
      kind = typeof r.type === 'string' && Object.hasOwn(CLASS, r.type) ? r.type : undefined
      body = fieldsOf(r.data)
      form = { form: 'dict' }
    }
    if (!kind)
      fail(
        i,
        'type',
        `unknown message type ${describeValue(r.lc === 1 && r.type === 'constructor' ? r.id : r.type)} (expected human, ai, system or tool)`,
      )
    const extra: Json = {}
    for (const k of Object.keys(body)) if (!KNOWN.includes(k)) extra[k] = body[k]
    const data: Json = {
      ...form,
      ...(Object.keys(extra).length && { extra }),
      ...('type' in body && { typeField: body.type }),
    }
    const content = decodeContent(body.content, i)
    // Pinned in `additional_kwargs` (which LangChain's provider clients do not send).
    const name = {
      ...(typeof body.name === 'string' && { name: body.name }),
      ...(fieldsOf(body.additional_kwargs).pinned === true && { pinned: true }),
    }
    if (body.name === null) data.nameNull = true
    switch (kind) {
      case 'system':
        return withMeta({ role: 'system', content, ...name }, data)
      case 'human':
        return withMeta({ role: 'user', content, ...name }, data)
      case 'tool': {
        if (typeof body.tool_call_id !== 'string' || !body.tool_call_id)
          fail(i, 'tool_call_id', `expected a string, got ${describe(body.tool_call_id)}`)
        if ('status' in body) data.status = body.status
        return withMeta(
          {
            role: 'tool',
            toolCallId: body.tool_call_id,
            content,
            ...(body.status === 'error' && { isError: true }),
            ...(typeof body.name === 'string' && { toolName: body.name }),
            ...(name.pinned && { pinned: true }),
          },
          { ...data, ...(typeof body.name === 'string' && { nameField: true }) },
        )
      }
      default: {
        const calls = body.tool_calls
        if (calls !== undefined && !Array.isArray(calls))
          fail(i, 'tool_calls', `expected a list, got ${describe(calls)}`)
        const toolCalls: ToolCall[] = (isList(calls) ? calls : []).map((c, k) => {
          if (!isJson(c) || typeof c.id !== 'string' || !c.id)
            fail(
              i,
              `tool_calls.${k}.id`,
              `expected a string, got ${describe(isJson(c) ? c.id : undefined)}`,
            )
          if (typeof c.name !== 'string')
            fail(i, `tool_calls.${k}.name`, `expected a string, got ${describe(c.name)}`)
          const { id: _id, name: _n, args, ...more } = c
          return withMeta({ id: c.id, name: c.name, arguments: JSON.stringify(args ?? {}) }, more)
        })
        if (calls !== undefined) data.toolCallsField = true
        return withMeta(
          { role: 'assistant', content, ...name, ...(toolCalls.length && { toolCalls }) },
          data,
        )
      }
    }
  })
}

function decodeContent(c: unknown, i: number): string | ContentPart[] {
  if (typeof c === 'string') return c
  if (!Array.isArray(c))
    return fail(i, 'content', `expected a string or a list of blocks, got ${describe(c)}`)
  return c.map((b: unknown, k): ContentPart => {
    if (typeof b === 'string') return withMeta({ type: 'text', text: b }, { bare: true })
    const block = fieldsOf(b)
    if (block.type === 'text' && typeof block.text === 'string') {
      const { type: _t, text: _x, ...more } = block
      return withMeta({ type: 'text', text: block.text }, more)
    }
    if (block.type === 'image_url') {
      const url =
        typeof block.image_url === 'string' ? block.image_url : fieldsOf(block.image_url).url
      if (typeof url !== 'string') return fail(i, `content.${k}.image_url`, 'expected a URL')
      return withMeta({ type: 'image', url }, { block })
    }
    // Other block kinds are kept as they are and counted as their JSON text.
    return withMeta({ type: 'text', text: JSON.stringify(b) }, { block: b })
  })
}

/** Encodes messages as serialized LangChain messages, in the form each was decoded from (default: messages_to_dict). */
export function toLangChain(messages: readonly Message[]): Json[] {
  requireList(messages)
  return detach(encodeLangChain(messages))
}

function encodeLangChain(messages: readonly Message[]): Json[] {
  return messages.map((m) => {
    const data = meta(m)
    const kind = m.role === 'user' ? 'human' : m.role === 'assistant' ? 'ai' : m.role
    const body: Json = {
      content: encodeContent(m.content),
      ...withPinned(fieldsOf(data.extra), m.pinned === true),
    }
    if ('typeField' in data) body.type = data.typeField
    if (m.role === 'tool') {
      body.tool_call_id = m.toolCallId
      if (data.nameField && m.toolName !== undefined) body.name = m.toolName
      else if (data.nameNull) body.name = null
      if ('status' in data) body.status = m.isError ? 'error' : data.status
      else if (m.isError) body.status = 'error'
    } else if (m.name !== undefined) body.name = m.name
    else if (data.nameNull) body.name = null
    if (m.role === 'assistant' && (m.toolCalls?.length || data.toolCallsField)) {
      body.tool_calls = (m.toolCalls ?? []).map((c) => ({
        name: c.name,
        args: parseArguments(c.arguments, (v) => (v && typeof v === 'object' ? v : {})),
        id: c.id,
        ...meta(c),
      }))
    }
    if (data.form === 'lc')
      return {
        lc: 1,
        type: 'constructor',
        id: data.id ?? ['langchain_core', 'messages', CLASS[kind]],
        kwargs: body,
      }
    return { type: kind, data: body }
  })
}

/** A message's kept fields with `additional_kwargs.pinned` saying what the message says. */
function withPinned(extra: Json, pinned: boolean): Json {
  const kwargs = fieldsOf(extra.additional_kwargs)
  if (pinned) return { ...extra, additional_kwargs: { ...kwargs, pinned } }
  if (kwargs.pinned === undefined) return extra
  const { pinned: _p, ...rest } = kwargs
  return { ...extra, additional_kwargs: rest }
}

function encodeContent(c: Message['content']): unknown {
  if (c === undefined) return ''
  if (typeof c === 'string') return c
  return c.map((p) => {
    const data = meta(p)
    if (data.block) return data.block
    if (p.type === 'text') return data.bare ? p.text : { type: 'text', text: p.text, ...data }
    if (p.type === 'image')
      return {
        type: 'image_url',
        image_url: { url: p.url ?? `data:${p.mediaType ?? 'image/png'};base64,${p.data ?? ''}` },
      }
    return {
      type: 'file',
      ...(p.data !== undefined && { data: p.data }),
      ...(p.url !== undefined && { url: p.url }),
      mime_type: p.mediaType,
    }
  })
}

/** Reading an OpenAI chat request or message list into messages. */
import { InvalidInputError } from '../../errors.js'
import type { OpenAIChatInput, ReaderInput } from '../../messages/input.js'
import type { AssistantMessage, Message, ToolCall } from '../../messages/message.js'
import { describeValue } from '../../options-check.js'
import { describe, isJson, refuseDeep } from '../codec-kit.js'
import { decodeContent, fail, str } from './decode-parts.js'
import { type Json, type Meta, OPENAI_CHAT, withMeta } from './wire.js'

const KNOWN: Record<string, readonly string[]> = {
  system: ['role', 'content', 'name'],
  developer: ['role', 'content', 'name'],
  user: ['role', 'content', 'name'],
  assistant: [
    'role',
    'content',
    'name',
    'tool_calls',
    'function_call',
    'refusal',
    'reasoning_content',
  ],
  tool: ['role', 'content', 'tool_call_id', 'name'],
  function: ['role', 'content', 'name'],
}

/**
 * Decodes OpenAI chat messages: a list, or an object with `messages`. Roles system,
 * developer, user, assistant, tool and the legacy function role. Throws
 * `InvalidInputError` naming the message index and the field on anything malformed.
 */
export function fromOpenAIChat<const T>(input: ReaderInput<T, OpenAIChatInput>): Message[] {
  return readOpenAIChat(input)
}

/** `fromOpenAIChat` for a value of any type (a caller generic over the SDK's message type). */
export function readOpenAIChat(input: unknown): Message[] {
  refuseDeep(input)
  const list = messageList(input)
  const out: Message[] = []
  const callNames = new Map<string, string>()
  let pendingLegacy: string | undefined
  for (let i = 0; i < list.length; i++) {
    const m = decodeOne(list[i], i, callNames, pendingLegacy)
    if (m.role === 'assistant' && m.providerMetadata?.[OPENAI_CHAT]?.legacyFunctionCall) {
      pendingLegacy = m.toolCalls?.[0]?.id
    } else if (m.role === 'tool' && m.providerMetadata?.[OPENAI_CHAT]?.legacyFunction) {
      pendingLegacy = undefined
    }
    // `pinned: true` is the library's (sent whenever the system prompt is), never the wire's.
    const raw = list[i]
    out.push(isJson(raw) && raw.pinned === true ? { ...m, pinned: true } : m)
  }
  return out
}

function messageList(input: unknown): unknown[] {
  if (Array.isArray(input)) return input
  if (isJson(input) && Array.isArray(input.messages)) return input.messages
  throw new InvalidInputError('expected a list of messages or an object with a "messages" list', {
    field: 'messages',
  })
}

function decodeOne(
  raw: unknown,
  i: number,
  callNames: Map<string, string>,
  pendingLegacy: string | undefined,
): Message {
  if (!isJson(raw) || Array.isArray(raw)) {
    fail(i, 'message', `expected an object, got ${describe(raw)}`)
  }
  const m = raw
  const role = m.role
  if (typeof role !== 'string' || !Object.hasOwn(KNOWN, role)) {
    fail(
      i,
      'role',
      `unknown role ${describeValue(role)} (expected one of ${Object.keys(KNOWN).join(', ')})`,
    )
  }
  const meta: Meta = {}
  const extra: Json = {}
  for (const key of Object.keys(m))
    if (!KNOWN[role]?.includes(key) && !(key === 'pinned' && typeof m[key] === 'boolean'))
      extra[key] = m[key]
  if (Object.keys(extra).length) meta.extra = extra
  const name = str(m.name, i, 'name', true)

  switch (role) {
    case 'system':
    case 'developer': {
      if (role === 'developer') meta.role = 'developer'
      const content = required(decodeContent(m.content, i, meta), i, role)
      return withMeta({ role: 'system', content, ...(name !== undefined && { name }) }, meta)
    }
    case 'user': {
      const content = required(decodeContent(m.content, i, meta), i, role)
      return withMeta({ role: 'user', content, ...(name !== undefined && { name }) }, meta)
    }
    case 'assistant':
      return decodeAssistant(m, i, meta, name, callNames)
    case 'tool': {
      const toolCallId = str(m.tool_call_id, i, 'tool_call_id')
      if (!toolCallId) fail(i, 'tool_call_id', 'must not be empty')
      const content = required(decodeContent(m.content, i, meta), i, role)
      if (name !== undefined) meta.nameField = true
      const toolName = name ?? callNames.get(toolCallId)
      return withMeta(
        {
          role: 'tool',
          toolCallId,
          content,
          ...(toolName !== undefined && { toolName }),
        },
        meta,
      )
    }
    default: {
      // Legacy `function` role: the result of the `function_call` just before it.
      meta.legacyFunction = true
      const content = decodeContent(m.content, i, meta)
      const toolName = str(m.name, i, 'name')
      return withMeta(
        {
          role: 'tool',
          toolCallId: pendingLegacy ?? `legacy-function-${i}`,
          toolName,
          content: content ?? '',
        },
        meta,
      )
    }
  }
}

function decodeAssistant(
  m: Json,
  i: number,
  meta: Meta,
  name: string | undefined,
  callNames: Map<string, string>,
): AssistantMessage {
  const out: AssistantMessage = { role: 'assistant' }
  const content = decodeContent(m.content, i, meta)
  if (content !== undefined) out.content = content
  if (name !== undefined) out.name = name
  if (m.refusal === null) meta.refusalNull = true
  else if (m.refusal !== undefined) out.refusal = str(m.refusal, i, 'refusal')
  if (m.reasoning_content !== undefined) {
    // Some OpenAI-compatible servers carry reasoning here; written back only where it was read.
    out.thought = str(m.reasoning_content, i, 'reasoning_content')
    meta.reasoningField = true
  }

  if (m.tool_calls !== undefined) {
    if (!Array.isArray(m.tool_calls))
      fail(i, 'tool_calls', `expected a list, got ${describe(m.tool_calls)}`)
    if (m.tool_calls.length === 0) meta.emptyToolCalls = true
    out.toolCalls = m.tool_calls.map((c, k) => decodeCall(c, i, `tool_calls.${k}`, callNames))
  }
  if (m.function_call !== undefined && m.function_call !== null) {
    const fc = m.function_call
    if (!isJson(fc)) fail(i, 'function_call', `expected an object, got ${describe(fc)}`)
    const call: ToolCall = {
      id: `legacy-function-call-${i}`,
      name: str(fc.name, i, 'function_call.name'),
      arguments: str(fc.arguments, i, 'function_call.arguments'),
    }
    callNames.set(call.id, call.name)
    meta.legacyFunctionCall = true
    out.toolCalls = [...(out.toolCalls ?? []), call]
  } else if (m.function_call === null) {
    meta.functionCallNull = true
  }
  return withMeta(out, meta)
}

function decodeCall(
  raw: unknown,
  i: number,
  field: string,
  callNames: Map<string, string>,
): ToolCall {
  if (!isJson(raw)) fail(i, field, `expected an object, got ${describe(raw)}`)
  const c = raw
  const id = str(c.id, i, `${field}.id`)
  if (!id) fail(i, `${field}.id`, 'must not be empty')
  const fn = c.function
  if (!isJson(fn)) fail(i, `${field}.function`, `expected an object, got ${describe(fn)}`)
  const call: ToolCall = {
    id,
    name: str(fn.name, i, `${field}.function.name`),
    arguments: str(fn.arguments, i, `${field}.function.arguments`),
  }
  const meta: Meta = {}
  if (c.type !== 'function') meta.type = c.type
  const extra: Json = {}
  for (const k of Object.keys(c)) if (!['id', 'type', 'function'].includes(k)) extra[k] = c[k]
  for (const k of Object.keys(fn))
    if (!['name', 'arguments'].includes(k)) extra[`function.${k}`] = fn[k]
  if (Object.keys(extra).length) meta.extra = extra
  callNames.set(id, call.name)
  return Object.keys(meta).length ? { ...call, providerMetadata: { [OPENAI_CHAT]: meta } } : call
}

/** OpenAI takes `content` as optional on assistant messages only. */
function required<T>(content: T | undefined, i: number, role: string): T {
  if (content === undefined)
    fail(i, 'content', `a ${role} message without content (absent or null)`)
  return content
}

/** Responses-style items read without the codec: messages, function calls and their outputs exactly, any other item as its JSON text. */
import { InvalidInputError } from '../errors.js'
import type { AssistantMessage, Message, ToolCall } from '../messages/message.js'
import { describeValue } from '../options-check.js'
import { fieldsOf, isJson } from '../providers/codec-kit.js'

export type Item = Record<string, unknown>

export interface DecodedItems {
  messages: Message[]
  /** For each message, the input items it stands for, in order. */
  sources: number[][]
}

export function text(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content
      .map((p) => {
        const part = fieldsOf(p)
        if (typeof part.text === 'string') return part.text
        if (typeof part.refusal === 'string') return part.refusal
        return JSON.stringify(p)
      })
      .join('\n')
  if (isJson(content) && typeof content.text === 'string') return content.text
  return content === undefined || content === null ? '' : JSON.stringify(content)
}

const callIdOf = (item: Item): unknown => item.callId ?? item.call_id

/**
 * An Agents SDK call the caller runs, other than a function call (`shell_call`,
 * `apply_patch_call`, `computer_call`, `program`, a client `tool_search_call`), and the
 * output that answers it (`callId`): read as a call and its result, so the two go or stay
 * together as a function call and its output do. (The API's own items, with `call_id`, are
 * read by the Responses codec, which pairs them itself.) Each keeps its item, which is
 * what goes out when the fit writes its message anew.
 */
const isOtherCall = (type: unknown, item: Item): item is Item & { callId: string } =>
  typeof item.callId === 'string' &&
  (type === 'program' || (typeof type === 'string' && /_call$/.test(type)))
const isOtherOutput = (type: unknown, item: Item): item is Item & { callId: string } =>
  typeof item.callId === 'string' && typeof type === 'string' && /_(output|result)$/.test(type)

/** The item a call or an output was read from, when it is not a function's. */
const ITEM = 'agentsItem'
export const itemOf = (x: {
  providerMetadata?: Record<string, Record<string, unknown>> | undefined
}): Item | undefined => {
  const item = x.providerMetadata?.[ITEM]?.item
  return isJson(item) ? item : undefined
}

/** An item as the JSON the counts read, without its ids and provider data. */
function itemJson(item: Item): string {
  const { id: _i, callId: _c, call_id: _a, providerData: _p, ...rest } = item
  return JSON.stringify(rest)
}

/** Groups items into canonical messages; a model turn's items (text, calls, the rest) become one assistant message. */
export function decodeItems(items: readonly unknown[]): DecodedItems {
  if (!Array.isArray(items))
    throw new InvalidInputError('expected a list of items', { field: 'input' })
  const messages: Message[] = []
  const sources: number[][] = []
  let turn: { message: AssistantMessage; from: number[] } | undefined
  const flush = () => {
    if (turn) {
      // Reasoning with nothing of its turn after it is not sent (the API refuses it); it stays counted.
      const from = [...turn.from]
      for (let k = from.at(-1); k !== undefined && fieldsOf(items[k]).type === 'reasoning'; ) {
        from.pop()
        k = from.at(-1)
      }
      messages.push(turn.message)
      sources.push(from)
    }
    turn = undefined
  }
  const open = () => {
    turn ??= { message: { role: 'assistant', content: '' }, from: [] }
    return turn
  }
  items.forEach((raw, i) => {
    if (!isJson(raw))
      throw new InvalidInputError('expected an item object', { index: i, field: 'item' })
    const item = raw
    const type = item.type ?? (typeof item.role === 'string' ? 'message' : undefined)
    if (type === 'message' && item.role !== 'assistant') {
      if (item.role !== 'user' && item.role !== 'system' && item.role !== 'developer')
        throw new InvalidInputError(`unknown role ${describeValue(item.role)}`, {
          index: i,
          field: 'role',
        })
      flush()
      messages.push({ role: item.role === 'user' ? 'user' : 'system', content: text(item.content) })
      sources.push([i])
      return
    }
    if (type === 'compaction') {
      // Stands for the history it compacted: its own unit, never cut with a model turn.
      flush()
      messages.push({ role: 'system', content: text(item.encrypted_content) })
      sources.push([i])
      return
    }
    if (type === 'function_call_output' || type === 'function_call_result') {
      const id = callIdOf(item)
      if (typeof id !== 'string' || !id)
        throw new InvalidInputError('expected a call id', { index: i, field: 'callId' })
      flush()
      messages.push({
        role: 'tool',
        toolCallId: id,
        content: text(item.output),
        ...(typeof item.name === 'string' && { toolName: item.name }),
      })
      sources.push([i])
      return
    }
    if (type !== 'function_call' && isOtherOutput(type, item)) {
      flush()
      messages.push({
        role: 'tool',
        toolCallId: item.callId,
        content: itemJson(item),
        providerMetadata: { [ITEM]: { item } },
      })
      sources.push([i])
      return
    }
    const t = open()
    t.from.push(i)
    const m = t.message
    if (type !== 'function_call' && isOtherCall(type, item)) {
      m.toolCalls ??= []
      m.toolCalls.push({
        id: item.callId,
        name: String(type),
        arguments: itemJson(item),
        providerMetadata: { [ITEM]: { item } },
      })
    } else if (type === 'message') {
      const said = text(item.content)
      m.content = m.content ? `${m.content}\n${said}` : said
    } else if (type === 'function_call') {
      const id = callIdOf(item)
      if (typeof id !== 'string' || !id)
        throw new InvalidInputError('expected a call id', { index: i, field: 'callId' })
      const call: ToolCall = {
        id,
        name: String(item.name ?? ''),
        arguments: typeof item.arguments === 'string' ? item.arguments : '',
      }
      m.toolCalls ??= []
      m.toolCalls.push(call)
    } else {
      // Kept with the turn and counted as its JSON: reasoning, built-in calls, anything newer.
      m.thought = `${m.thought ?? ''}${JSON.stringify(item)}`
    }
  })
  flush()
  return { messages, sources }
}

import { InvalidInputError } from '../errors.js'
import type { AssistantMessage, Message, ToolCall } from '../messages/message.js'
import { describeValue } from '../options-check.js'
import { fromOpenAIResponses } from '../providers/openai-responses/codec.js'

/**
 * Responses-style items grouped for the adapters that hand their caller's own items back:
 * the OpenAI Agents SDK's `AgentInputItem`s (camelCase `callId`, `function_call_result`)
 * and the Responses API's (`call_id`, `function_call_output`). Items are grouped into units
 * (a message by role; a function output; a model turn: its text, calls, reasoning and any
 * other model item together), and each group is read by the Responses codec after the
 * Agents SDK's items are mapped to the API's shape. Where the codec cannot read a group,
 * a small reading of its own takes over: messages, function calls and their outputs exactly,
 * any other item counted as its JSON text. Items are sent as they were or not at all; only
 * a message the fit changed is written anew, as plain items.
 */

type Item = Record<string, unknown>

export interface DecodedItems {
  messages: Message[]
  /** For each message, the input items it stands for, in order. */
  sources: number[][]
}

function text(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content))
    return content
      .map((p) => {
        const part = p as Item
        if (typeof part?.text === 'string') return part.text
        if (typeof part?.refusal === 'string') return part.refusal
        return JSON.stringify(p)
      })
      .join('\n')
  if (content && typeof content === 'object') {
    const c = content as Item
    if (typeof c.text === 'string') return c.text
  }
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
const isOtherCall = (type: unknown, item: Item) =>
  typeof item.callId === 'string' &&
  (type === 'program' || (typeof type === 'string' && /_call$/.test(type)))
const isOtherOutput = (type: unknown, item: Item) =>
  typeof item.callId === 'string' && typeof type === 'string' && /_(output|result)$/.test(type)

/** The item a call or an output was read from, when it is not a function's. */
const ITEM = 'agentsItem'
const itemOf = (x: { providerMetadata?: Record<string, Record<string, unknown>> | undefined }) =>
  x.providerMetadata?.[ITEM]?.item as Item | undefined

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
      while (from.length && (items[from[from.length - 1] as number] as Item).type === 'reasoning')
        from.pop()
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
    if (!raw || typeof raw !== 'object')
      throw new InvalidInputError('expected an item object', { index: i, field: 'item' })
    const item = raw as Item
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
        toolCallId: item.callId as string,
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
        id: item.callId as string,
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

/** A message as plain items: its text and its calls, or its result. */
export function plainItems(m: Message, agents: boolean): Item[] {
  const body = typeof m.content === 'string' ? m.content : text(m.content ?? '')
  if (m.role === 'system' || m.role === 'user')
    return [{ type: 'message', role: m.role, content: body }]
  // An output of a call that is not a function's goes as the item it was: its shape is its
  // kind's own, which a function output cannot stand for.
  const own = m.role === 'tool' ? itemOf(m) : undefined
  if (own) return [own]
  if (m.role === 'tool')
    return agents
      ? [
          {
            type: 'function_call_result',
            callId: m.toolCallId,
            name: m.toolName ?? '',
            status: 'completed',
            output: { type: 'text', text: body },
          },
        ]
      : [{ type: 'function_call_output', call_id: m.toolCallId, output: body }]
  const out: Item[] = []
  if (body)
    out.push({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: body, ...(agents ? {} : { annotations: [] }) }],
    })
  for (const c of m.toolCalls ?? [])
    out.push(
      itemOf(c) ??
        (agents
          ? { type: 'function_call', callId: c.id, name: c.name, arguments: c.arguments }
          : { type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments }),
    )
  return out
}

function withoutData(item: Item): Item {
  const { providerData: _p, ...rest } = item
  return rest
}

/** An Agents SDK item in the Responses API's own shape, for the Responses codec; undefined when it has none. */
function apiItem(item: Item): Item | undefined {
  const type = item.type ?? (typeof item.role === 'string' ? 'message' : undefined)
  if (type === 'message') {
    const { providerData: _p, ...rest } = item
    return rest
  }
  if (type === 'function_call' && typeof item.callId === 'string')
    return {
      type: 'function_call',
      call_id: item.callId,
      name: item.name,
      arguments: item.arguments,
      ...(typeof item.id === 'string' && { id: item.id }),
    }
  if (type === 'function_call_result' && typeof item.callId === 'string')
    return { type: 'function_call_output', call_id: item.callId, output: text(item.output) }
  if (type === 'reasoning') {
    const data = (item.providerData ?? {}) as Item
    const encrypted = [item.encrypted_content, data.encrypted_content, data.encryptedContent].find(
      (v) => typeof v === 'string',
    )
    // The API's own dialect carries `summary` (and `content` as reasoning text); the Agents
    // SDK's carries the summary as `content` (input_text parts), which it sends as `summary`.
    const own = Array.isArray(item.summary)
    return {
      type: 'reasoning',
      id: typeof item.id === 'string' ? item.id : 'rs',
      summary: own
        ? item.summary
        : Array.isArray(item.content)
          ? (item.content as Item[]).map((c) => ({ type: 'summary_text', text: text([c]) }))
          : [],
      ...(own && Array.isArray(item.content) && { content: item.content }),
      ...(encrypted !== undefined && { encrypted_content: encrypted }),
    }
  }
  if (type === 'compaction') return item.providerData === undefined ? item : withoutData(item)
  if (type === 'hosted_tool_call') {
    // The Agents SDK keeps the API's item (web search, file search...) as its provider data.
    const data = item.providerData as Item | undefined
    if (!data || typeof data !== 'object' || typeof data.type !== 'string') return undefined
    return {
      ...data,
      ...(typeof item.id === 'string' && { id: item.id }),
      ...(typeof item.status === 'string' && { status: item.status }),
    }
  }
  if ('call_id' in item || type === 'function_call_output') return item
  // Another item of the model's (an API item the SDK passes as it is): read as an opaque item.
  if (typeof type === 'string' && !('callId' in item)) return item
  return undefined
}

/**
 * `decodeItems`, with each group read by the Responses codec where every item of it has a
 * Responses API shape (the Agents SDK's camelCase items are mapped first): the counts and
 * the provider rules (`openai-responses`: reasoning that must travel with what follows it)
 * are then the codec's. A group the codec cannot read keeps this module's reading.
 */
export function decodeItemsWithCodec(
  items: readonly unknown[],
  memo?: ItemsMemo,
): DecodedItems & {
  owner: number[]
} {
  const plain = decodeItems(items)
  const messages: Message[] = []
  const owner: number[] = []
  const seen = new Map<string, Message[][]>()
  plain.sources.forEach((group, g) => {
    const own = plain.messages[g] as Message
    const key = memo && group.length ? groupText(items, group) : undefined
    // The n-th group with this text gets the n-th reading: `fit` takes each message object once.
    const before = key === undefined ? undefined : seen.get(key)
    const known = key === undefined ? undefined : memo?.groups.get(key)?.[before?.length ?? 0]
    const remember = (read: Message[]) => {
      if (key === undefined) return
      if (before) before.push(read)
      else seen.set(key, [read])
    }
    if (known) {
      remember(known)
      for (const m of known) {
        messages.push(m)
        owner.push(g)
      }
      return
    }
    const mapped = group.map((k) => apiItem(items[k] as Item))
    let decoded: Message[] = [own]
    if (group.length && mapped.every((m) => m !== undefined)) {
      try {
        const read = fromOpenAIResponses(mapped)
        if (read.length > 0) decoded = read
      } catch {
        // Not a shape the codec reads: this module's reading counts it.
      }
    }
    remember(decoded)
    for (const m of decoded) {
      messages.push(m)
      owner.push(g)
    }
  })
  // Only the groups of this history are remembered: the memo never outgrows it.
  if (memo) memo.groups = seen
  return { messages, sources: plain.sources, owner }
}

/**
 * What one adapter instance read in its last call: each group's messages by the group's
 * JSON text, so a history handed again (the same items, or copies of them) is read once and
 * counted once (the same messages reach `fit`, whose counts are kept per message).
 */
export interface ItemsMemo {
  /** By a group's JSON text, the messages read for each group with that text, in order. */
  groups: Map<string, Message[][]>
}

function groupText(items: readonly unknown[], group: readonly number[]): string | undefined {
  try {
    return JSON.stringify(group.map((k) => items[k]))
  } catch {
    return undefined
  }
}

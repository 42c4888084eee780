import type { Message } from '../messages/message.js'
import { fieldsOf, isJson } from '../providers/codec-kit.js'
import { fromOpenAIResponses } from '../providers/openai-responses/codec.js'
import { type DecodedItems, decodeItems, type Item, itemOf, text } from './items-reading.js'

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
    const data = fieldsOf(item.providerData)
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
          ? item.content.map((c: unknown) => ({ type: 'summary_text', text: text([c]) }))
          : [],
      ...(own && Array.isArray(item.content) && { content: item.content }),
      ...(encrypted !== undefined && { encrypted_content: encrypted }),
    }
  }
  if (type === 'compaction') return item.providerData === undefined ? item : withoutData(item)
  if (type === 'hosted_tool_call') {
    // The Agents SDK keeps the API's item (web search, file search...) as its provider data.
    const data = item.providerData
    if (!isJson(data) || typeof data.type !== 'string') return undefined
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
    const own = plain.messages[g]
    if (!own) return
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
    const mapped = group.map((k) => apiItem(fieldsOf(items[k])))
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

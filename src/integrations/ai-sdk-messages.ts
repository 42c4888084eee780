/** The AI SDK's model messages read and written around a fit: a provider-run result beside its call, and the parts of a message only the SDK reads (riders) held apart and put back. */
import { readAISDK } from '../formats/ai-sdk.js'
import type { Message } from '../messages/message.js'
import { fieldsOf, isJson, isList, type Json } from '../providers/codec-kit.js'

type Part = Json

/** A provider-executed result read out of its assistant message, by the tool message that counts it. */
const executedResult = new WeakMap<Message, Part>()

/**
 * AI SDK messages one at a time, as canonical messages. The result of a provider-executed
 * call (`providerExecuted: true`, web search and the like) sits in the assistant message
 * beside its call: it is read as the tool message that answers the call, right after the
 * assistant message, so the two are counted and kept or dropped together.
 */
export function decodeModelMessages(entries: readonly unknown[]): Message[] {
  return entries.flatMap((m) => {
    if (!isJson(m) || m.role !== 'assistant' || !isList(m.content)) return readAISDK([m])
    // Every result in the message: one whose call is not there is an orphan the fit drops.
    const results = m.content.filter((p): p is Json => isJson(p) && p.type === 'tool-result')
    if (results.length === 0) return readAISDK([m])
    const taken = new Set<unknown>(results)
    const [head, ...tail] = readAISDK([{ ...m, content: m.content.filter((p) => !taken.has(p)) }])
    // One tool message for each result, told apart by the result it was read from.
    const answers = results.flatMap((part) =>
      readAISDK([{ role: 'tool', content: [part] }]).map((tool) => {
        executedResult.set(tool, part)
        return tool
      }),
    )
    return head ? [head, ...answers, ...tail] : answers
  })
}

/**
 * `encode` for messages that may hold provider-executed results: each goes back into the
 * assistant message before it, right after its call, as the part it was.
 */
export function withExecutedResults<T>(encode: (m: Message[]) => T[]): (m: Message[]) => T[] {
  return (messages) => {
    const out: T[] = []
    let run: Message[] = []
    for (const m of [...messages, undefined]) {
      const part = m && executedResult.get(m)
      if (m && !part) {
        run.push(m)
        continue
      }
      if (run.length) out.push(...encode(run))
      run = []
      if (!part) continue
      const last = out[out.length - 1]
      let host: Json | undefined = isJson(last) && last.role === 'assistant' ? last : undefined
      if (!host) {
        const made = { role: 'assistant', content: [] }
        host = made
        out.push(made as T)
      }
      const content: unknown[] = isList(host.content)
        ? [...host.content]
        : typeof host.content === 'string' && host.content
          ? [{ type: 'text', text: host.content }]
          : []
      const call = content.findIndex(
        (p) => isJson(p) && p.type === 'tool-call' && p.toolCallId === part.toolCallId,
      )
      content.splice(call < 0 ? content.length : call + 1, 0, part)
      host.content = content
    }
    return out
  }
}

type Entry = Json

/** Parts of a tool message the fit does not count (approval responses), and where they go back. */
interface Rider {
  /** The entry of the stripped prompt they belong with. */
  anchor: number
  /** True when they were the whole tool message: they go out as it, right after the anchor. */
  alone: boolean
  entry: Entry
  parts: unknown[]
  /** Empty results counted for provider-run calls the parts answer, never sent. */
  stand: Part[]
}

/** A message's provider-run calls with no result beside them. */
function pendingCalls(entry: unknown): { toolCallId?: unknown; toolName?: unknown }[] {
  const { role, content } = fieldsOf(entry)
  if (role !== 'assistant' || !isList(content)) return []
  const parts = content.filter(isJson)
  const answered = new Set(parts.filter((p) => p?.type === 'tool-result').map((p) => p.toolCallId))
  return parts.filter(
    (p) => p?.type === 'tool-call' && p.providerExecuted === true && !answered.has(p.toolCallId),
  )
}

/**
 * What one tool message with riders was stripped to, by the message object, with the entry
 * before it then: a loop's next step hands the same objects, and gets the same stripped
 * entry back (so its decoding and counts are reused, not made anew at every step).
 */
export type Stripped = {
  before: unknown
  /** The message's JSON text then: one edited in place since is stripped anew. */
  text: string
  bare: unknown
  rider: Omit<Rider, 'anchor'> | undefined
}

/**
 * The prompt with every tool message's parts other than results taken out (an MCP
 * `tool-approval-response` and any part a later SDK adds): they answer a call, so they ride
 * with the message they follow and go out, unchanged, whenever any of it does. With `memo`
 * (one per `fitEachStep`), a message stripped at an earlier step gives the same object.
 */
export function stripRiders<T>(
  prompt: readonly T[],
  memo?: WeakMap<object, Stripped>,
): { bare: T[]; riders: Rider[]; at: number[] } {
  const bare: T[] = []
  const riders: Rider[] = []
  // The prompt index of each bare entry: the caller's number of the messages read from it.
  const at: number[] = []
  prompt.forEach((raw, k) => {
    const before = bare.length
    strip(raw)
    if (bare.length > before) at.push(k)
  })
  return { bare, riders, at }

  function strip(raw: T): void {
    const m = isJson(raw) ? raw : undefined
    const parts = m?.role === 'tool' && isList(m.content) ? m.content : []
    if (!m || !parts.some((p) => fieldsOf(p).type !== 'tool-result')) {
      bare.push(raw)
      return
    }
    const text = memo && jsonOf(m)
    const known = text === undefined ? undefined : memo?.get(m)
    if (known && known.before === bare[bare.length - 1] && known.text === text) {
      if (known.rider)
        riders.push({ ...known.rider, anchor: bare.length - (known.rider.alone ? 1 : 0) })
      if (known.bare !== undefined) bare.push(known.bare as T)
      return
    }
    const before = bare[bare.length - 1]
    const count = { bare: bare.length, riders: riders.length }
    stripOne(m, parts, bare, riders)
    const rider = riders.length > count.riders ? riders[riders.length - 1] : undefined
    if (text !== undefined)
      memo?.set(m, {
        before,
        text,
        bare: bare.length > count.bare ? bare[bare.length - 1] : undefined,
        rider: rider && {
          alone: rider.alone,
          entry: rider.entry,
          parts: rider.parts,
          stand: rider.stand,
        },
      })
  }
}

/** A value's JSON text, or undefined when it has none (a cycle, a BigInt). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}

/** One tool message with riders: its bare entry (if it keeps one) and its rider, added to the lists. */
function stripOne<T>(m: Entry, parts: unknown[], bare: T[], riders: Rider[]): void {
  const extra = parts.filter((p) => fieldsOf(p).type !== 'tool-result')
  const results = parts.filter((p) => fieldsOf(p).type === 'tool-result')
  // An approval answers a provider-run call whose result the provider makes later (MCP):
  // counted as an empty result, so the call is not an unanswered one the fit drops.
  const pending = results.length > 0 ? [] : pendingCalls(bare[bare.length - 1])
  const stand = pending.map((c) => ({
    type: 'tool-result',
    toolCallId: c.toolCallId,
    toolName: c.toolName,
    output: { type: 'text', value: '' },
  }))
  if (results.length > 0 || stand.length > 0) {
    riders.push({ anchor: bare.length, alone: false, entry: m, parts: extra, stand })
    bare.push({ ...m, content: [...stand, ...results] } as T)
  } else if (bare.length > 0)
    riders.push({ anchor: bare.length - 1, alone: true, entry: m, parts, stand })
}

/** The call ids an entry holds (its calls or results). */
function callIds(entry: unknown): Set<unknown> {
  const { content } = fieldsOf(entry)
  const ids = new Set<unknown>()
  if (isList(content))
    for (const p of content) {
      const id = fieldsOf(p).toolCallId
      if (id !== undefined) ids.add(id)
    }
  return ids
}

/**
 * The fitted prompt with the riders put back: with their anchor when it went out whole (as
 * the caller's own objects), or into the message that holds the anchor's calls when it was
 * rewritten; left out only when the fit dropped the whole of it.
 */
export function withRiders<T>(out: T[], bare: readonly T[], riders: readonly Rider[]): T[] {
  if (riders.length === 0) return out
  const result = [...out]
  for (const r of riders) {
    const anchor = bare[r.anchor]
    let at = result.findIndex((m) => m === anchor)
    if (at >= 0 && !r.alone) {
      result[at] = r.entry as T
      continue
    }
    if (at < 0) {
      // Rewritten: the message holding the anchor's calls (its results, for a tool message's).
      const ids = callIds(anchor)
      const { role } = fieldsOf(anchor)
      at =
        ids.size === 0
          ? -1
          : result.findIndex(
              (m) => fieldsOf(m).role === role && [...callIds(m)].some((id) => ids.has(id)),
            )
    }
    if (at < 0) continue
    if (r.alone) {
      // After the anchor and any riders already placed after it.
      let k = at + 1
      while (k < result.length && riders.some((o) => o.entry === result[k])) k++
      result.splice(k, 0, r.entry as T)
      continue
    }
    const host = fieldsOf(result[at])
    const standIds = new Set(r.stand.map((p) => p.toolCallId))
    const own = (isList(host.content) ? host.content : []).filter((p) => {
      const { type, toolCallId } = fieldsOf(p)
      return !(type === 'tool-result' && standIds.has(toolCallId))
    })
    result[at] = { ...host, content: [...r.parts, ...own] } as T
  }
  return result
}

/** How many system messages open a prompt: the AI SDK's `system`, given apart from the messages. */
export function leadingSystems(prompt: readonly unknown[]): number {
  let n = 0
  while (n < prompt.length && fieldsOf(prompt[n]).role === 'system') n++
  return n
}

/**
 * What the ledger reads of one message and what its pieces cost: a message's quotable facts as
 * items (once per counter, message and tool name), who wrote it and where it stands, and each
 * piece of ledger text counted once per counter.
 */
import type { Fact, FactKind } from '../messages/fact.js'
import type { Message } from '../messages/message.js'
import { quotableFacts } from '../messages/quoted-facts.js'
import { itemText, quote, type Who } from '../messages/records.js'
import { type Piecewise, piecewiseOf, type TokenCounter } from '../tokens/counter.js'
import { countInRuns } from '../tokens/runs.js'
import type { View } from './types.js'

/** Ranked before in the ledger when room is short: what a tool call needs verbatim. */
export const KIND_RANK: Record<FactKind, number> = {
  id: 0,
  email: 1,
  date: 2,
  amount: 3,
  url: 4,
  path: 5,
  quantity: 6,
  tool: 7,
}

/** Who wrote the message at view position `i`: a tool result names its tool (found in its exchange). */
export function whoOf(view: View, i: number): Who {
  const m = view.message(i)
  if (m.role === 'assistant' && m.toolCalls?.length)
    return { role: 'assistant', tools: m.toolCalls.map((c) => c.name) }
  if (m.role !== 'tool') return { role: m.role }
  if (m.toolName) return { role: 'tool', tools: [m.toolName] }
  const call = view.first(view.unitOf(i))
  const name =
    call.role === 'assistant' ? call.toolCalls?.find((c) => c.id === m.toolCallId)?.name : undefined
  return name === undefined ? { role: 'tool' } : { role: 'tool', tools: [name] }
}

/** The value under `key`, made and kept on first need. */
export function kept<K extends object, V>(map: WeakMap<K, V>, key: K, make: () => V): V {
  let value = map.get(key)
  if (value === undefined) {
    value = make()
    map.set(key, value)
  }
  return value
}

/** The place in the caller's history of view position `i` (the view's own when it does not say). */
export const placeOf = (view: View, i: number): number => view.origin?.[i] ?? i

/**
 * A bounded memo per counter (what a text costs depends on who counts it): `key` -> value,
 * made once, the oldest entry let go past `max`. A stable cut asks the same again each call.
 */
export function memoPerCounter<V extends NonNullable<unknown>>(max: number) {
  const byCounter = new WeakMap<TokenCounter, Map<string, V>>()
  // The counter asked last, and its map: a run asks with one counter, so no weak lookup a call.
  let last: { counter: TokenCounter; map: Map<string, V> } | undefined
  return (counter: TokenCounter, key: string, make: () => V): V => {
    if (last?.counter !== counter)
      last = { counter, map: kept(byCounter, counter, () => new Map<string, V>()) }
    const map = last.map
    // One lookup: a value is never undefined.
    const had = map.get(key)
    if (had !== undefined) return had
    const value = make()
    if (map.size >= max) map.delete(map.keys().next().value as string)
    map.set(key, value)
    return value
  }
}

/** A fact of one message as the ledger quotes it: read, keyed and priced once per message. */
export interface Item {
  kind: FactKind
  /** Its kind's rank (`KIND_RANK`). */
  rank: number
  /** Kind and value: a fact is listed once however many messages hold it. */
  key: string
  label: string | undefined
  value: string
  /** The value as written (`quote`), once asked for. */
  quoted?: string
  /** Tokens of ` key="value",` by the counter (an estimate of its share of the text), once asked for: most facts of a dropped message never are. */
  cost?: number
  /** Its piece's tokens before the counter's factor, once counted: `,` after, a line break after, nothing after. */
  raw?: [number?, number?, number?]
}

/**
 * An item's tokens as the fill prices it (` key="value",`), counted the first time it is
 * considered: from its piece's count when the counter counts by pieces (that count is then
 * kept for the text's count too: one tokenization an item), else counted apart.
 */
export function costOf(counter: TokenCounter, item: Item): number {
  if (item.cost === undefined) {
    const pieces = piecewiseOf(counter)
    const raw = pieces ? itemPiece(counter, pieces, item, 0) : -1
    item.cost =
      raw >= 0 && Number.isInteger(raw)
        ? (pieces?.scale(raw) ?? raw)
        : pieceTokens(counter, ` ${itemText(item.label, item.value)},`)
  }
  return item.cost
}

/** The tokens before the counter's factor of an item's piece: ` key="value"` and then `,` (0), a line break (1) or nothing (2); kept with the item. */
export function itemPiece(
  counter: TokenCounter,
  pieces: Piecewise,
  item: Item,
  after: 0 | 1 | 2,
): number {
  item.raw ??= []
  let t = item.raw[after]
  if (t === undefined) {
    item.quoted ??= quote(item.value)
    const tail = after === 0 ? ',' : after === 1 ? '\n' : ''
    t = lineTokens(counter, pieces, ` ${itemText(item.label, item.value, item.quoted)}${tail}`)
    item.raw[after] = t
  }
  return t
}

/** The quotable facts of a message as ledger items, per counter, message and tool name. */
const prepared = new WeakMap<TokenCounter, WeakMap<Message, Map<string, Item[]>>>()

export function itemsOf(
  counter: TokenCounter,
  m: Message,
  tool: string | undefined,
  known: readonly string[],
): Item[] {
  const make = (facts: readonly Fact[]): Item[] => {
    const out: Item[] = []
    // The record names the tool; its outcome is not a fact the next call needs.
    for (const f of facts)
      if (f.kind !== 'tool')
        out.push({
          kind: f.kind,
          rank: KIND_RANK[f.kind],
          key: `${f.kind}\u0000${f.value}`,
          label: f.label,
          value: f.value,
        })
    return out
  }
  // Another message's credential this one holds: read again without it (rare, not kept).
  if (known.length > 0) {
    const q = quotableFacts(m, tool, known)
    if (q !== quotableFacts(m, tool)) return make(q.facts)
  }
  const byTool = kept(
    kept(prepared, counter, () => new WeakMap()),
    m,
    () => new Map<string, Item[]>(),
  )
  let items = byTool.get(tool ?? '')
  if (!items) {
    items = make(quotableFacts(m, tool).facts)
    byTool.set(tool ?? '', items)
  }
  return items
}

export const toolOf = (who: Who): string | undefined =>
  who.role === 'tool' ? who.tools?.[0] : undefined

/** A sum of pieces' counts, -1 once one is: a fraction (priced pieces) may round otherwise summed in another order. */
export const add = (n: number, t: number): number =>
  n < 0 || t < 0 || !Number.isInteger(t) ? -1 : n + t

/**
 * Tokens of one line of ledger text before the counter's factor, counted once per counter and
 * line; -1 for a line with a run counted in slices.
 */
const lineCounts = memoPerCounter<number>(50_000)

export function lineTokens(counter: TokenCounter, pieces: Piecewise, line: string): number {
  return lineCounts(counter, line, () => (countInRuns(line, () => 0) > 0 ? -1 : pieces.text(line)))
}

/** A user message holding the heading alone, counted once per counter. */
const overheads = memoPerCounter<number>(2)

export function headingTokens(counter: TokenCounter, heading: string): number {
  return overheads(counter, heading, () => counter.countMessage({ role: 'user', content: heading }))
}

/** Tokens of a piece of ledger text, counted once per counter and text. */
const pieceCounts = memoPerCounter<number>(100_000)

export function pieceTokens(counter: TokenCounter, text: string): number {
  return pieceCounts(counter, text, () => counter.countText(text))
}

/** Whether `m`'s items for `tool` are read already under `counter`. */
export const isRead = (counter: TokenCounter, m: Message, tool: string | undefined): boolean =>
  prepared
    .get(counter)
    ?.get(m)
    ?.has(tool ?? '') === true

export function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false
  for (let k = a.length - 1; k >= 0; k--) if (a[k] !== b[k]) return false
  return true
}

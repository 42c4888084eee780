/**
 * The ledger's window as a tally: a slot per dropped message with its items, each fact
 * numbered and counted, moved to each new window by the messages that left and came.
 */
import type { Message } from '../messages/message.js'
import { messageSecrets } from '../messages/quoted-facts.js'
import type { Who } from '../messages/records.js'
import type { TokenCounter } from '../tokens/counter.js'
import { type Item, itemsOf, kept, placeOf, toolOf, whoOf } from './ledger-items.js'
import type { View } from './types.js'

/** The window's facts: how many times each occurs, by a number given to each fact once. */
/** A window slot: a dropped message and what the ledger reads from it, kept while it stays in the window. */
export interface Slot {
  /** Its view position. */
  position: number
  message: Message
  /** Its place in the caller's history. */
  place: number
  who: Who
  items: Item[]
  /** The number of each item's fact in the tally. */
  ids: Int32Array
  /** Whether the message holds a credential. */
  secret: boolean
  /** Its line opening, once made. */
  opening?: Opening
  /** Its last line and the items it lists (their indexes): a build that lists the same reuses it. */
  line?: { idxs: number[]; line: Line }
}

export interface Tally {
  /** The window's slots, by position ascending. */
  slots: Slot[]
  /** Slots whose message holds a credential (then every message is read against them). */
  secretHolders: number
  /** Facts by their number, and how many times each occurs in the window. */
  numbers: Map<string, number>
  counts: Int32Array
  /** The build that last took each fact (`walked`), by fact number. */
  taken: Float64Array
  /** Facts occurring in the window. */
  size: number
  /** The last ledger made from it, with its heading and lines: the same lines make the same ledger. */
  last?: { heading: string; body: readonly Line[]; made: Made }
}

/** A window holds at most this many messages (its tokens are bounded too; a counter may say 0). */
export const WINDOW_MESSAGES = 4096

/** The tally kept per counter and history array: moved to each new window by what left and what came. */
const tallies = new WeakMap<TokenCounter, WeakMap<readonly Message[], Tally>>()

const emptyTally = (): Tally => ({
  slots: [],
  secretHolders: 0,
  numbers: new Map(),
  counts: new Int32Array(64),
  taken: new Float64Array(64),
  size: 0,
})

/**
 * The facts of the messages at `window`: the kept tally moved by the messages that left the
 * window and those that entered it (a cut moves by a few messages), so a ledger costs what
 * changed, not the window. A message read before must be the same object at the same place,
 * else the tally is read again. When a message in the window holds a credential, every
 * message is read against it (a fresh tally, not kept): the rare case.
 */
export function tallied(view: View, window: readonly number[]): Tally {
  const counter = view.counter
  const byArray = kept(tallies, counter, () => new WeakMap<readonly Message[], Tally>())
  let tally = byArray.get(view.messages) ?? emptyTally()
  // What stays must be what was read: the same message object at the same place. A history
  // whose facts were numbered far past what its window holds starts again (bounded memory).
  if (tally.numbers.size > 8 * (tally.size + 1024)) tally = emptyTally()
  for (let a = 0, b = 0; a < tally.slots.length && b < window.length; ) {
    const slot = tally.slots[a] as Slot
    const q = window[b] as number
    if (slot.position < q) a++
    else if (q < slot.position) b++
    else {
      if (slot.message !== view.message(q) || slot.place !== placeOf(view, q)) {
        tally = emptyTally()
        break
      }
      a++
      b++
    }
  }
  const old = tally.slots
  const next: Tally = { ...tally, slots: [] }
  let a = 0
  const out = (slot: Slot) => {
    count(next, slot.ids, -1)
    if (slot.secret) next.secretHolders--
  }
  for (const q of window) {
    // Those before `q` that the new window does not hold leave.
    while (a < old.length && (old[a] as Slot).position < q) out(old[a++] as Slot)
    if (a < old.length && (old[a] as Slot).position === q) {
      next.slots.push(old[a++] as Slot)
      continue
    }
    const m = view.message(q)
    const who = whoOf(view, q)
    const items = itemsOf(counter, m, toolOf(who), [])
    const ids = numbered(next, items)
    count(next, ids, 1)
    const secret = messageSecrets(m).length > 0
    if (secret) next.secretHolders++
    next.slots.push({
      position: q,
      message: m,
      place: placeOf(view, q),
      who,
      items,
      ids,
      opening: undefined,
      line: undefined,
      secret,
    })
  }
  while (a < old.length) out(old[a++] as Slot)
  byArray.set(view.messages, next)
  if (next.secretHolders === 0) return next
  // A credential one message holds is quoted from none: a token under `password` in one
  // result and bare in the next is still a token.
  const secrets = next.slots.flatMap((slot) => messageSecrets(slot.message))
  const read = emptyTally()
  const slots = next.slots.map((slot): Slot => {
    const items = itemsOf(counter, slot.message, toolOf(slot.who), secrets)
    const ids = numbered(read, items)
    count(read, ids, 1)
    return { ...slot, items, ids, line: undefined }
  })
  return { ...read, slots, secretHolders: next.secretHolders }
}

/** The numbers of `items`' facts in `tally`, a new fact given the next number. */
function numbered(tally: Tally, items: readonly Item[]): Int32Array {
  const ids = new Int32Array(items.length)
  items.forEach((item, k) => {
    let id = tally.numbers.get(item.key)
    if (id === undefined) {
      id = tally.numbers.size
      tally.numbers.set(item.key, id)
    }
    ids[k] = id
  })
  if (tally.numbers.size > tally.counts.length) {
    const length = Math.max(tally.numbers.size, tally.counts.length * 2)
    const grown = new Int32Array(length)
    grown.set(tally.counts)
    tally.counts = grown
    const taken = new Float64Array(length)
    taken.set(tally.taken)
    tally.taken = taken
  }
  return ids
}

/** A message's facts counted in (`by` 1) or out (-1). */
function count(tally: Tally, ids: Int32Array, by: 1 | -1): void {
  for (const id of ids) {
    const before = tally.counts[id] as number
    tally.counts[id] = before + by
    if (before === 0) tally.size++
    else if (before + by === 0) tally.size--
  }
}

/** A record line's opening for a window slot (its place and writer), made and priced once per slot. */
export interface Opening {
  text: string
  /** Tokens of the line break and the opening, as the greedy fill prices a new line. */
  cost: number
  /** Its piece's tokens before the counter's factor, once counted. */
  raw?: number
}

/** A record line: `message N by WHO:`, then its items joined by `, `. */
export interface Line {
  opening: Opening
  parts: string[]
  /** The item of each part, when each part is one. */
  items: Item[] | undefined
  /** The line as written (without its line break). */
  text: string
  /** Its text's number (`textId`) and the numbering it is from, once asked for. */
  id?: number
  epoch?: number
  /** Its pieces' tokens before the counter's factor, followed by a line break (0) or last (1), once counted. */
  raw?: [number?, number?]
}

/** A ledger: its message (one object per text, so the counter's own cache knows it) and tokens. */
export interface Made {
  message: Message
  tokens: number
  /** View positions of the messages it quotes. */
  replaces?: number[]
}

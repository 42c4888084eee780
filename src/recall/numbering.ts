// One numbering for the messages the model reads about: the ledger's `message N`, a summary's
// range, a shortened result's note and recall's numbers are all the index in the caller's own
// history. A fit's input is that history as the library reads it; when an adapter adds a
// system prompt the caller gave apart (the AI SDK's `system`, LangChain's `systemPrompt`, an
// agent's instructions), or one entry of the caller's reads as several messages (an AI SDK tool
// message with two results, an Agents SDK model turn of several items), the input's positions
// are not the caller's: the adapter says which they are, here, before it fits or recalls.
import type { Message } from '../messages/message.js'

/**
 * The caller's number of each input message, by the input's first message (the adapter's
 * own object: a system prompt it made, or a message it decoded), with the input's length.
 */
const numberings = new WeakMap<object, { length: number; places: Int32Array }>()

/**
 * Says that `input`'s messages are numbered `places` for the model: `places[i]` is the index
 * in the caller's history of the entry input message `i` was read from, -1 for one that is not
 * the caller's (a system prompt given apart). Nothing is kept when `places` is the identity.
 * Holds for fits and recalls of an array whose first message is `input[0]` and of its length.
 */
export function numberAs(input: readonly Message[], places: ArrayLike<number>): void {
  const head = input[0]
  if (!head || typeof head !== 'object') return
  let identity = places.length === input.length
  for (let i = 0; identity && i < places.length; i++) identity = places[i] === i
  if (identity) numberings.delete(head)
  else numberings.set(head, { length: input.length, places: Int32Array.from(places) })
}

/** The caller's numbers of `input`'s messages, when an adapter gave them (undefined: their positions). */
export function numberingOf(input: readonly Message[]): Int32Array | undefined {
  const head = input[0]
  const known = head && typeof head === 'object' ? numberings.get(head) : undefined
  return known && known.length === input.length ? known.places : undefined
}

/**
 * `origin` (the input position of each message a strategy sees) as the numbers the model
 * reads: itself unless an adapter numbered `input` otherwise.
 */
export function shownOrigin(
  input: readonly Message[],
  origin: ArrayLike<number>,
): ArrayLike<number> {
  const places = numberingOf(input)
  if (!places) return origin
  const out = new Int32Array(origin.length)
  for (let k = 0; k < origin.length; k++) {
    const i = origin[k] as number
    out[k] = i >= 0 && i < places.length ? (places[i] as number) : -1
  }
  return out
}

/**
 * The numbering recall reads a history by: the number of a position, and the positions of
 * a number (several when one entry of the caller's was read as several messages).
 */
export interface Numbering {
  numberOf(i: number): number
  positionsOf(n: number): readonly number[]
}

const IDENTITY: Numbering = {
  numberOf: (i) => i,
  positionsOf: (n) => [n],
}

/** How recall numbers `history`'s messages: the adapter's numbering when it gave one, else their positions. */
export function numberingFor(history: readonly Message[]): Numbering {
  const places = numberingOf(history)
  if (!places) return IDENTITY
  let byNumber: Map<number, number[]> | undefined
  return {
    numberOf: (i) => (i >= 0 && i < places.length ? (places[i] as number) : -1),
    positionsOf: (n) => {
      if (!byNumber) {
        byNumber = new Map()
        places.forEach((p, i) => {
          if (p < 0) return
          const list = byNumber?.get(p)
          if (list) list.push(i)
          else byNumber?.set(p, [i])
        })
      }
      return byNumber.get(n) ?? []
    },
  }
}

/**
 * Numbers for entries read one at a time: `owner[i]` is the entry message `i` came from,
 * -1 for one the adapter added; `shift` is subtracted (the entries before the caller's own),
 * `first` maps an entry to the caller's index of it (the first item of a group).
 */
export function placesOfOwners(
  owner: readonly number[],
  shift = 0,
  first?: (entry: number) => number | undefined,
): number[] {
  return owner.map((e) => {
    if (e < 0) return -1
    const at = first ? first(e) : e
    return at === undefined || at - shift < 0 ? -1 : at - shift
  })
}

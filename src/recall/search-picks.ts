/**
 * Which messages a search shows: for each term in its order, the message that best holds it
 * (the shortest first for a one-word term), then the rest by their whole score.
 */

import type { LeftOut } from './left-out.js'
import { isJoined } from './query-terms.js'
import { type RecallIndex, sortedHas } from './recall-index.js'

/** Whether message `a` (score `sa`) ranks before `b` (score `sb`): higher score, then newer. */
export function before(sa: number, a: number, sb: number, b: number): boolean {
  return sa > sb || (sa === sb && a > b)
}

/** The messages of the fewest words holding a word, and that number of words. */
export interface Shortest {
  length: number
  at: number[]
}

/**
 * The best of a one-word term's shortest messages not taken yet (the higher whole score,
 * then the newer), or undefined when all are taken (the next shortest are found by reading
 * its postings again).
 */
export function pickShortest(
  short: Shortest | undefined,
  score: Float64Array,
  taken: Uint8Array,
): number | undefined {
  if (!short) return undefined
  let best = -1
  for (const k of short.at)
    if (taken[k] === 0 && (best < 0 || before(score[k] as number, k, score[best] as number, best)))
      best = k
  return best >= 0 ? best : short.at.length === 0 ? -1 : undefined
}

/**
 * The message not taken yet that best holds `term` (its words' weights, by the message's
 * length), ties to the higher whole score, then the newer; -1 when none holds it.
 */
export function bestFor(
  term: readonly string[],
  index: RecallIndex,
  left: LeftOut,
  weight: ReadonlyMap<string, number>,
  norm: (k: number) => number,
  score: Float64Array,
  termScore: Float64Array,
  taken: Uint8Array,
  met: Int32Array,
): number {
  let best = -1
  if (term.length === 1) {
    // One word: its best holder is the shortest (its weight by a norm that falls with length).
    const at = index.holding(term[0] as string)
    const lengths = index.lengths
    let shortest = Number.POSITIVE_INFINITY
    for (let j = 0; j < at.length; j++) {
      const k = at[j] as number
      if (taken[k] === 1 || !left.has(k)) continue
      const n = lengths[k] as number
      if (
        n < shortest ||
        (n === shortest && before(score[k] as number, k, score[best] as number, best))
      ) {
        shortest = n
        best = k
      }
    }
    return best
  }
  let bestScore = 0
  let count = 0
  for (const w of term) {
    const wt = weight.get(w) as number
    const at = index.holding(w)
    for (let j = 0; j < at.length; j++) {
      const k = at[j] as number
      if (!left.has(k)) continue
      if (termScore[k] === 0) met[count++] = k
      termScore[k] = (termScore[k] as number) + wt * norm(k)
    }
  }
  // An identifier joined by `_`, `.` or `-` is matched whole: a message holding it whole
  // comes before one holding only some of its parts (the neighbouring id's).
  const whole = isJoined(term) ? index.holding(term[0] as string) : undefined
  let wholeMet = false
  if (whole)
    for (let j = 0; j < count && !wholeMet; j++) {
      const k = met[j] as number
      wholeMet = taken[k] === 0 && sortedHas(whole, k)
    }
  for (let j = 0; j < count; j++) {
    const k = met[j] as number
    const t = termScore[k] as number
    termScore[k] = 0
    if (taken[k] === 1 || (wholeMet && !sortedHas(whole as Int32Array, k))) continue
    if (
      best < 0 ||
      t > bestScore ||
      (t === bestScore && before(score[k] as number, k, score[best] as number, best))
    ) {
      best = k
      bestScore = t
    }
  }
  return best
}

/** The `n` best of `list` by `score` (then newer), those `taken` left out, best first. */
export function topByScore(
  list: Int32Array,
  count: number,
  score: Float64Array,
  taken: Uint8Array,
  n: number,
): number[] {
  if (n <= 0) return []
  // A heap of the n best so far whose root is the worst of them.
  const heap: number[] = []
  const after = (a: number, b: number) => before(score[b] as number, b, score[a] as number, a)
  for (let j = 0; j < count; j++) {
    const k = list[j] as number
    if (taken[k] === 1) continue
    let i: number
    if (heap.length < n) {
      heap.push(k)
      i = heap.length - 1
      while (i > 0) {
        const p = (i - 1) >> 1
        const up = heap[p] as number
        if (!after(k, up)) break
        heap[i] = up
        i = p
      }
      heap[i] = k
      continue
    }
    if (!after(heap[0] as number, k)) continue
    i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= heap.length) break
      const r = l + 1
      let c = l
      if (r < heap.length && after(heap[r] as number, heap[l] as number)) c = r
      const child = heap[c] as number
      if (!after(child, k)) break
      heap[i] = child
      i = c
    }
    heap[i] = k
  }
  return heap.sort((a, b) => (before(score[a] as number, a, score[b] as number, b) ? -1 : 1))
}

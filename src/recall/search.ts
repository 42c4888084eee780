import type { RecallIndex } from './recall-index.js'
import { queryTerms } from './terms.js'

/** BM25's usual constants. */
const K1 = 1.2
const B = 0.75

/**
 * The messages a recall may return: those the fit left out (not sent in any form, not taken
 * out as invalid), never a system prompt. Made from what is closed, which is what the
 * request holds (its size, not the history's).
 */
export class LeftOut {
  /** Messages that may be recalled. */
  readonly count: number
  /** Distinct positions that may not (sent, invalid, system prompts). */
  readonly closed: number[]
  /** Mean distinct words of the messages that may be recalled. */
  readonly meanLength: number
  private readonly shut: Uint8Array

  constructor(
    index: RecallIndex,
    readonly length: number,
    ...notRecallable: Iterable<number>[]
  ) {
    this.shut = new Uint8Array(length)
    const closed: number[] = []
    let closedLength = 0
    for (const list of notRecallable)
      for (const i of list) {
        if (!(i >= 0 && i < length) || this.shut[i] === 1) continue
        this.shut[i] = 1
        closed.push(i)
        closedLength += index.lengths[i] as number
      }
    this.closed = closed
    this.count = length - closed.length
    // The mean over what may be recalled, as BM25 reads it (lengths are whole numbers: exact).
    this.meanLength = (index.totalLength - closedLength) / Math.max(1, this.count)
  }

  /** Whether message `i` may be recalled. */
  has(i: number): boolean {
    return i >= 0 && i < this.length && this.shut[i] === 0
  }
}

/** Scores by message, reused between searches (reset after each). */
let scratch = new Float64Array(0)
let scratchTerm = new Float64Array(0)

function buffers(n: number): [Float64Array, Float64Array] {
  if (scratch.length < n) {
    scratch = new Float64Array(Math.max(n, scratch.length * 2))
    scratchTerm = new Float64Array(scratch.length)
  }
  return [scratch, scratchTerm]
}

/** Whether message `a` (score `sa`) ranks before `b` (score `sb`): higher score, then newer. */
function before(sa: number, a: number, sb: number, b: number): boolean {
  return sa > sb || (sa === sb && a > b)
}

/**
 * Left-out messages matching `query`, best first, at most `limit`: for each of the query's
 * terms in turn (a tool's argument names are each a term), the message that best holds it;
 * then the others by their whole score, ties to the newer message.
 *
 * BM25 over word presence: a rarer word weighs more, and a short message holding it more
 * than a long one holding it among much else. Its word weights and mean length are over the
 * messages that may be recalled (as the ranking always was); a word's count among them is
 * its postings less the closed messages holding it (what the request holds), so a search
 * costs the postings of the query's words, never the history.
 */
export function search(index: RecallIndex, left: LeftOut, query: string, limit: number): number[] {
  const { words, terms } = queryTerms(query)
  if (terms.length === 0 || left.count === 0 || limit <= 0) return []
  const lengths = index.lengths
  const mean = Math.max(1, left.meanLength)
  const norm = (k: number) => (K1 + 1) / (1 + K1 * (1 - B + (B * (lengths[k] as number)) / mean))
  const weight = new Map<string, number>()
  for (const w of words) {
    const at = index.holding(w)
    let holding = 0
    if (left.closed.length * 16 < at.length) {
      holding = at.length
      for (const c of left.closed) if (index.holds(c, w)) holding--
    } else for (const k of at) if (left.has(k)) holding++
    weight.set(w, Math.log(1 + (left.count - holding + 0.5) / (holding + 0.5)))
  }
  const [score, termScore] = buffers(left.length)
  const matched: number[] = []
  try {
    for (const w of words) {
      const wt = weight.get(w) as number
      for (const k of index.holding(w)) {
        if (!left.has(k)) continue
        // Every weight is above 0: a message first met is at 0.
        if (score[k] === 0) matched.push(k)
        score[k] = (score[k] as number) + wt * norm(k)
      }
    }
    // The tool the query names: its results and calls hold what its next call needs. Such a
    // message holds the name as a word, so it is among those matched.
    const asked = new Set(words)
    for (const k of matched)
      if (index.who[k]?.tools?.some((t) => asked.has(t.toLowerCase())))
        score[k] = (score[k] as number) + 1
    const out: number[] = []
    const taken = new Set<number>()
    for (const term of terms) {
      if (out.length >= limit) break
      const met: number[] = []
      for (const w of term) {
        const wt = weight.get(w) as number
        for (const k of index.holding(w)) {
          if (!left.has(k)) continue
          if (termScore[k] === 0) met.push(k)
          termScore[k] = (termScore[k] as number) + wt * norm(k)
        }
      }
      let best = -1
      for (const k of met) {
        if (taken.has(k)) continue
        const t = termScore[k] as number
        const b = best < 0 ? 0 : (termScore[best] as number)
        if (
          best < 0 ||
          t > b ||
          (t === b && before(score[k] as number, k, score[best] as number, best))
        )
          best = k
      }
      for (const k of met) termScore[k] = 0
      if (best >= 0) {
        out.push(best)
        taken.add(best)
      }
    }
    for (const k of topByScore(matched, score, taken, limit - out.length)) out.push(k)
    return out
  } finally {
    for (const k of matched) score[k] = 0
  }
}

/** The `n` best of `list` by `score` (then newer), `taken` left out, best first. */
function topByScore(list: readonly number[], score: Float64Array, taken: Set<number>, n: number) {
  if (n <= 0) return []
  // A min-heap of the n best so far: its root is the worst of them.
  const heap: number[] = []
  const worse = (a: number, b: number) => before(score[b] as number, b, score[a] as number, a) // a ranks after b
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let w = i
      if (l < heap.length && worse(heap[l] as number, heap[w] as number)) w = l
      if (r < heap.length && worse(heap[r] as number, heap[w] as number)) w = r
      if (w === i) return
      ;[heap[i], heap[w]] = [heap[w] as number, heap[i] as number]
      i = w
    }
  }
  for (const k of list) {
    if (taken.has(k)) continue
    if (heap.length < n) {
      heap.push(k)
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1
        if (!worse(heap[i] as number, heap[p] as number)) break
        ;[heap[i], heap[p]] = [heap[p] as number, heap[i] as number]
        i = p
      }
    } else if (worse(heap[0] as number, k)) {
      heap[0] = k
      down(0)
    }
  }
  return heap.sort((a, b) => (before(score[a] as number, a, score[b] as number, b) ? -1 : 1))
}

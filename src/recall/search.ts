import { type RecallIndex, sortedHas } from './recall-index.js'
import { isIdentifier, isJoined, type QueryTerms, queryTerms } from './terms.js'

/**
 * Postings a search reads beyond its rarest word's: the query's words are read rarest first,
 * and the commonest are left unread once the others fill this. A long query (a pasted message)
 * so costs about what a short one does; a word held by a large share of the history says
 * little of which message is meant.
 */
export const QUERY_POSTINGS = 1 << 16

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
  /** 1 for each position that may not be recalled. */
  readonly shut: Uint8Array

  constructor(
    index: RecallIndex,
    readonly length: number,
    ...notRecallable: Iterable<number>[]
  ) {
    // Sized to the index: a message it read past `length` is not recalled either.
    this.shut = new Uint8Array(Math.max(length, index.length))
    this.shut.fill(1, length)
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

interface Buffers {
  score: Float64Array
  termScore: Float64Array
  taken: Uint8Array
  matched: Int32Array
  met: Int32Array
}

/**
 * Scores by message, marks and lists of messages met: kept with the index they serve (and
 * let go with it), reused between its searches, each reset after use.
 */
const buffersOf = new WeakMap<RecallIndex, Buffers>()

function buffers(index: RecallIndex, n: number): Buffers {
  const had = buffersOf.get(index)
  if (had && had.score.length >= n) return had
  const size = Math.max(n, (had?.score.length ?? 0) * 2)
  const made = {
    score: new Float64Array(size),
    termScore: new Float64Array(size),
    taken: new Uint8Array(size),
    matched: new Int32Array(size),
    met: new Int32Array(size),
  }
  buffersOf.set(index, made)
  return made
}

/** Whether message `a` (score `sa`) ranks before `b` (score `sb`): higher score, then newer. */
function before(sa: number, a: number, sb: number, b: number): boolean {
  return sa > sb || (sa === sb && a > b)
}

/**
 * Left-out messages matching `query`, best first, at most `limit`: for each of the query's
 * terms in turn, identifiers first (a tool's argument names are each a term), the message
 * that best holds it (an identifier joined by `_`, `.` or `-` held whole before in parts);
 * then the others by their whole score, ties to the newer message.
 *
 * BM25 over word presence: a rarer word weighs more, and a short message holding it more
 * than a long one holding it among much else. Its word weights and mean length are over the
 * messages that may be recalled (as the ranking always was); a word's count among them is
 * its postings less the closed messages holding it (what the request holds), so a search
 * costs the postings of the query's words, never the history.
 */
export function search(
  index: RecallIndex,
  left: LeftOut,
  query: string,
  limit: number,
  postings = QUERY_POSTINGS,
): number[] {
  const { words, terms } = readable(index, queryTerms(query), postings)
  if (terms.length === 0 || left.count === 0 || limit <= 0) return []
  const lengths = index.lengths
  const mean = Math.max(1, left.meanLength)
  // BM25's length norm by a message's number of words (at most the longest message's).
  const byLength = new Float64Array(index.longest + 1)
  for (let n = 0; n < byLength.length; n++)
    byLength[n] = (K1 + 1) / (1 + K1 * (1 - B + (B * n) / mean))
  const norm = (k: number) => byLength[lengths[k] as number] as number
  const shut = left.shut
  const weight = new Map<string, number>()
  // The words some message that may be recalled holds (a word none holds orders nothing).
  const held = new Set<string>()
  for (const w of words) {
    const at = index.holding(w)
    let holding = 0
    if (left.closed.length * 16 < at.length) {
      holding = at.length
      for (const c of left.closed) if (sortedHas(at, c)) holding--
    } else for (let j = 0; j < at.length; j++) if (left.has(at[j] as number)) holding++
    weight.set(w, Math.log(1 + (left.count - holding + 0.5) / (holding + 0.5)))
    if (holding > 0) held.add(w)
  }
  const { score, termScore, taken, matched, met } = buffers(index, left.length)
  let count = 0
  const out: number[] = []
  // A term of one word is best held by its shortest message (the norm falls with length):
  // those are noted as its postings are scored, so the term needs no second reading of them.
  const alone = new Set(terms.filter((t) => t.length === 1).map((t) => t[0] as string))
  const shortest = new Map<string, Shortest>()
  try {
    for (const w of words) {
      const wt = weight.get(w) as number
      const at = index.holding(w)
      const short: Shortest | undefined = alone.has(w)
        ? { length: Number.POSITIVE_INFINITY, at: [] }
        : undefined
      for (let j = 0; j < at.length; j++) {
        const k = at[j] as number
        if (shut[k] === 1) continue
        // Every weight is above 0: a message first met is at 0.
        if (score[k] === 0) matched[count++] = k
        const n = lengths[k] as number
        score[k] = (score[k] as number) + wt * (byLength[n] as number)
        if (short && n <= short.length) {
          if (n < short.length) {
            short.length = n
            short.at.length = 0
          }
          short.at.push(k)
        }
      }
      if (short) shortest.set(w, short)
    }
    // The tool the query names: its results and calls hold what its next call needs.
    // Such a message holds the name as a word, so it is among those matched; each gets it once.
    const named: number[] = []
    for (const w of words)
      for (const k of index.ofTool(w)) {
        if (!left.has(k) || taken[k] === 1) continue
        taken[k] = 1
        named.push(k)
      }
    for (const k of named) {
      taken[k] = 0
      if (score[k] === 0) matched[count++] = k
      score[k] = (score[k] as number) + 1
    }
    for (const term of byWeight(terms, weight, held)) {
      if (out.length >= limit) break
      const best =
        pickShortest(shortest.get(term.length === 1 ? (term[0] as string) : ''), score, taken) ??
        bestFor(term, index, left, weight, norm, score, termScore, taken, met)
      if (best >= 0) {
        out.push(best)
        taken[best] = 1
      }
    }
    for (const k of topByScore(matched, count, score, taken, limit - out.length)) out.push(k)
    return out
  } finally {
    for (let j = 0; j < count; j++) score[matched[j] as number] = 0
    for (const k of out) taken[k] = 0
  }
}

/**
 * The words and terms of a query a search reads: its words rarest first (by their postings,
 * ties in the query's order) while the postings read stay within `budget` (the rarest word a
 * message holds always read); a term with the words of it that are read, when its first word (an
 * identifier's whole) is.
 */
export function readable(index: RecallIndex, asked: QueryTerms, budget: number): QueryTerms {
  const sizes = asked.words.map((w, k) => ({ w, k, n: index.holding(w).length }))
  let total = 0
  for (const x of sizes) total += x.n
  if (total <= budget) return asked
  sizes.sort((a, b) => a.n - b.n || a.k - b.k)
  const read = new Set<string>()
  let used = 0
  for (const { w, n } of sizes) {
    // The first word some message holds is read whatever it costs (one none holds costs nothing).
    if (used > 0 && used + n > budget) break
    read.add(w)
    used += n
  }
  const terms: string[][] = []
  for (const t of asked.terms)
    if (read.has(t[0] as string)) terms.push(t.filter((w) => read.has(w)))
  return { words: asked.words.filter((w) => read.has(w)), terms }
}

/**
 * The order terms take their best holder in: identifiers first, as the query names them;
 * then the other terms rarest first (by their rarest word some message that may be recalled
 * holds), ties to the longer word (a function word is short), then in the query's order. A question's common words (`hat`, `der`, `mit`, in
 * any language, with no list of them) so come after the word it is about.
 */
function byWeight(
  terms: readonly (readonly string[])[],
  weight: ReadonlyMap<string, number>,
  held: ReadonlySet<string>,
): (readonly string[])[] {
  const ids = terms.filter(isIdentifier)
  /** A term's rarest held word: its weight, and its length (the longer first among equals). */
  const rarest = (t: readonly string[]) => {
    let most = 0
    let long = 0
    for (const w of t) {
      if (!held.has(w)) continue
      const x = weight.get(w) ?? 0
      if (x > most || (x === most && w.length > long)) {
        most = x
        long = w.length
      }
    }
    return { most, long }
  }
  const others = terms
    .filter((t) => !isIdentifier(t))
    .map((t, k) => ({ t, k, ...rarest(t) }))
    .sort((a, b) => b.most - a.most || b.long - a.long || a.k - b.k)
    .map((x) => x.t)
  return [...ids, ...others]
}

/** The messages of the fewest words holding a word, and that number of words. */
interface Shortest {
  length: number
  at: number[]
}

/**
 * The best of a one-word term's shortest messages not taken yet (the higher whole score,
 * then the newer), or undefined when all are taken (the next shortest are found by reading
 * its postings again).
 */
function pickShortest(
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
function bestFor(
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
function topByScore(
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

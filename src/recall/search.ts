import type { LeftOut } from './left-out.js'
import { isIdentifier, type QueryTerms, queryTerms } from './query-terms.js'
import { type RecallIndex, sortedHas } from './recall-index.js'
import { bestFor, pickShortest, type Shortest, topByScore } from './search-picks.js'

/**
 * Postings a search reads beyond its rarest word's: the query's words are read rarest first,
 * and the commonest are left unread once the others fill this. A long query (a pasted message)
 * so costs about what a short one does; a word held by a large share of the history says
 * little of which message is meant.
 */
export const QUERY_POSTINGS = 1 << 14

/** BM25's usual constants. */
const K1 = 1.2
const B = 0.75

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

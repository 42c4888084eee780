import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import { messageTerms, newestUserText, type Scorer, terms_ } from './scorers.js'
import type { View } from './types.js'

export interface CooccurringOptions {
  /** The text to expand; default: the view's query, else the newest user message. */
  query?: string
  /** How many co-occurring words join the query. Default 20. */
  terms?: number
  /** Units apart two words may be and still co-occur (0: the same unit). Default 1: a question and its answer. */
  window?: number
  /** Units near a query word a word must be in to join the query. Default 2. */
  minCount?: number
}

const EMPTY: readonly string[] = []

/** Each message's distinct terms, numbers left out, once per message object. */
const distinctCache = new WeakMap<Message, readonly string[]>()
function distinctTerms(m: Message): readonly string[] {
  let t = distinctCache.get(m)
  if (!t) {
    t = [...new Set(messageTerms(m))].filter((x) => !/^\d+$/.test(x))
    distinctCache.set(m, t)
  }
  return t
}

/**
 * Words that go with the query's words in this conversation: for each query word, the words
 * of the units holding it or within `window` units of one (a question and its answer),
 * weighted by how much more often they appear there than anywhere (log lift) and by how rare
 * both words are (idf); numbers are left out. The `terms` best join the query, and each unit
 * scores the summed weight of those it holds (the query's own words score nothing here: BM25
 * counts them). Finds "running" for a question about "de-stress" when one answered the other
 * earlier in the conversation, without a model.
 */
export function cooccurring(options: CooccurringOptions = {}): Scorer {
  requireOptions(options, 'cooccurring', ['query', 'terms', 'window', 'minCount'])
  requireArgument(
    options.query === undefined || typeof options.query === 'string',
    'cooccurring',
    'query',
    'a string',
    options.query,
  )
  for (const key of ['terms', 'window', 'minCount'] as const) {
    const v = options[key]
    if (v !== undefined && !(Number.isInteger(v) && v >= 0 && v <= 1000))
      throw new InvalidOptionError(key, `expected an integer in [0, 1000], got ${describeValue(v)}`)
  }
  const { terms: k = 20, window = 1, minCount = 2 } = options
  return (view: View) => {
    const n = view.unitCount
    const out = new Array<number>(n).fill(0)
    const query = options.query ?? view.query ?? newestUserText(view)
    const wanted = new Set(terms_(query))
    if (wanted.size === 0 || n < 2) return out
    // Statistics over every unit but the newest user turn (usually the question itself).
    const skip = view.newestUser()
    const units: (readonly string[])[] = []
    // Where each query word is.
    const holding = new Map<string, number[]>()
    for (const q of wanted) holding.set(q, [])
    for (let u = 0; u < n; u++) {
      let list = EMPTY
      if (u !== skip) {
        const a = view.start(u)
        const b = view.end(u)
        if (b - a === 1) list = distinctTerms(view.message(a))
        else {
          const set = new Set<string>()
          for (let i = a; i < b; i++) for (const t of distinctTerms(view.message(i))) set.add(t)
          list = [...set]
        }
      }
      units.push(list)
      for (const t of list) holding.get(t)?.push(u)
    }
    const total = n - (skip >= 0 ? 1 : 0)
    // The words near each query word, counted once per unit.
    const cos: [string, number, Map<string, number>][] = []
    for (const q of wanted) {
      const at = holding.get(q) ?? []
      if (at.length === 0) continue
      const near = new Uint8Array(n)
      for (const u of at)
        for (let v = Math.max(0, u - window); v <= Math.min(n - 1, u + window); v++)
          if (v !== skip) near[v] = 1
      let m = 0
      const co = new Map<string, number>()
      for (let u = 0; u < n; u++) {
        if (!near[u]) continue
        m++
        for (const t of units[u] ?? []) if (!wanted.has(t)) co.set(t, (co.get(t) ?? 0) + 1)
      }
      for (const [t, c] of co) if (c < minCount) co.delete(t)
      cos.push([q, m, co])
    }
    // Document frequencies, of the query words and the words that may join them only.
    const df = new Map<string, number>()
    for (const [q, , co] of cos) {
      df.set(q, holding.get(q)?.length ?? 0)
      for (const t of co.keys()) df.set(t, 0)
    }
    for (const list of units)
      for (const t of list) {
        const d = df.get(t)
        if (d !== undefined && !wanted.has(t)) df.set(t, d + 1)
      }
    const idf = (t: string) => Math.log(1 + total / (df.get(t) || 1))
    const weight = new Map<string, number>()
    for (const [q, m, co] of cos)
      for (const [t, c] of co) {
        const lift = c / m / ((df.get(t) || 1) / total)
        if (lift <= 1) continue
        weight.set(t, (weight.get(t) ?? 0) + idf(q) * Math.log(lift) * idf(t))
      }
    const chosen = [...weight].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, k)
    if (chosen.length === 0) return out
    const w = new Map(chosen)
    for (let u = 0; u < n; u++) {
      if (u === skip) continue
      let s = 0
      for (const t of units[u] ?? []) s += w.get(t) ?? 0
      out[u] = s
    }
    return out
  }
}

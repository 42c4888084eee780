import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import { messageTerms, newestUserText, terms_ } from './query-terms.js'
import type { Scorer } from './scorers.js'
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

/**
 * Where each word is in a history: each term numbered, each message's distinct terms by
 * number, and for each term the positions of the messages holding it, ascending. Kept per
 * history (by its first message) and brought up to date on each read, so a history that
 * grows, or whose newest messages change (a new question in place of the last), pays for its
 * new messages only, not for every message on every fit.
 */
interface TermIndex {
  /** The messages indexed, in order: a view whose message at a position differs is re-read from there. */
  messages: Message[]
  /** Each indexed message's distinct terms, by number. */
  held: number[][]
  /** Term -> its number. */
  ids: Map<string, number>
  /** Term number -> the term. */
  names: string[]
  /** Term number -> positions of the messages holding it, ascending. */
  postings: number[][]
}

/**
 * One index per first message. Histories opening with the same message object (one system
 * prompt object for every user) share it, and a fit of one re-reads its messages past the
 * part they share: as costly as reading every unit, as before the index, not more.
 */
const indexCache = new WeakMap<Message, TermIndex>()

/** The term index of the view's messages, made or brought up to date. */
function termIndex(view: View): TermIndex {
  const count = view.messages.length
  const first = view.message(0)
  let index = indexCache.get(first)
  if (!index) {
    index = { messages: [], held: [], ids: new Map(), names: [], postings: [] }
    indexCache.set(first, index)
  }
  // The first position where the indexed history and this one part.
  let same = 0
  const upTo = Math.min(index.messages.length, count)
  while (same < upTo && index.messages[same] === view.message(same)) same++
  const { messages, held, ids, names, postings } = index
  // Messages from there on are forgotten, newest first: their positions end each list.
  for (let i = messages.length - 1; i >= same; i--)
    for (const id of held[i] ?? []) postings[id]?.pop()
  messages.length = same
  held.length = same
  for (let i = same; i < count; i++) {
    const m = view.message(i)
    const mine: number[] = []
    // Each distinct term once, numbers left out.
    for (const t of new Set(messageTerms(m))) {
      if (/^\d+$/.test(t)) continue
      let id = ids.get(t)
      if (id === undefined) {
        id = names.push(t) - 1
        ids.set(t, id)
        postings.push([])
      }
      mine.push(id)
      postings[id]?.push(i)
    }
    messages.push(m)
    held.push(mine)
  }
  return index
}

/**
 * Words that go with the query's words in this conversation: for each query word, the words
 * of the units holding it or within `window` units of one (a question and its answer),
 * weighted by how much more often they appear there than anywhere (log lift) and by how rare
 * both words are (idf); numbers are left out. The `terms` best join the query, and each unit
 * scores the summed weight of those it holds (the query's own words score nothing here: BM25
 * counts them). Finds "running" for a question about "de-stress" when one answered the other
 * earlier in the conversation, without a model. Reads where each word is from an index kept
 * per history, so a fit reads the units near the query's words, not every unit's words.
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
    const { held, ids, names, postings } = termIndex(view)
    // Statistics over every unit but the newest user turn (usually the question itself).
    const skip = view.newestUser()
    const total = n - (skip >= 0 ? 1 : 0)
    const unitOf = new Int32Array(view.messages.length)
    for (let u = 0; u < n; u++) unitOf.fill(u, view.start(u), view.end(u))
    /** The units holding a term, ascending, the skipped one left out. */
    const unitsOf = (id: number): number[] => {
      const at: number[] = []
      for (const i of postings[id] ?? []) {
        const u = unitOf[i] as number
        if (u !== skip && at[at.length - 1] !== u) at.push(u)
      }
      return at
    }
    const vocabulary = postings.length
    // Units holding each term, counted when first needed (-1: not yet).
    const df = new Int32Array(vocabulary).fill(-1)
    const dfOf = (id: number) => {
      if ((df[id] as number) < 0) df[id] = unitsOf(id).length
      return df[id] as number
    }
    const idf = (id: number) => Math.log(1 + total / (dfOf(id) || 1))
    const queryIds = [...wanted].flatMap((q) => ids.get(q) ?? [])
    const asked = new Set(queryIds)
    const weight = new Map<number, number>()
    // The terms of each unit of several messages, merged once per fit.
    const merged: Set<number>[] = []
    // How many units near the current query word hold each term, and which terms they are.
    const co = new Int32Array(postings.length)
    const touched: number[] = []
    for (const q of queryIds) {
      const at = unitsOf(q)
      df[q] = at.length
      if (at.length === 0) continue
      const near = new Uint8Array(n)
      for (const u of at)
        for (let v = Math.max(0, u - window); v <= Math.min(n - 1, u + window); v++)
          if (v !== skip) near[v] = 1
      let m = 0
      for (let u = 0; u < n; u++) {
        if (!near[u]) continue
        m++
        // A unit's terms once, though several of its messages hold them.
        const a = view.start(u)
        const b = view.end(u)
        if (b - a > 1) merged[u] ??= new Set(held.slice(a, b).flat())
        for (const t of merged[u] ?? (held[a] as number[])) {
          if (asked.has(t)) continue
          if (!co[t]) touched.push(t)
          co[t] = (co[t] as number) + 1
        }
      }
      for (const t of touched.splice(0)) {
        const c = co[t] as number
        co[t] = 0
        if (c < minCount) continue
        const lift = c / m / ((dfOf(t) || 1) / total)
        if (lift <= 1) continue
        weight.set(t, (weight.get(t) ?? 0) + idf(q) * Math.log(lift) * idf(t))
      }
    }
    const chosen = [...weight]
      .sort((a, b) => b[1] - a[1] || ((names[a[0]] as string) < (names[b[0]] as string) ? -1 : 1))
      .slice(0, k)
    for (const [t, w] of chosen) for (const u of unitsOf(t)) out[u] = (out[u] ?? 0) + w
    return out
  }
}

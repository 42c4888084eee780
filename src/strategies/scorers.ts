import type { Message } from '../messages/message.js'
import { requireArgument, requireOptions } from '../options-check.js'
import { newestUserText, terms_, unitTerms } from './query-terms.js'
import type { View } from './types.js'

/** One score per unit of the view: higher is kept first. */
export type Scorer = (view: View) => number[]

/**
 * A scorer that may call out (an embedding service) and answer with a promise; a strategy
 * using one runs under `fitAsync` when it does.
 */
export type AsyncScorer = (view: View) => number[] | Promise<number[]>

/** Calls `then` on a value now when it is at hand, later when it is a promise. */
export function whenReady<S, T>(value: S | Promise<S>, then: (value: S) => T): T | Promise<T> {
  return value instanceof Promise ? value.then(then) : then(value)
}

/** Several score lists, at once when every one is at hand, else as one promise. */
export function allScores(
  lists: readonly (number[] | Promise<number[]>)[],
): number[][] | Promise<number[][]> {
  const ready: number[][] = []
  for (const l of lists) if (!(l instanceof Promise)) ready.push(l)
  return ready.length === lists.length ? ready : Promise.all(lists)
}

/** `score(u)` for every unit of the view, in order. */
export function eachUnit(view: View, score: (u: number) => number): number[] {
  const out = new Array<number>(view.unitCount)
  for (let u = 0; u < out.length; u++) out[u] = score(u)
  return out
}

/** Newest unit 1.0, each older one `keepRate` times the next (CAMEL's default). */
export function recency(options: { keepRate?: number } = {}): Scorer {
  requireOptions(options, 'recency', ['keepRate'])
  const { keepRate = 0.9 } = options
  requireArgument(
    typeof keepRate === 'number' && keepRate > 0 && keepRate <= 1,
    'recency',
    'keepRate',
    'a number in (0, 1]',
    keepRate,
  )
  return (view) => {
    const n = view.unitCount
    const out = new Array<number>(n)
    let s = 1
    for (let u = n - 1; u >= 0; u--) {
      out[u] = s
      s *= keepRate
    }
    return out
  }
}

/** A fixed weight per role of the unit's first message (e.g. `{ user: 1, tool: 0.3 }`). */
export function roleWeights(weights: Partial<Record<Message['role'], number>>): Scorer {
  return (view) => eachUnit(view, (u) => weights[view.role(u)] ?? 0)
}

/** 1 for units holding a pinned message (by input index in the view, or a predicate), else 0. */
export function pinned(
  which: readonly number[] | ((m: Message, index: number) => boolean),
): Scorer {
  const test = typeof which === 'function' ? which : (_: Message, i: number) => which.includes(i)
  return (view) =>
    eachUnit(view, (u) => {
      for (let i = view.start(u); i < view.end(u); i++) if (test(view.message(i), i)) return 1
      return 0
    })
}

/** A weighted sum of scorers, each scaled to [0, 1] first. */
export function combine(parts: readonly (readonly [Scorer, number])[]): Scorer
export function combine(parts: readonly (readonly [AsyncScorer, number])[]): AsyncScorer
export function combine(parts: readonly (readonly [AsyncScorer, number])[]): AsyncScorer {
  return (view) =>
    whenReady(allScores(parts.map(([scorer]) => scorer(view))), (lists) => {
      const total = new Array<number>(view.unitCount).fill(0)
      lists.forEach((s, k) => {
        const weight = parts[k]?.[1] ?? 0
        let max = 0
        for (const x of s) if (x > max) max = x
        if (max <= 0) return
        for (let u = 0; u < total.length; u++)
          total[u] = (total[u] ?? 0) + (weight * (s[u] ?? 0)) / max
      })
      return total
    })
}

export interface RelevanceOptions {
  /** The text to match; default: the view's query, else the newest user message. */
  query?: string
  /** BM25 term saturation. */
  k1?: number
  /** BM25 length normalisation. */
  b?: number
  /**
   * Pseudo-relevance feedback: the `docs` best-matching units lend their `terms` most frequent
   * words to a second query, added at `weight`. Finds turns that answer the query in other words.
   */
  feedback?: boolean | { docs?: number; terms?: number; weight?: number }
}

/**
 * Lexical relevance of each unit to the query: BM25 over stemmed words, stop words left
 * out. Runs offline, no model: a unit that shares rare words with the query scores high.
 */
export function relevance(options: RelevanceOptions = {}): Scorer {
  requireOptions(options, 'relevance', ['query', 'k1', 'b', 'feedback'])
  requireArgument(
    options.query === undefined || typeof options.query === 'string',
    'relevance',
    'query',
    'a string',
    options.query,
  )
  requireArgument(
    options.feedback === undefined ||
      typeof options.feedback === 'boolean' ||
      (typeof options.feedback === 'object' && options.feedback !== null),
    'relevance',
    'feedback',
    'true, false or { docs, terms, weight }',
    options.feedback,
  )
  if (typeof options.feedback === 'object')
    requireOptions(options.feedback, 'relevance feedback', ['docs', 'terms', 'weight'], {
      name: 'feedback',
    })
  const base = bm25(options)
  const fb = options.feedback === true ? {} : options.feedback
  if (!fb) return base
  const { docs = 3, terms: extra = 8, weight = 0.3 } = fb
  return (view) => {
    const query = options.query ?? view.query ?? newestUserText(view)
    const first = base(view)
    const n = view.unitCount
    // Pseudo-relevance feedback: the best matches (not the newest unit, usually the question
    // itself) lend their most frequent other words to a second query.
    const top = first
      .map((score, u) => [score, u] as const)
      .filter(([score, u]) => score > 0 && u < n - 1)
      .sort((a, b) => b[0] - a[0])
      .slice(0, docs)
    const known = new Set(terms_(query))
    const counts = new Map<string, number>()
    for (const [, u] of top)
      for (const t of unitTerms(view, view.unit(u)))
        if (!known.has(t)) counts.set(t, (counts.get(t) ?? 0) + 1)
    const expansion = [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, extra)
      .map(([t]) => t)
    if (expansion.length === 0) return first
    const second = bm25({ ...options, query: expansion.join(' '), stemmed: true })(view)
    const m1 = Math.max(...first, Number.MIN_VALUE)
    const m2 = Math.max(...second, Number.MIN_VALUE)
    return first.map((x, u) => x / m1 + (weight * (second[u] ?? 0)) / m2)
  }
}

/** BM25 of each unit against the query: `relevance` without its checks and its feedback. */
export function bm25(options: RelevanceOptions & { stemmed?: boolean }): Scorer {
  const { k1 = 1.2, b = 0.75 } = options
  return (view) => {
    const query = options.query ?? view.query ?? newestUserText(view)
    const terms = new Set(options.stemmed ? query.split(' ') : terms_(query))
    const n = view.unitCount
    const scores = new Array<number>(n).fill(0)
    if (terms.size === 0 || n === 0) return scores
    const docs: Map<string, number>[] = []
    const lengths: number[] = []
    const df = new Map<string, number>()
    for (let u = 0; u < n; u++) {
      const unit = view.unit(u)
      const tf = new Map<string, number>()
      let len = 0
      for (const t of unitTerms(view, unit)) {
        len++
        if (terms.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1)
      }
      for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1)
      docs.push(tf)
      lengths.push(len)
    }
    const avg = lengths.reduce((a, x) => a + x, 0) / n || 1
    for (let u = 0; u < n; u++) {
      let s = 0
      for (const [t, f] of docs[u] ?? []) {
        const d = df.get(t) ?? 0
        const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5))
        s += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * (lengths[u] ?? 0)) / avg))
      }
      scores[u] = s
    }
    return scores
  }
}

import { InvalidOptionError } from '../errors.js'
import { type Message, messageText } from '../messages/message.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import { newestUserText } from './query-terms.js'
import { type AsyncScorer, allScores, eachUnit, type Scorer, whenReady } from './scorers.js'
import type { View } from './types.js'

/** Embeds texts, one vector per text, in order; the vectors of one function share a length. */
export type Embed = (texts: string[]) => number[][] | Promise<number[][]>

export interface SemanticOptions {
  /** The user's embedding function (a local model, an embeddings API). */
  embed: Embed
  /** The text to match; default: the view's query, else the newest user message. */
  query?: string
  /** Texts per call to `embed`. */
  batchSize?: number
}

/** Query vectors kept per embedding function, so an agent asking again does not embed again. */
const QUERY_CACHE = 64

/** What one embedding function gave: each message's vector (by message object), recent queries, the length. */
interface EmbedCache {
  vectors: WeakMap<Message, Float64Array | null>
  queries: Map<string, Float64Array | null>
  dims: number
}
const caches = new WeakMap<Embed, EmbedCache>()
function cacheOf(embed: Embed): EmbedCache {
  let cache = caches.get(embed)
  if (!cache) {
    cache = { vectors: new WeakMap(), queries: new Map(), dims: -1 }
    caches.set(embed, cache)
  }
  return cache
}

/**
 * Cosine similarity of each unit (its best message) to the query, from a user-supplied
 * embedding. Every message is embedded once per embedding function (its vector kept by
 * message object, as long as the history holds it, whatever scorer or strategy asks) and the
 * uncached ones go out in batches; a message without text scores 0. With a synchronous
 * `embed` the scorer is synchronous; with an asynchronous one, use `fitAsync`.
 */
export function semantic(
  options: SemanticOptions & { embed: (texts: string[]) => number[][] },
): Scorer
export function semantic(options: SemanticOptions): AsyncScorer
export function semantic(options: SemanticOptions): AsyncScorer {
  requireOptions(options, 'semantic', ['embed', 'query', 'batchSize'], { required: true })
  requireArgument(
    options.query === undefined || typeof options.query === 'string',
    'semantic',
    'query',
    'a string',
    options.query,
  )
  const { embed, batchSize = 256 } = options
  if (typeof embed !== 'function') {
    throw new InvalidOptionError('embed', 'expected a function from texts to vectors')
  }
  if (!(Number.isInteger(batchSize) && batchSize >= 1)) {
    throw new InvalidOptionError(
      'batchSize',
      `expected an integer >= 1, got ${describeValue(batchSize)}`,
    )
  }
  // Kept per embedding function, not per scorer: a strategy made again for each call (by name,
  // in `fitAsync`) embeds each message once all the same.
  const cache = cacheOf(embed)
  const { vectors, queries } = cache

  const accept = (raw: unknown, texts: readonly string[]): (Float64Array | null)[] => {
    if (!Array.isArray(raw) || raw.length !== texts.length) {
      throw new InvalidOptionError(
        'embed',
        `expected ${texts.length} vectors, got ${Array.isArray(raw) ? raw.length : typeof raw}`,
      )
    }
    return raw.map((v, k) => {
      if (!Array.isArray(v) || v.length === 0 || !v.every((x) => Number.isFinite(x))) {
        throw new InvalidOptionError(
          'embed',
          `vector ${k} is not a non-empty list of finite numbers`,
        )
      }
      if (cache.dims === -1) cache.dims = v.length
      if (v.length !== cache.dims) {
        throw new InvalidOptionError(
          'embed',
          `vector ${k} has ${v.length} numbers, earlier ones ${cache.dims}`,
        )
      }
      return unit(Array.from(v, Number))
    })
  }

  /** Embeds `texts` in batches, one after another; synchronous when `embed` is. */
  const embedAll = (
    texts: string[],
  ): (Float64Array | null)[] | Promise<(Float64Array | null)[]> => {
    const out: (Float64Array | null)[] = []
    const step = (from: number): (Float64Array | null)[] | Promise<(Float64Array | null)[]> => {
      for (let k = from; k < texts.length; k += batchSize) {
        const batch = texts.slice(k, k + batchSize)
        const result = embed(batch)
        if (result instanceof Promise) {
          return result.then((r) => {
            out.push(...accept(r, batch))
            return step(k + batchSize)
          })
        }
        out.push(...accept(result, batch))
      }
      return out
    }
    return step(0)
  }

  return (view: View) => {
    const query = options.query ?? view.query ?? newestUserText(view)
    const n = view.unitCount
    if (!query.trim() || n === 0) return new Array<number>(n).fill(0)
    // Distinct texts still to embed: the query first, then each uncached message.
    const pending = new Map<string, Message[]>()
    const needQuery = !queries.has(query)
    for (const m of view.messages) {
      if (vectors.has(m)) continue
      const text = messageText(m)
      if (!text.trim()) {
        vectors.set(m, null)
        continue
      }
      const list = pending.get(text)
      if (list) list.push(m)
      else pending.set(text, [m])
    }
    if (needQuery && !pending.has(query)) pending.set(query, [])
    const texts = [...pending.keys()]
    const store = (got: (Float64Array | null)[]) => {
      texts.forEach((text, k) => {
        const v = got[k] ?? null
        for (const m of pending.get(text) ?? []) vectors.set(m, v)
        if (needQuery && text === query) {
          queries.set(query, v)
          if (queries.size > QUERY_CACHE) queries.delete(queries.keys().next().value as string)
        }
      })
      return score(view, queries.get(query) ?? null)
    }
    return texts.length === 0 ? store([]) : whenReady(embedAll(texts), store)
  }

  function score(view: View, q: Float64Array | null): number[] {
    return eachUnit(view, (u) => {
      let best = 0
      if (!q) return best
      for (let i = view.start(u); i < view.end(u); i++) {
        const v = vectors.get(view.message(i))
        if (!v) continue
        let dot = 0
        for (let d = 0; d < q.length; d++) dot += (q[d] ?? 0) * (v[d] ?? 0)
        if (dot > best) best = dot
      }
      return best
    })
  }
}

/** The vector scaled to length 1, or null for a zero vector (it matches nothing). */
function unit(v: readonly number[]): Float64Array | null {
  let norm = 0
  for (const x of v) norm += x * x
  if (norm === 0) return null
  const s = 1 / Math.sqrt(norm)
  return Float64Array.from(v, (x) => x * s)
}

export interface FuseOptions {
  /** Rank offset: larger flattens the difference between first and tenth. */
  k?: number
  /**
   * Units each scorer contributes: embeddings give every unit some similarity, and a long
   * tail of weak ranks would otherwise add up to more than one strong match.
   */
  depth?: number
}

/**
 * Reciprocal rank fusion: each scorer ranks the units it gives a positive score (equal
 * scores share a rank; ties in order newer first) and each of its first `depth` units gets
 * `weight / (k + rank)`. Scales do not matter, only orders, so BM25 and cosine similarity
 * combine without tuning.
 */
export function fuse(parts: readonly (readonly [Scorer, number])[], options?: FuseOptions): Scorer
export function fuse(
  parts: readonly (readonly [AsyncScorer, number])[],
  options?: FuseOptions,
): AsyncScorer
export function fuse(
  parts: readonly (readonly [AsyncScorer, number])[],
  options: FuseOptions = {},
): AsyncScorer {
  requireArgument(
    Array.isArray(parts) &&
      parts.every(
        (p) => Array.isArray(p) && typeof p[0] === 'function' && typeof p[1] === 'number',
      ),
    'fuse',
    'parts',
    'a list of [scorer, weight] pairs',
    parts,
  )
  requireOptions(options, 'fuse', ['k', 'depth'])
  const { k = 60, depth = 50 } = options
  if (!(typeof k === 'number' && k >= 0 && Number.isFinite(k))) {
    throw new InvalidOptionError('k', `expected a finite number >= 0, got ${describeValue(k)}`)
  }
  if (!(Number.isInteger(depth) && depth >= 1)) {
    throw new InvalidOptionError('depth', `expected an integer >= 1, got ${describeValue(depth)}`)
  }
  return (view) =>
    whenReady(allScores(parts.map(([scorer]) => scorer(view))), (lists) => {
      const out = new Array<number>(view.unitCount).fill(0)
      lists.forEach((scores, p) => {
        const weight = parts[p]?.[1] ?? 0
        const ranked: number[] = []
        const at = (u: number) => scores[u] ?? 0
        for (let u = 0; u < scores.length; u++) if (at(u) > 0) ranked.push(u)
        ranked.sort((a, b) => at(b) - at(a) || b - a)
        let rank = 0
        let previous = Number.NaN
        for (const [r, u] of ranked.entries()) {
          if (r === 0 || at(u) !== previous) rank = r + 1
          previous = at(u)
          if (r >= depth) break
          out[u] = (out[u] ?? 0) + weight / (k + rank)
        }
      })
      return out
    })
}

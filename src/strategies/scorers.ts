import { InvalidOptionError } from '../errors.js'
import { type Message, messageText } from '../messages/message.js'
import type { Unit } from '../messages/units.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
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

function bm25(options: RelevanceOptions & { stemmed?: boolean }): Scorer {
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

export interface NearbyOptions {
  /** Share of a unit's score given to the unit right after it: the reply to what matched. */
  next?: number
  /** Share of a unit's score given to each unit within `reach` on either side, times `decay` per step. */
  weight?: number
  /** How many units away a score still reaches. */
  reach?: number
  /** Factor per step away (1: flat within `reach`). */
  decay?: number
}

/** What `nearby` spreads by default: measured on LoCoMo with leave-one-conversation-out (README, "Relevance"). */
export const NEARBY_DEFAULTS: Required<NearbyOptions> = {
  next: 0.5,
  weight: 0.2,
  reach: 10,
  decay: 0.8,
}

/**
 * Lends part of each unit's score to the units around it: the turn after a match often
 * holds the answer to what matched, and a topic spans several turns. The newest user
 * message, the newest unit and the system preamble (always sent; the first is usually the
 * query itself) lend nothing.
 */
export function nearby(scorer: Scorer, options?: NearbyOptions): Scorer
export function nearby(scorer: AsyncScorer, options?: NearbyOptions): AsyncScorer
export function nearby(scorer: AsyncScorer, options: NearbyOptions = {}): AsyncScorer {
  requireArgument(typeof scorer === 'function', 'nearby', 'scorer', 'a scorer function', scorer)
  checkNearby(options)
  return (view) =>
    whenReady(scorer(view), (scores) => {
      const n = view.unitCount
      const silent = new Set<number>([n - 1])
      if (n > 0 && view.kind(0) === 'system') silent.add(0)
      const newestUser = view.newestUser()
      if (newestUser >= 0) silent.add(newestUser)
      return spreadScores(scores, options, silent)
    })
}

function checkNearby(options: NearbyOptions): void {
  requireOptions(options, 'nearby', ['next', 'weight', 'reach', 'decay'])
  for (const key of ['next', 'weight', 'reach', 'decay'] as const) {
    const v = options[key]
    if (v === undefined) continue
    const ok =
      typeof v === 'number' &&
      Number.isFinite(v) &&
      v >= 0 &&
      (key !== 'decay' || v <= 1) &&
      (key !== 'reach' || (Number.isInteger(v) && v <= 1000))
    if (!ok) {
      const want =
        key === 'decay'
          ? 'a number in [0, 1]'
          : key === 'reach'
            ? 'an integer in [0, 1000]'
            : 'a finite number >= 0'
      throw new InvalidOptionError(`nearby.${key}`, `expected ${want}, got ${describeValue(v)}`)
    }
  }
}

/**
 * `scores` with part of each one added to its neighbours (see `NearbyOptions`); units in
 * `silent` keep their own score but lend none. Linear in `scores.length × reach`.
 */
export function spreadScores(
  scores: readonly number[],
  options: NearbyOptions = {},
  silent: ReadonlySet<number> = new Set(),
): number[] {
  requireArgument(
    (Array.isArray(scores) && scores.every((v) => typeof v === 'number')) ||
      ArrayBuffer.isView(scores),
    'spreadScores',
    'scores',
    'a list of scores',
    scores,
  )
  requireArgument(
    typeof (silent as ReadonlySet<number> | null)?.has === 'function',
    'spreadScores',
    'silent',
    'a set of unit indices',
    silent,
  )
  checkNearby(options)
  const next = options.next ?? NEARBY_DEFAULTS.next
  const weight = options.weight ?? NEARBY_DEFAULTS.weight
  const reach = options.reach ?? NEARBY_DEFAULTS.reach
  const decay = options.decay ?? NEARBY_DEFAULTS.decay
  const n = scores.length
  const out = scores.slice()
  const steps: number[] = []
  for (let d = 1, f = weight * decay; d <= reach; d++, f *= decay) steps.push(f)
  for (let u = 0; u < n; u++) {
    const s = scores[u] ?? 0
    if (!(s > 0) || silent.has(u)) continue
    if (u + 1 < n) out[u + 1] = (out[u + 1] ?? 0) + next * s
    steps.forEach((step, k) => {
      const d = k + 1
      const f = step * s
      if (u - d >= 0) out[u - d] = (out[u - d] ?? 0) + f
      if (u + d < n) out[u + d] = (out[u + d] ?? 0) + f
    })
  }
  return out
}

/**
 * A token mixing letters and digits, five characters or more (`OI5L9G`, `mia_li_3668`,
 * `HAT084`, `INV-20931`): an order, user or booking id that a tool call needs verbatim.
 */
const IDENTIFIER =
  /(?<![\p{L}\p{N}_-])(?=[\p{L}\p{N}_-]*\p{N})(?=[\p{L}\p{N}_-]*\p{L})[\p{L}\p{N}][\p{L}\p{N}_-]{4,}/u

/** Whether each message holds an identifier, computed once per message object. */
const identifierCache = new WeakMap<Message, boolean>()

/**
 * 1 for a unit holding an identifier (a token of five or more characters mixing letters and
 * digits: a booking, order or user id), else 0. Agents call tools with ids the user or an
 * earlier result gave; words of the newest message rarely name them again.
 */
export function identifiers(): Scorer {
  return (view) =>
    eachUnit(view, (u) => {
      for (let i = view.start(u); i < view.end(u); i++) {
        const m = view.message(i)
        let has = identifierCache.get(m)
        if (has === undefined) {
          has = IDENTIFIER.test(messageText(m))
          identifierCache.set(m, has)
        }
        if (has) return 1
      }
      return 0
    })
}

const IDENTIFIERS = new RegExp(IDENTIFIER.source, 'gu')

/** The identifiers a message holds, computed once per message object. */
const idListCache = new WeakMap<Message, readonly string[]>()
function idsOf(m: Message): readonly string[] {
  let ids = idListCache.get(m)
  if (!ids) {
    ids = [...new Set(messageText(m).match(IDENTIFIERS) ?? [])]
    idListCache.set(m, ids)
  }
  return ids
}

/**
 * 1 for an older unit that holds an identifier the newest turn (or the query) names: the
 * turn that introduced a booking or order id, and the tool result that defined it, come
 * back when the conversation returns to it. Other units 0.
 */
export function entities(): Scorer {
  return (view) => {
    const newest = view.newestUser()
    const from = newest >= 0 ? newest : Math.max(0, view.unitCount - 1)
    const wanted = new Set<string>()
    if (view.unitCount > 0)
      for (let i = view.start(from); i < view.messages.length; i++)
        for (const id of idsOf(view.message(i))) wanted.add(id)
    for (const id of view.query?.match(IDENTIFIERS) ?? []) wanted.add(id)
    return eachUnit(view, (u) => {
      if (wanted.size === 0 || u >= from) return 0
      for (let i = view.start(u); i < view.end(u); i++)
        for (const id of idsOf(view.message(i))) if (wanted.has(id)) return 1
      return 0
    })
  }
}

/** Who said a message: its `name`, else a "Name: " opening its text (after a "[date] "). */
const SPEAKER = /^(?:\[[^\]]*\]\s*)?(\p{Lu}[\p{L}'-]*):/u
/** First-person news ("I just signed up...", "we went...") and a time said with it ("yesterday", "last week"). */
const NEWS =
  /\b(i|we|my|our)\b[^.!?]{0,60}\b(went|took|got|made|bought|started|joined|signed|visited|tried|finished|saw|met|began|learned|adopted|moved|found|won|lost|built|painted|ran|played|attended|read|wrote|volunteered|decided|had|did|just|been|going|gonna|planning|plan)\b/i
const WHEN =
  /\b(yesterday|last (week|weekend|month|year|night)|ago|recently|this (week|weekend|month)|tomorrow|next (week|month))\b/i

/** A turn a person wrote (a user's or an assistant's), whose text may open with who said it and when. */
export const spoken = (m: Message): boolean => m.role === 'user' || m.role === 'assistant'

/** Each message's speaker (lower-cased, '' for none) and how much news it tells, once per message object. */
const newsCache = new WeakMap<Message, [string, number]>()
function newsOf(m: Message): [string, number] {
  let x = newsCache.get(m)
  if (!x) {
    const text = messageText(m)
    x = [
      // Only a person's own turn names its speaker in its text: a tool result or a system
      // message opening "Ben: ..." is not Ben speaking.
      (m.name ?? (spoken(m) ? SPEAKER.exec(text)?.[1] : undefined) ?? '').toLowerCase(),
      (NEWS.test(text) ? 0.6 : 0) + (WHEN.test(text) ? 0.4 : 0),
    ]
    newsCache.set(m, x)
  }
  return x
}

/**
 * For a query that names a speaker ("What activities does Melanie do?"), the news that
 * speaker told: first-person events ("I just signed up for a pottery class") and when
 * (0.4 for a time said with it, 0.6 for the event). Other units 0. What a person did is
 * most often in their own words, in the words of a story, not of the question.
 */
export function speakerNews(options: { query?: string } = {}): Scorer {
  return (view) => {
    const query = options.query ?? view.query ?? newestUserText(view)
    const named = new Set(query.toLowerCase().match(/\p{L}+/gu))
    const last = view.unitCount - 1
    return eachUnit(view, (u) => {
      const [who, news] = newsOf(view.first(u))
      return u < last && who && named.has(who) ? news : 0
    })
  }
}

/**
 * 1 for a unit spoken by someone the query names ("What did Melanie paint?": Melanie's own
 * turns, by `name` or a "Name: " opening the text; the asker's own "Name: " names no one),
 * else 0: among turns that match as well, the person's own words come first.
 */
export function spokenBy(options: { query?: string } = {}): Scorer {
  return (view) => {
    const query = options.query ?? view.query ?? newestUserText(view)
    const named = new Set(query.toLowerCase().match(/\p{L}+/gu))
    // The asker's own "Name: " names no one.
    const asker = SPEAKER.exec(query)?.[1]?.toLowerCase()
    if (asker) named.delete(asker)
    const last = view.unitCount - 1
    return eachUnit(view, (u) => {
      const who = newsOf(view.first(u))[0]
      return u < last && who && named.has(who) ? 1 : 0
    })
  }
}

/** Terms of a message, computed once per message object: an agent asks every turn. */
const termCache = new WeakMap<Message, string[]>()

/** A message's terms (`terms_` of its text), read once per message object and shared by every scorer. */
export function messageTerms(m: Message): readonly string[] {
  let t = termCache.get(m)
  if (!t) {
    t = terms_(messageText(m))
    termCache.set(m, t)
  }
  return t
}

function unitTerms(view: View, unit: Unit): string[] {
  const out: string[] = []
  for (let i = unit.start; i < unit.end; i++)
    for (const x of messageTerms(view.message(i))) out.push(x)
  return out
}

/** The text of the newest user message: the default query. */
export function newestUserText(view: View): string {
  requireArgument(
    typeof view === 'object' &&
      view !== null &&
      Array.isArray(view.messages) &&
      typeof view.message === 'function',
    'newestUserText',
    'view',
    'a view',
    view,
  )
  for (let i = view.messages.length - 1; i >= 0; i--) {
    const m = view.message(i)
    if (m.role === 'user') return messageText(m)
  }
  return ''
}

const STOP = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers herself him himself his
  how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours
  ourselves out over own same she should so some such than that the their theirs them themselves then there these they this
  those through to too under until up very was we were what when where which while who whom why will with would you your
  yours yourself yourselves also yeah yes oh ok okay really like just got get gonna wanna hey hi thanks thank um uh`.split(
    /\s+/,
  ),
)

/** Lower-cased words, stop words out, a light suffix stemmer. */
export function terms_(text: string): string[] {
  const out: string[] = []
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (raw.length < 2 || STOP.has(raw)) continue
    out.push(stem(raw))
  }
  return out
}

function stem(w: string): string {
  if (w.length <= 3) return w
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`
  if (w.endsWith('ing') && w.length > 5) return w.slice(0, -3)
  if (w.endsWith('ed') && w.length > 4) return w.slice(0, -2)
  if (w.endsWith('es') && w.length > 4) return w.slice(0, -2)
  if (w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1)
  return w
}

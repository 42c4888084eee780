import { ContextOverflowError, InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import type { Unit } from '../messages/units.js'
import { describeValue, requireOptions } from '../options-check.js'
import { assertMandatoryFits } from './budget.js'
import { cooccurring } from './cooccurring.js'
import { dates } from './dates.js'
import { entities, identifiers, speakerNews, spokenBy } from './named-scorers.js'
import { type NearbyOptions, nearby } from './nearby.js'
import { type AsyncScorer, combine, recency, relevance, type Scorer, whenReady } from './scorers.js'
import { type Embed, fuse, semantic } from './semantic.js'
import type { Mandatory, PlanItem, Strategy, View } from './types.js'

export interface ScoreBasedOptions {
  /** Tokens the request may use. Default: the model's window (or `fit`'s budget). */
  limit?: number
  model?: string
  /** Recency decay of the default scorer: newest 1.0, each older one this times the next. */
  keepRate?: number
  /** One score per unit; default `recency({ keepRate })`. A scorer answering with a promise needs `fitAsync`. */
  scorer?: Scorer | AsyncScorer
  /** A kept unit also pulls in the user message just before it, when that fits. */
  neighbours?: boolean
  /** A tool exchange too large to keep whole keeps its call and the newest results that fit. */
  partial?: boolean
}

/** Text of the stub standing in for a tool result left out of a partly kept exchange. */
export const OMITTED_RESULT = '[tool result omitted to fit the context window]'

/**
 * Keeps units by score while they fit (CAMEL `ScoreBasedContextCreator`): the system
 * prompt always; then the highest-scoring units, ties to the newer; a tool exchange is one
 * item (its best score, the sum of its tokens) and, when too large, may keep its call and
 * its newest results with stubs for the rest. The output is in chronological order.
 */
export function scoreBased(
  options: ScoreBasedOptions = {},
): Strategy<'scoreBased', ScoreBasedOptions> {
  requireOptions(options, 'scoreBased', [
    'limit',
    'model',
    'keepRate',
    'scorer',
    'neighbours',
    'partial',
  ])
  const { keepRate = 0.9, neighbours = false, partial = true } = options
  if (!(keepRate > 0 && keepRate <= 1)) {
    throw new InvalidOptionError(
      'keepRate',
      `expected a number in (0, 1], got ${describeValue(keepRate)}`,
    )
  }
  const scorer = options.scorer ?? recency({ keepRate })
  return {
    name: 'scoreBased',
    options,
    budgetAware: true,
    request: { limit: options.limit, model: options.model },
    // The default scorer answers at once; a given one may answer with a promise.
    ...(options.scorer === undefined && { async: false }),
    select: (view) => selectByScore(view, scorer, neighbours, partial),
  }
}

/** Options of the `mostRelevant` strategy: `scoreBased`'s, less the scorer it builds itself. */
export type MostRelevantOptions = Omit<ScoreBasedOptions, 'scorer'> & RelevanceScorerOptions

export interface RelevanceScorerOptions {
  /** What to match; default: the view's query, else the newest user message. */
  query?: string
  /**
   * Embeds texts (batched; each message is embedded once): cosine similarity to the query is
   * fused with BM25 by reciprocal rank. A promise-returning one makes the strategy asynchronous.
   */
  embed?: Embed
  /** How far a match lends its score to nearby units (`nearby`); `false` for none. */
  nearby?: NearbyOptions | false
  /** Weight of units holding an identifier (`identifiers`) against a full match's 1. */
  identifiers?: number
  /** Weight of older units holding an identifier the newest turn names (`entities`). Default 1. */
  entities?: number
  /** Weight of the news told by a speaker the query names (`speakerNews`). Default 0.05. */
  speakers?: number
  /** Weight of the turns of a speaker the query names (`spokenBy`). Default 0.02. */
  speakerTurns?: number
  /** Weight of units whose date, or whose session's, the query names (`dates`). Default 0.2. */
  dates?: number
  /** Weight of units holding words that go with the query's in this conversation (`cooccurring`). Default 0 (off): measured at 0.1, they add 0.4 points of LoCoMo evidence recall held out at 10% and 25% (on the one conversation no choice saw, +0.5 at 10% and -0.6 at 25%) for about 1.3 times a LoCoMo fit and 2 times one at 20,000 messages. */
  cooccurring?: number
}

/**
 * The scorer behind the `mostRelevant` strategy: BM25 (fused with embeddings when `embed` is
 * given), spread to nearby units, plus a bonus for units holding identifiers.
 */
export function relevanceScorer(options?: Omit<RelevanceScorerOptions, 'embed'>): Scorer
export function relevanceScorer(options: RelevanceScorerOptions): AsyncScorer
export function relevanceScorer(options: RelevanceScorerOptions = {}): AsyncScorer {
  return relevanceWith(options, embedded)
}

/** The embedding part of the relevance score: cosine similarity fused with BM25 by rank. */
type EmbedPart = (lexical: Scorer, embed: Embed, query: string | undefined) => AsyncScorer

const embedded: EmbedPart = (lexical, embed, query) =>
  fuse([
    [lexical, 1],
    [semantic({ embed, ...(query !== undefined && { query }) }), 1],
  ])

/** `relevanceScorer`, with the embedding part given apart (none: `embed` is refused). */
function relevanceWith(options: RelevanceScorerOptions, embedPart?: EmbedPart): AsyncScorer {
  requireOptions(options, 'relevanceScorer', [
    'query',
    'embed',
    'nearby',
    'identifiers',
    'entities',
    'speakers',
    'speakerTurns',
    'dates',
    'cooccurring',
  ])
  const {
    query,
    embed,
    identifiers: idWeight = 0.5,
    entities: entityWeight = 1,
    speakers: speakerWeight = 0.05,
    speakerTurns: turnWeight = 0.02,
    dates: dateWeight = 0.2,
    cooccurring: coWeight = 0,
  } = options
  for (const [name, w] of [
    ['identifiers', idWeight],
    ['entities', entityWeight],
    ['speakers', speakerWeight],
    ['speakerTurns', turnWeight],
    ['dates', dateWeight],
    ['cooccurring', coWeight],
  ] as const)
    if (!(typeof w === 'number' && Number.isFinite(w) && w >= 0))
      throw new InvalidOptionError(name, `expected a finite number >= 0, got ${describeValue(w)}`)
  const lexical = relevance(query !== undefined ? { query } : {})
  // No function given (undefined, null, false) is no embedding, as before names were split.
  if (embed && !embedPart)
    throw new InvalidOptionError(
      'embed',
      'by name, mostRelevant embeds in fitAsync and ChatContext; in fit, pass mostRelevant({ embed })',
    )
  const matched: AsyncScorer = embed && embedPart ? embedPart(lexical, embed, query) : lexical
  const spread = options.nearby === false ? matched : nearby(matched, options.nearby)
  const parts: [AsyncScorer, number][] = [[spread, 1]]
  if (idWeight > 0) parts.push([identifiers(), idWeight])
  if (entityWeight > 0) parts.push([entities(), entityWeight])
  if (speakerWeight > 0)
    parts.push([speakerNews(query !== undefined ? { query } : {}), speakerWeight])
  if (turnWeight > 0) parts.push([spokenBy(query !== undefined ? { query } : {}), turnWeight])
  if (dateWeight > 0) parts.push([dates(query !== undefined ? { query } : {}), dateWeight])
  if (coWeight > 0) parts.push([cooccurring(query !== undefined ? { query } : {}), coWeight])
  return parts.length === 1 ? spread : combine(parts)
}

/**
 * The combination measured best on LoCoMo conversations it was not tuned on, and on agent
 * traces (README, "Relevance"): BM25 relevance to the query (default: the newest user
 * message), each match lending part of its score to the turns around it, units holding an
 * identifier raised; ties, and units sharing no word with the query, go to the newer.
 */
export function mostRelevant(
  options: MostRelevantOptions = {},
): Strategy<'mostRelevant', MostRelevantOptions> {
  return mostRelevantWith(options, embedded)
}

/**
 * `mostRelevant` as a name makes it in a synchronous `fit`: the same strategy without the
 * embedding code, so a bundle that fits carries none of it (an `embed` function never comes
 * from a config; in code, `mostRelevant({ embed })` is the strategy). `fitAsync`, a
 * `ChatContext` and `createStrategy` make the whole one.
 */
export function namedMostRelevant(
  options: MostRelevantOptions = {},
): Strategy<'mostRelevant', MostRelevantOptions> {
  return mostRelevantWith(options)
}

function mostRelevantWith(
  options: MostRelevantOptions,
  embedPart?: EmbedPart,
): Strategy<'mostRelevant', MostRelevantOptions> {
  requireOptions(options, 'mostRelevant', MOST_RELEVANT_OPTIONS)
  const {
    query,
    embed,
    nearby: near,
    identifiers: ids,
    entities: ents,
    speakers: spk,
    speakerTurns: st,
    dates: dw,
    cooccurring: cw,
    ...rest
  } = options
  const scorer = relevanceWith(
    {
      ...(query !== undefined && { query }),
      ...(embed !== undefined && { embed }),
      ...(near !== undefined && { nearby: near }),
      ...(ids !== undefined && { identifiers: ids }),
      ...(ents !== undefined && { entities: ents }),
      ...(spk !== undefined && { speakers: spk }),
      ...(st !== undefined && { speakerTurns: st }),
      ...(dw !== undefined && { dates: dw }),
      ...(cw !== undefined && { cooccurring: cw }),
    },
    embedPart,
  )
  const inner = scoreBased({ ...rest, scorer })
  return { ...inner, name: 'mostRelevant', options, ...(embed === undefined && { async: false }) }
}

/** Every option `mostRelevant` reads. */
export const MOST_RELEVANT_OPTIONS = [
  'limit',
  'model',
  'keepRate',
  'neighbours',
  'partial',
  'query',
  'embed',
  'nearby',
  'identifiers',
  'entities',
  'speakers',
  'speakerTurns',
  'dates',
  'cooccurring',
] as const

function selectByScore(
  view: View,
  scorer: AsyncScorer,
  neighbours: boolean,
  partial: boolean,
): PlanItem[] | Promise<PlanItem[]> {
  const m = view.mandatory()
  if (m.preamble >= 0 && view.unitSize(m.preamble) > view.available) {
    const system = view.unitSize(m.preamble)
    const { tools, reserve, priming } = view.overhead
    throw new ContextOverflowError('the system message alone', {
      required: system + tools + reserve + priming,
      budget: view.budget,
      breakdown: { system, tools, reserve, priming },
    })
  }
  assertMandatoryFits(view, m)
  const n = view.unitCount
  const room = view.available - m.tokens
  const keep = new Uint8Array(n)
  for (const u of [m.preamble, m.lastUser, m.last]) if (u >= 0) keep[u] = 1
  const partials = new Map<number, PlanItem[]>()

  // Fast path: everything fits.
  if (view.rangeTokens(0, n) <= view.available) return chronological(view, keep.fill(1), partials)

  return whenReady(scorer(view), (scores) =>
    fillByScore(view, m, scores, keep, partials, room, neighbours, partial),
  )
}

function fillByScore(
  view: View,
  m: Mandatory,
  scores: readonly number[],
  keep: Uint8Array,
  partials: Map<number, PlanItem[]>,
  available: number,
  neighbours: boolean,
  partial: boolean,
): PlanItem[] {
  const n = view.unitCount
  if (!Array.isArray(scores) || scores.length !== n) {
    const got = Array.isArray(scores) ? `${scores.length} scores` : typeof scores
    throw new InvalidOptionError('scorer', `returned ${got} for ${n} units`)
  }
  // A score that is not a number (NaN from a custom scorer) ranks last instead of upsetting the sort.
  const score = (u: number) => {
    const x = scores[u]
    return x === undefined || Number.isNaN(x) ? Number.NEGATIVE_INFINITY : x
  }
  let room = available
  const order: number[] = []
  for (let u = 0; u < n; u++) if (!keep[u]) order.push(u)
  order.sort((a, b) => score(b) - score(a) || b - a)

  for (const u of order) {
    if (keep[u] || partials.has(u)) continue
    const t = view.unitSize(u)
    if (t <= room) {
      keep[u] = 1
      room -= t
    } else if (partial && view.kind(u) === 'exchange') {
      const items = partialExchange(view, view.unit(u), room)
      if (items) {
        partials.set(u, items.plan)
        room -= items.tokens
      }
    } else {
      continue
    }
    if (neighbours && (keep[u] || partials.has(u)) && u - 1 > m.preamble && !keep[u - 1]) {
      const pt = view.unitSize(u - 1)
      if (view.role(u - 1) === 'user' && pt <= room && !partials.has(u - 1)) {
        keep[u - 1] = 1
        room -= pt
      }
    }
  }
  return chronological(view, keep, partials)
}

/** The call and the newest results that fit; every other result becomes a stub. */
function partialExchange(
  view: View,
  unit: Unit,
  room: number,
): { plan: PlanItem[]; tokens: number } | undefined {
  const call = view.message(unit.start)
  let tokens = view.messageTokens(unit.start)
  const stubs = new Map<number, { message: Message; tokens: number }>()
  for (let i = unit.start + 1; i < unit.end; i++) {
    const r = view.message(i)
    if (r.role !== 'tool') return undefined
    const stub: Message = {
      role: 'tool',
      toolCallId: r.toolCallId,
      ...(r.toolName !== undefined && { toolName: r.toolName }),
      content: OMITTED_RESULT,
    }
    const st = view.counter.countMessage(stub)
    stubs.set(i, { message: stub, tokens: st })
    tokens += st
  }
  if (tokens > room || call.role !== 'assistant') return undefined
  const full = new Set<number>()
  for (let i = unit.end - 1; i > unit.start; i--) {
    const extra = view.messageTokens(i) - (stubs.get(i)?.tokens ?? 0)
    if (tokens + extra <= room) {
      full.add(i)
      tokens += extra
    }
  }
  const plan: PlanItem[] = [{ index: unit.start }]
  for (let i = unit.start + 1; i < unit.end; i++) {
    const stub = stubs.get(i)
    plan.push(
      full.has(i) || !stub ? { index: i } : { index: i, message: stub.message, reason: 'stubbed' },
    )
  }
  return { plan, tokens }
}

function chronological(
  view: View,
  keep: Uint8Array,
  partials: Map<number, PlanItem[]>,
): PlanItem[] {
  const out: PlanItem[] = []
  for (let u = 0; u < view.unitCount; u++) {
    const p = partials.get(u)
    if (p) out.push(...p)
    else if (keep[u]) view.items(u, u + 1, out)
  }
  return out
}

/**
 * `mostRelevant`: the query-aware strategy, scoring each unit by what it shares with the
 * query (terms, identifiers, entities, speakers, dates, neighbours, an embedding when given)
 * and keeping the best within the budget by `scoreBased`'s fill.
 */
import { InvalidOptionError } from '../errors.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import { cooccurring } from './cooccurring.js'
import { dates } from './dates.js'
import { entities, identifiers, namesAsked, speakerNews, spokenBy } from './named-scorers.js'
import { type NearbyOptions, nearby } from './nearby.js'
import { type ScoreBasedOptions, scoreBased } from './score-based.js'
import { type AsyncScorer, bm25, combine, type Scorer } from './scorers.js'
import { type Embed, fuse, semantic } from './semantic.js'
import type { Strategy } from './types.js'

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
  /**
   * Weight of the units naming something (a capitalised word: a person, a city, a band) for
   * a question asking for a name: who, where, which cities... (`namesAsked`). Default 0.2.
   */
  names?: number
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

/** The weighted parts of the score besides the matches, in order: option, default weight, scorer. */
const WEIGHTED: readonly (readonly [string, number, (asked: { query?: string }) => Scorer])[] = [
  ['identifiers', 0.5, () => identifiers()],
  ['entities', 1, () => entities()],
  ['speakers', 0.05, speakerNews],
  ['speakerTurns', 0.02, spokenBy],
  ['dates', 0.2, dates],
  ['names', 0.2, namesAsked],
  ['cooccurring', 0, cooccurring],
]

/** `relevanceScorer`, with the embedding part given apart (none: `embed` is refused). */
function relevanceWith(options: RelevanceScorerOptions, embedPart?: EmbedPart): AsyncScorer {
  requireOptions(options, 'relevanceScorer', RELEVANCE_SCORER_OPTIONS)
  const { query, embed } = options
  const given = options as Record<string, unknown>
  const weights = WEIGHTED.map(([name, byDefault]) => {
    const w = given[name] === undefined ? byDefault : given[name]
    if (!(typeof w === 'number' && Number.isFinite(w) && w >= 0))
      throw new InvalidOptionError(name, `expected a finite number >= 0, got ${describeValue(w)}`)
    return w
  })
  // What `relevance` checks, and its scorer without feedback: the fit bundle carries no feedback.
  requireArgument(
    query === undefined || typeof query === 'string',
    'relevance',
    'query',
    'a string',
    query,
  )
  const asked = query !== undefined ? { query } : {}
  const lexical = bm25(asked)
  // No function given (undefined, null, false) is no embedding, as before names were split.
  if (embed && !embedPart)
    throw new InvalidOptionError(
      'embed',
      'by name, mostRelevant embeds in fitAsync and ChatContext; in fit, pass mostRelevant({ embed })',
    )
  const matched: AsyncScorer = embed && embedPart ? embedPart(lexical, embed, query) : lexical
  const spread = options.nearby === false ? matched : nearby(matched, options.nearby)
  const parts: [AsyncScorer, number][] = [[spread, 1]]
  WEIGHTED.forEach(([, , make], k) => {
    const w = weights[k] as number
    if (w > 0) parts.push([make(asked), w])
  })
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
  // The scorer's options go to the scorer, the others to `scoreBased` (each given one only).
  const mine: Record<string, unknown> = {}
  const rest: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(options))
    if (value !== undefined)
      ((RELEVANCE_SCORER_OPTIONS as readonly string[]).includes(key) ? mine : rest)[key] = value
  const { embed } = options
  const scorer = relevanceWith(mine as RelevanceScorerOptions, embedPart)
  const inner = scoreBased({ ...rest, scorer })
  return { ...inner, name: 'mostRelevant', options, ...(embed === undefined && { async: false }) }
}

/** Every option `relevanceScorer` reads. */
export const RELEVANCE_SCORER_OPTIONS = [
  'query',
  'embed',
  'nearby',
  'identifiers',
  'entities',
  'speakers',
  'speakerTurns',
  'dates',
  'cooccurring',
  'names',
] as const

/** Every option `mostRelevant` reads: `scoreBased`'s but its scorer, and the scorer's. */
export const MOST_RELEVANT_OPTIONS = [
  'limit',
  'model',
  'keepRate',
  'neighbours',
  'partial',
  ...RELEVANCE_SCORER_OPTIONS,
] as const

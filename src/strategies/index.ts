export { type BufferedOptions, buffered } from './buffered.js'
export { type CooccurringOptions, cooccurring } from './cooccurring.js'
export { dateKeys, dates } from './dates.js'
export { type HeadAndTailOptions, headAndTail } from './head-and-tail.js'
export { LEDGER_HEADING, type LedgerOptions, withLedger } from './ledger.js'
export {
  MOST_RELEVANT_OPTIONS,
  type MostRelevantOptions,
  mostRelevant,
  type RelevanceScorerOptions,
  relevanceScorer,
} from './most-relevant.js'
export { entities, identifiers, spokenBy } from './named-scorers.js'
export { type NearbyOptions, nearby, spreadScores } from './nearby.js'
export { type Pin, standingInstructions } from './pins.js'
export { newestUserText } from './query-terms.js'
export { OMITTED_RESULT, type ScoreBasedOptions, scoreBased } from './score-based.js'
export {
  type AsyncScorer,
  combine,
  pinned,
  type RelevanceOptions,
  recency,
  relevance,
  roleWeights,
  type Scorer,
} from './scorers.js'
export { type Embed, fuse, type SemanticOptions, semantic } from './semantic.js'
export { type PrefixSums, stableCut } from './stable-cut.js'
export { type StableOptions, type TokenLimitedOptions, tokenLimited } from './token-limited.js'
export type {
  ChangeReason,
  Mandatory,
  PlanItem,
  RequestOptions,
  Strategy,
  Transform,
  View,
} from './types.js'
export { unbounded } from './unbounded.js'
export { type UserTurnsOptions, userTurns } from './user-turns.js'

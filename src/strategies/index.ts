export { type BufferedOptions, buffered } from './buffered.js'
export { type HeadAndTailOptions, headAndTail } from './head-and-tail.js'
export {
  type MostRelevantOptions,
  mostRelevant,
  OMITTED_RESULT,
  relevant,
  type ScoreBasedOptions,
  scoreBased,
} from './score-based.js'
export {
  combine,
  newestUserText,
  pinned,
  type RelevanceOptions,
  recency,
  relevance,
  roleWeights,
  type Scorer,
} from './scorers.js'
export { type TokenLimitedOptions, tokenLimited } from './token-limited.js'
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

import { InvalidOptionError } from '../errors.js'
import { type BufferedOptions, buffered } from './buffered.js'
import { type HeadAndTailOptions, headAndTail } from './head-and-tail.js'
import {
  type RelevantOptions,
  relevant,
  type ScoreBasedOptions,
  scoreBased,
} from './score-based.js'
import { type TokenLimitedOptions, tokenLimited } from './token-limited.js'
import type { Strategy } from './types.js'
import { unbounded } from './unbounded.js'
import { type UserTurnsOptions, userTurns } from './user-turns.js'

export { type BufferedOptions, buffered } from './buffered.js'
export { type HeadAndTailOptions, headAndTail } from './head-and-tail.js'
export {
  OMITTED_RESULT,
  type RelevanceScorerOptions,
  type RelevantOptions,
  relevanceScorer,
  relevant,
  type ScoreBasedOptions,
  scoreBased,
} from './score-based.js'
export {
  type AsyncScorer,
  combine,
  identifiers,
  type NearbyOptions,
  nearby,
  newestUserText,
  pinned,
  type RelevanceOptions,
  recency,
  relevance,
  roleWeights,
  type Scorer,
  spreadScores,
} from './scorers.js'
export { type Embed, fuse, type SemanticOptions, semantic } from './semantic.js'
export { stableCut } from './stable-cut.js'
export { type StableOptions, type TokenLimitedOptions, tokenLimited } from './token-limited.js'
export type { ChangeReason, PlanItem, Strategy, Transform, View } from './types.js'
export { unbounded } from './unbounded.js'
export { type UserTurnsOptions, userTurns } from './user-turns.js'

/** Options of every strategy that can be named by a string. */
export interface StrategyOptionsByName {
  unbounded: Record<string, never>
  buffered: BufferedOptions
  headAndTail: HeadAndTailOptions
  tokenLimited: TokenLimitedOptions
  userTurns: UserTurnsOptions
  scoreBased: ScoreBasedOptions
  relevance: RelevantOptions
}

/** Only the keys a strategy reads: a name plus `fit`'s options gives a clean, dumpable config. */
function pick<T extends object>(o: T, keys: readonly (keyof T)[]): T {
  const out = {} as T
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k]
  return out
}

const factories: { [K in keyof StrategyOptionsByName]: (o: StrategyOptionsByName[K]) => Strategy } =
  {
    unbounded: () => unbounded(),
    buffered,
    headAndTail,
    tokenLimited,
    userTurns,
    scoreBased: (o) =>
      scoreBased(pick(o, ['limit', 'model', 'keepRate', 'scorer', 'neighbours', 'partial'])),
    relevance: (o) =>
      relevant(
        pick(o, [
          'limit',
          'model',
          'keepRate',
          'neighbours',
          'partial',
          'query',
          'embed',
          'nearby',
          'identifiers',
        ]),
      ),
  }

/** Registers a strategy under a name, so configs, `fit` and the CLI can name it. */
export function registerStrategy(name: string, factory: (options: never) => Strategy): void {
  ;(factories as Record<string, (o: never) => Strategy>)[name] = factory
}

export function strategyNames(): string[] {
  return Object.keys(factories)
}

/** A strategy from its name and options (an allow-list: unknown names are refused). */
export function createStrategy(name: string, options: Record<string, unknown> = {}): Strategy {
  const factory = (factories as Record<string, ((o: unknown) => Strategy) | undefined>)[name]
  if (!factory || !Object.hasOwn(factories, name)) {
    throw new InvalidOptionError(
      'strategy',
      `unknown strategy ${JSON.stringify(name)} (known: ${strategyNames().join(', ')})`,
    )
  }
  return factory(options)
}

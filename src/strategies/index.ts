import { InvalidOptionError } from '../errors.js'
import { type BufferedOptions, buffered } from './buffered.js'
import { type HeadAndTailOptions, headAndTail } from './head-and-tail.js'
import { type TokenLimitedOptions, tokenLimited } from './token-limited.js'
import type { Strategy } from './types.js'
import { unbounded } from './unbounded.js'
import { type UserTurnsOptions, userTurns } from './user-turns.js'

export { type BufferedOptions, buffered } from './buffered.js'
export { type HeadAndTailOptions, headAndTail } from './head-and-tail.js'
export { type TokenLimitedOptions, tokenLimited } from './token-limited.js'
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
}

const factories: { [K in keyof StrategyOptionsByName]: (o: StrategyOptionsByName[K]) => Strategy } =
  {
    unbounded: () => unbounded(),
    buffered,
    headAndTail,
    tokenLimited,
    userTurns,
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

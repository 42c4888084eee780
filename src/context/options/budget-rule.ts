import { InvalidOptionError } from '../../errors.js'
import type { Strategy } from '../../strategies/types.js'

/**
 * The budget of a fit, by one rule for every entry (`fit`, `fitAsync`, `ChatContext`, the
 * adapters): `budget` and a strategy's own `limit` (`tokenLimited({ limit: 2000 })`) are both
 * ceilings, so when both are given the smaller wins, and the result's `notes` say which.
 */
export function reconcileLimits(
  budget: number | undefined,
  strategyLimit: number | undefined,
  strategy: string,
): { limit: number | undefined; note?: string } {
  if (budget === undefined) return { limit: strategyLimit }
  if (strategyLimit === undefined || strategyLimit === budget) return { limit: budget }
  const limit = Math.min(budget, strategyLimit)
  return {
    limit,
    note:
      strategyLimit < budget
        ? `fitted to ${limit} tokens: ${strategy}'s own limit (${strategyLimit}) is below the budget (${budget}), and the smaller wins`
        : `fitted to ${limit} tokens: the budget is below ${strategy}'s own limit (${strategyLimit}), and the smaller wins`,
  }
}

/**
 * With no budget and no model there is nothing to fit to: a strategy that selects by budget,
 * or the default one, would keep everything without a word. `fit` and `fitAsync` refuse that
 * unless it is asked for (`strategy: 'unbounded'`, or `unbounded()` from `/advanced`); strategies that bound
 * themselves otherwise (`buffered`, `headAndTail`, `userTurns`) need no budget. The CLI
 * refuses the same call. (A `ChatContext` may start without one: it learns a window from a
 * rejection, `withContextRetry`.)
 */
export function requireBudget(setup: {
  budget: number
  strategy: Pick<Strategy, 'name' | 'budgetAware'>
  defaultStrategy: boolean
}): void {
  const { budget, strategy, defaultStrategy } = setup
  if (Number.isFinite(budget) || !(defaultStrategy || strategy.budgetAware)) return
  const what = defaultStrategy ? 'the default strategy (tokenLimited)' : strategy.name
  throw new InvalidOptionError(
    'budget',
    `${what} needs a budget or a model: pass budget (tokens the request may use) or model (its window is the budget); to send every message, say so with strategy: 'unbounded'`,
  )
}

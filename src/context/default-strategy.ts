import { InvalidOptionError } from '../errors.js'
import { describeValue } from '../options-check.js'
import type { TokenLimitedOptions } from '../strategies/token-limited.js'

/**
 * The options of `fit`'s default strategy (`tokenLimited`) given beside the budget:
 * `stable` and `dropFrom`, each checked here so a wrong value is refused even when no
 * budget makes the default strategy run.
 */
export function defaultStrategyOptions(options: {
  stable?: TokenLimitedOptions['stable']
  dropFrom?: unknown
}): TokenLimitedOptions {
  const out: TokenLimitedOptions = {}
  if (options.stable !== undefined) out.stable = options.stable
  if (options.dropFrom !== undefined) {
    if (options.dropFrom !== 'oldest' && options.dropFrom !== 'middle')
      throw new InvalidOptionError(
        'dropFrom',
        `expected "oldest" or "middle", got ${describeValue(options.dropFrom)}`,
      )
    out.dropFrom = options.dropFrom
  }
  return out
}

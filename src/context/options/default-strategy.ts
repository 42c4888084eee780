import {
  CUT_OPTIONS,
  checkCutOptions,
  type TokenLimitedOptions,
} from '../../strategies/token-limited.js'

/**
 * The options of `fit`'s default strategy (`tokenLimited`) given beside the budget: how it
 * cuts (`CUT_OPTIONS`), checked here by tokenLimited's own check, so a wrong value is refused
 * even when no budget makes the default strategy run.
 */
export function defaultStrategyOptions(
  options: Pick<TokenLimitedOptions, (typeof CUT_OPTIONS)[number]>,
): TokenLimitedOptions {
  checkCutOptions(options)
  const out: Record<string, unknown> = {}
  for (const key of CUT_OPTIONS) if (options[key] !== undefined) out[key] = options[key]
  return out
}

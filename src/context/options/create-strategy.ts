import { asyncStrategyFromOptions } from '../../compress/index.js'
import { InvalidOptionError } from '../../errors.js'
import type { Strategy } from '../../strategies/types.js'
import { makeStrategy } from './registry.js'

/**
 * A strategy from its name and options (an allow-list: unknown names are refused). Options
 * it does not read are refused too, naming the closest one it does.
 */
export function createStrategy(name: string, options: Record<string, unknown> = {}): Strategy {
  if (typeof name !== 'string')
    throw new InvalidOptionError('strategy', `expected a strategy name, got ${typeof name}`)
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new InvalidOptionError('options', 'expected an object of the strategy options')
  return makeStrategy(name, options, asyncStrategyFromOptions)
}

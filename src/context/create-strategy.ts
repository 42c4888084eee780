import { summarizingFromOptions } from '../compress/index.js'
import type { Strategy } from '../strategies/types.js'
import { makeStrategy } from './registry.js'

/**
 * A strategy from its name and options (an allow-list: unknown names are refused). Options
 * it does not read are refused too, naming the closest one it does.
 */
export function createStrategy(name: string, options: Record<string, unknown> = {}): Strategy {
  return makeStrategy(name, options, summarizingFromOptions)
}

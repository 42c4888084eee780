import { InvalidOptionError } from '../errors.js'
import { describeValue, requireOptions } from '../options-check.js'
import { newestByCount } from './budget.js'
import type { Strategy } from './types.js'

export interface BufferedOptions {
  /** How many of the newest messages to keep (the system prompt is kept besides). */
  size: number
}

/**
 * The newest `size` messages (AutoGen `BufferedChatCompletionContext`). Whole units only, so
 * the kept part never opens with a tool result cut off from its call: where `size` ends
 * inside a tool exchange, the exchange is left out and fewer messages are kept.
 */
export function buffered(options: BufferedOptions): Strategy<'buffered', BufferedOptions> {
  requireOptions(options, 'buffered', ['size'])
  const size = positiveInt('size', options?.size)
  return {
    name: 'buffered',
    options: { size },
    budgetAware: false,
    ownWindow: true,
    async: false,
    select(view) {
      const n = view.unitCount
      const first = view.mandatory().first
      const start = newestByCount(view, first, n, size)
      return view.items(start, n, view.items(0, first))
    },
  }
}

export function positiveInt(option: string, value: unknown, allowZero = false): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new InvalidOptionError(
      option,
      `expected a whole number ${allowZero ? '>= 0' : '>= 1'}, got ${describeValue(value)}`,
    )
  }
  return value
}

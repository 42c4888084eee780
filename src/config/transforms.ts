import { InvalidOptionError } from '../errors.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import type { Transform } from '../strategies/types.js'
import { clearThinking } from '../transforms/clear-thinking.js'
import { clearToolResults } from '../transforms/clear-tool-results.js'
import { dropThoughts } from '../transforms/drop-thoughts.js'
import { removeToolExchanges } from '../transforms/remove-tool-exchanges.js'
import { truncateMessages } from '../transforms/truncate-messages.js'

const factories: Record<string, (options: never) => Transform> = {
  dropThoughts,
  clearThinking,
  clearToolResults,
  truncateMessages,
  removeToolExchanges,
}

/** Registers a transform under a name, so configs can name it. */
export function registerTransform(name: string, factory: (options: never) => Transform): void {
  requireArgument(
    typeof name === 'string' && name !== '__proto__',
    'registerTransform',
    'name',
    'a transform name',
    name,
  )
  requireArgument(
    typeof factory === 'function',
    'registerTransform',
    'factory',
    'a function',
    factory,
  )
  factories[name] = factory
}

export function transformNames(): string[] {
  return Object.keys(factories)
}

/** A transform from its name and options (an allow-list: unknown names are refused). */
export function createTransform(name: string, options: Record<string, unknown> = {}): Transform {
  requireArgument(typeof name === 'string', 'createTransform', 'name', 'a transform name', name)
  requireOptions(options, 'createTransform')
  const factory = Object.hasOwn(factories, name) ? factories[name] : undefined
  if (!factory) {
    throw new InvalidOptionError(
      'transform',
      `unknown transform ${describeValue(name)} (known: ${transformNames().join(', ')})`,
    )
  }
  return (factory as (o: unknown) => Transform)(options)
}

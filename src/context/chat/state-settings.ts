import { ContextWindowError, InvalidStateError } from '../../errors.js'

/** Options that are objects with behaviour (or per-process wiring): a saved state never sets them. */
const NOT_FROM_STATE = [
  'counter',
  'transforms',
  'store',
  'id',
  'summaries',
  'initialMessages',
  'signal',
  'onEvent',
  'compress',
]

/**
 * The constructor options a saved state's settings stand for. A strategy's saved options
 * name only plain settings: one that names a counter, transforms, a store or a callback is
 * refused with `InvalidStateError`, before anything is built from it.
 */
export function optionsFromState(settings: {
  strategy?: { name: string; options: Record<string, unknown> } | undefined
  [key: string]: unknown
}): Record<string, unknown> {
  const { strategy, ...rest } = settings
  const options = strategy?.options ?? {}
  for (const key of Object.keys(options)) {
    if (NOT_FROM_STATE.includes(key))
      throw new InvalidStateError(
        `invalid state: settings.strategy.options.${key}: a saved state holds plain settings; pass a ${key} to fromState as an override`,
      )
  }
  return { ...rest, ...(strategy && { strategy: strategy.name, ...options }) }
}

/** Runs `build`; any failure (a bad budget, an unknown strategy, a wrong type) is the state's: `InvalidStateError`. */
export function buildFromState<T>(build: () => T): T {
  try {
    return build()
  } catch (e) {
    if (e instanceof InvalidStateError) throw e
    const detail = e instanceof ContextWindowError ? e.message : `${(e as Error)?.message ?? e}`
    throw new InvalidStateError(`invalid state: settings: ${detail}`, { cause: e })
  }
}

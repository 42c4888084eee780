import { requireArgument } from '../options-check.js'
import type { Strategy, Transform } from '../strategies/types.js'

/** Transforms applied in order, then the strategy: `pipe(dropThoughts(), clearToolResults(), tokenLimited())`. */
export function pipe<S extends Strategy>(...steps: [...Transform[], S]): S {
  const strategy = steps[steps.length - 1] as S
  const transforms = steps.slice(0, -1) as Transform[]
  requireArgument(
    typeof strategy === 'object' && strategy !== null && typeof strategy.select === 'function',
    'pipe',
    'strategy',
    'a strategy as its last argument',
    strategy,
  )
  for (const [k, t] of transforms.entries())
    requireArgument(
      typeof t === 'object' && t !== null && typeof t.apply === 'function',
      'pipe',
      `transforms.${k}`,
      'a transform',
      t,
    )
  requireArgument(
    strategy.transforms === undefined || Array.isArray(strategy.transforms),
    'pipe',
    'strategy.transforms',
    'a list of transforms',
    strategy.transforms,
  )
  return { ...strategy, transforms: [...(strategy.transforms ?? []), ...transforms] }
}

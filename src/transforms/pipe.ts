import type { Strategy, Transform } from '../strategies/types.js'

/** Transforms applied in order, then the strategy: `pipe(dropThoughts(), clearToolResults(), tokenLimited())`. */
export function pipe<S extends Strategy>(...steps: [...Transform[], S]): S {
  const strategy = steps[steps.length - 1] as S
  const transforms = steps.slice(0, -1) as Transform[]
  return { ...strategy, transforms: [...(strategy.transforms ?? []), ...transforms] }
}

import { InvalidOptionError } from '../errors.js'
import { asynchronousStrategy } from '../options-check.js'
import type { PlanItem } from '../strategies/types.js'
import type { HistoryIndex } from './history-index.js'
import type { Setup } from './options/options.js'
import { type Prepared, prepare } from './prepare.js'

/** A view of a context's history and the strategy's plan for it, to assemble. */
export interface Planned {
  prepared: Prepared
  plan: PlanItem[]
}

/**
 * Asked of the view before the strategy reads it (`fit` refuses an unbounded request there,
 * once the messages are read and repaired).
 */
export type BeforeSelect = (prepared: Prepared) => void

/**
 * The plan of a synchronous strategy; an asynchronous one is refused, naming `asyncName` to use.
 * This and `planView` are where every caller (`fit`, `fitAsync`, `ChatContext`) has a plan made.
 */
export function planNow(
  index: HistoryIndex,
  setup: Setup,
  calibration: number,
  asyncName: string,
  before?: BeforeSelect,
): Planned {
  const refuse = () => asynchronousStrategy(setup.strategy.name, asyncName)
  if (setup.strategy.async) throw refuse()
  const prepared = prepare(index, setup, { calibration })
  before?.(prepared)
  const plan = setup.strategy.select(prepared.view)
  if (plan instanceof Promise) throw refuse()
  return { prepared, plan }
}

/**
 * The view and the strategy's plan: at once when the strategy answers at once, else a
 * promise. A strategy that may await sees a copy, since messages may be added meanwhile.
 */
export function planView(
  index: HistoryIndex,
  setup: Setup,
  calibration: number,
  before?: BeforeSelect,
): Planned | Promise<Planned> {
  const prepared = prepare(index, setup, { calibration, frozen: setup.strategy.async !== false })
  before?.(prepared)
  const plan = setup.strategy.select(prepared.view)
  if (!(plan instanceof Promise)) return { prepared, plan }
  if (setup.strategy.async === false) {
    // Its view was not copied, as it said it never waits: what it resolves to is not used.
    plan.catch(() => {})
    throw new InvalidOptionError(
      'strategy',
      `${setup.strategy.name} declares async: false, but its select returned a promise`,
    )
  }
  return plan.then((p) => ({ prepared, plan: p }))
}

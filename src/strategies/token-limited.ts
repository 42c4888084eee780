import { InvalidOptionError } from '../errors.js'
import type { ToolSchema } from '../messages/message.js'
import {
  alignStart,
  assertMandatoryFits,
  keepFrom,
  type Mandatory,
  mandatory,
  newestStart,
} from './budget.js'
import { stableCut } from './stable-cut.js'
import { type PlanItem, type Strategy, unitItems, type View } from './types.js'

export interface TokenLimitedOptions {
  /** Tokens the request may use. Default: the model's context window. */
  limit?: number
  /** A model id: gives the window (when no limit) and the counter. */
  model?: string
  /** Tool schemas sent with the request; they count against the budget. */
  tools?: ToolSchema[]
  /** Tokens kept free for the reply. */
  reserve?: number
  /**
   * Which units go first when over budget: `oldest` keeps the newest run that fits; `middle`
   * keeps the oldest and the newest and drops between them (as AutoGen does).
   */
  dropFrom?: 'oldest' | 'middle'
  /**
   * Cut rarely, so the sent prefix stays byte-identical for many turns and the provider's
   * prompt cache keeps hitting: when the history overflows, the start moves once, far enough
   * that the rest fills `lowWater` of the room (default 0.72), then the view grows again
   * until the budget is reached. `evictAtLeast` (tokens) sets the same mark as
   * `1 - evictAtLeast / room`.
   */
  stable?: boolean | StableOptions
}

export interface StableOptions {
  /** Fill of the room just after a cut, in (0, 1). Default 0.72. */
  lowWater?: number
  /** Tokens freed at least by a cut (instead of `lowWater`). */
  evictAtLeast?: number
}

/**
 * The newest units that fit the budget; the system prompt and the newest turn always
 * (AutoGen `TokenLimitedChatCompletionContext`, without its quadratic recount or its orphaned
 * tool results). Throws `ContextOverflowError` when even those do not fit.
 */
export function tokenLimited(
  options: TokenLimitedOptions = {},
): Strategy<'tokenLimited', TokenLimitedOptions> {
  const { dropFrom = 'oldest' } = options
  if (dropFrom !== 'oldest' && dropFrom !== 'middle') {
    throw new InvalidOptionError(
      'dropFrom',
      `expected "oldest" or "middle", got ${JSON.stringify(dropFrom)}`,
    )
  }
  if (options.stable && options.stable !== true) {
    const { lowWater, evictAtLeast } = options.stable
    if (lowWater !== undefined && !(lowWater > 0 && lowWater < 1))
      throw new InvalidOptionError(
        'stable.lowWater',
        `expected a fraction in (0, 1), got ${JSON.stringify(lowWater)}`,
      )
    if (evictAtLeast !== undefined && !(Number.isFinite(evictAtLeast) && evictAtLeast > 0))
      throw new InvalidOptionError(
        'stable.evictAtLeast',
        `expected a token count > 0, got ${JSON.stringify(evictAtLeast)}`,
      )
  }
  return {
    name: 'tokenLimited',
    options,
    budgetAware: true,
    select(view) {
      const m = mandatory(view)
      assertMandatoryFits(view, m)
      const room = view.available - m.tokens
      if (dropFrom === 'middle')
        return keepEnds(view, m.first, m.last, m.lastUser, room, m.preamble)
      let start = newestStart(view, m, room)
      if (options.stable && start > m.first) start = stableStart(view, m, start, options.stable)
      return keepFrom(view, m, start)
    },
  }
}

/** The low-water cut (see `stableCut`), never before the newest start that fits. */
function stableStart(
  view: View,
  m: Mandatory,
  start: number,
  stable: true | StableOptions,
): number {
  const o = stable === true ? {} : stable
  const room = view.available - (m.preamble >= 0 ? (view.unitTokens[m.preamble] as number) : 0)
  const lowWater =
    o.evictAtLeast !== undefined ? 1 - o.evictAtLeast / Math.max(1, room) : (o.lowWater ?? 0.72)
  const cut = stableCut(view.unitPrefix, m.first, view.units.length, room, lowWater)
  return alignStart(view, m, Math.min(Math.max(cut, start), m.last))
}

/** Alternately take the newest and the oldest units while they fit: the middle goes. */
function keepEnds(
  view: View,
  first: number,
  last: number,
  lastUser: number,
  room: number,
  preamble: number,
): PlanItem[] {
  const { unitTokens } = view
  let head = first
  let tail = last // units (tail, last] kept; the mandatory `last` and `lastUser` are free here
  let left = room
  let headOpen =
    view.provider !== 'anthropic' || view.messages[view.units[first]?.start ?? 0]?.role === 'user'
  let tailOpen = true
  let fromTail = true
  const isFree = (u: number) => u === last || u === lastUser
  while ((headOpen || tailOpen) && head <= tail) {
    if (fromTail && tailOpen) {
      const t = isFree(tail) ? 0 : (unitTokens[tail] as number)
      if (t <= left) {
        left -= t
        tail--
      } else tailOpen = false
    } else if (!fromTail && headOpen) {
      const t = isFree(head) ? 0 : (unitTokens[head] as number)
      if (t <= left && head <= tail) {
        left -= t
        head++
      } else headOpen = false
    }
    fromTail = !fromTail
  }
  const out: PlanItem[] = []
  if (preamble >= 0) unitItems(view, preamble, preamble + 1, out)
  if (head > tail) return unitItems(view, first, view.units.length, out)
  unitItems(view, first, head, out)
  if (lastUser >= 0 && lastUser <= tail && lastUser >= head)
    unitItems(view, lastUser, lastUser + 1, out)
  return unitItems(view, tail + 1, view.units.length, out)
}

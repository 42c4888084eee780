import { InvalidOptionError } from '../errors.js'
import type { ToolSchema } from '../messages/message.js'
import { checkKeys } from '../options-check.js'
import { alignStart, assertMandatoryFits, keepFrom, type Mandatory, newestStart } from './budget.js'
import type { PlanItem, Strategy, View } from './types.js'

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
   * Cut only at fixed points of the history, spaced `evictAtLeast` tokens apart (default 15%
   * of the budget): the kept prefix then stays byte-identical for many turns, so the
   * provider's prompt cache keeps hitting, at the price of some unused room.
   */
  stable?: boolean | { evictAtLeast?: number }
}

/**
 * The newest units that fit the budget; the system prompt and the newest turn always
 * (AutoGen `TokenLimitedChatCompletionContext`, without its quadratic recount or its orphaned
 * tool results). Throws `ContextOverflowError` when even those do not fit.
 */
export function tokenLimited(
  options: TokenLimitedOptions = {},
): Strategy<'tokenLimited', TokenLimitedOptions> {
  checkKeys(options, ['limit', 'model', 'tools', 'reserve', 'dropFrom', 'stable'], 'tokenLimited')
  const { dropFrom = 'oldest' } = options
  if (dropFrom !== 'oldest' && dropFrom !== 'middle') {
    throw new InvalidOptionError(
      'dropFrom',
      `expected "oldest" or "middle", got ${JSON.stringify(dropFrom)}`,
    )
  }
  return {
    name: 'tokenLimited',
    options,
    budgetAware: true,
    request: {
      limit: options.limit,
      model: options.model,
      reserve: options.reserve,
      tools: options.tools,
    },
    select(view) {
      const m = view.mandatory()
      assertMandatoryFits(view, m)
      const room = view.available - m.tokens
      if (dropFrom === 'middle') return keepEnds(view, m, room)
      let start = newestStart(view, m, room)
      if (options.stable && start > m.first) start = stableStart(view, m, start, options.stable)
      return keepFrom(view, m, start)
    },
  }
}

/**
 * The first fixed cut point at or after `start`: the first unit whose prefix sum reaches the
 * next multiple of `evictAtLeast`. Points depend only on the history before them, so they
 * do not move as the history grows.
 */
function stableStart(
  view: View,
  m: Mandatory,
  start: number,
  stable: true | { evictAtLeast?: number },
): number {
  const every = Math.max(
    1,
    (stable === true ? undefined : stable.evictAtLeast) ?? Math.floor(view.available * 0.15),
  )
  const target = Math.ceil(view.rangeTokens(0, start) / every) * every
  let lo = start
  let hi = view.units.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (view.rangeTokens(0, mid) >= target) hi = mid
    else lo = mid + 1
  }
  return alignStart(view, m, Math.min(lo, m.last))
}

/** Alternately take the newest and the oldest units while they fit: the middle goes. */
function keepEnds(view: View, m: Mandatory, room: number): PlanItem[] {
  const { first, last, lastUser, preamble } = m
  let head = first
  let tail = last // units (tail, last] kept; the mandatory `last` and `lastUser` are free here
  let left = room
  let headOpen = view.provider !== 'anthropic' || (first <= last && view.role(first) === 'user')
  let tailOpen = true
  let fromTail = true
  const cost = (u: number) => (u === last || u === lastUser ? 0 : view.unitSize(u))
  while ((headOpen || tailOpen) && head <= tail) {
    if (fromTail && tailOpen) {
      const t = cost(tail)
      if (t <= left) {
        left -= t
        tail--
      } else tailOpen = false
    } else if (!fromTail && headOpen) {
      const t = cost(head)
      if (t <= left && head <= tail) {
        left -= t
        head++
      } else headOpen = false
    }
    fromTail = !fromTail
  }
  const n = view.units.length
  const out: PlanItem[] = []
  if (preamble >= 0) view.items(preamble, preamble + 1, out)
  if (head > tail) return view.items(first, n, out)
  view.items(first, head, out)
  if (lastUser >= 0 && lastUser <= tail && lastUser >= head) view.items(lastUser, lastUser + 1, out)
  return view.items(tail + 1, n, out)
}

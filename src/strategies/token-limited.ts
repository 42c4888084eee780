import { InvalidOptionError } from '../errors.js'
import { describeValue, requireOptions } from '../options-check.js'
import type { ToolInput } from '../providers/tool-shapes.js'
import { alignStart, assertMandatoryFits, keepFrom, type Mandatory, newestStart } from './budget.js'
import { stableCut } from './stable-cut.js'
import type { PlanItem, Strategy, View } from './types.js'

export interface TokenLimitedOptions {
  /** Tokens the request may use. Default: the model's context window. */
  limit?: number
  /** A model id: gives the window (when no limit) and the counter. */
  model?: string
  /** Tool schemas sent with the request; they count against the budget. */
  tools?: readonly ToolInput[]
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

/** Where `dropFrom` drops first. */
export const DROP_FROM = ['oldest', 'middle'] as const

/** The options of `stable` as an object. */
export const STABLE_OPTIONS = ['lowWater', 'evictAtLeast'] as const

/**
 * tokenLimited's own options: how it cuts, not what the request holds. Given beside a budget
 * with no strategy, they are the default strategy's (`fit`'s, a context's, a saved state's, a
 * component config's).
 */
export const CUT_OPTIONS = ['dropFrom', 'stable'] as const

/** Every option tokenLimited reads: the request's settings, then how it cuts. */
export const TOKEN_LIMITED_OPTIONS = ['limit', 'model', 'tools', 'reserve', ...CUT_OPTIONS] as const

/**
 * The one check of how tokenLimited cuts (`dropFrom`, `stable`), made where it is built and
 * where the default strategy's options are taken before a budget makes it run.
 */
export function checkCutOptions(options: Pick<TokenLimitedOptions, 'dropFrom' | 'stable'>): void {
  const { dropFrom, stable } = options
  if (dropFrom !== undefined && !(DROP_FROM as readonly unknown[]).includes(dropFrom))
    throw new InvalidOptionError(
      'dropFrom',
      `expected "oldest" or "middle", got ${describeValue(dropFrom)}`,
    )
  if (stable === undefined || typeof stable === 'boolean') return
  requireOptions(stable, 'stable', STABLE_OPTIONS, { name: 'stable' })
  const { lowWater, evictAtLeast } = stable
  if (lowWater !== undefined && !(typeof lowWater === 'number' && lowWater > 0 && lowWater < 1))
    throw new InvalidOptionError(
      'stable.lowWater',
      `expected a fraction in (0, 1), got ${describeValue(lowWater)}`,
    )
  if (
    evictAtLeast !== undefined &&
    !(typeof evictAtLeast === 'number' && Number.isFinite(evictAtLeast) && evictAtLeast > 0)
  )
    throw new InvalidOptionError(
      'stable.evictAtLeast',
      `expected a token count > 0, got ${describeValue(evictAtLeast)}`,
    )
}

/**
 * The newest units that fit the budget; the system prompt and the newest turn always
 * (AutoGen `TokenLimitedChatCompletionContext`, without its quadratic recount or its orphaned
 * tool results). Throws `ContextOverflowError` when even those do not fit.
 */
export function tokenLimited(
  options: TokenLimitedOptions = {},
): Strategy<'tokenLimited', TokenLimitedOptions> {
  requireOptions(options, 'tokenLimited', TOKEN_LIMITED_OPTIONS)
  checkCutOptions(options)
  const { dropFrom = 'oldest' } = options
  return {
    name: 'tokenLimited',
    options,
    budgetAware: true,
    ledgerByDefault: 'auto',
    async: false,
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

/** The low-water cut (see `stableCut`), never before the newest start that fits. */
function stableStart(
  view: View,
  m: Mandatory,
  start: number,
  stable: true | StableOptions,
): number {
  const o = stable === true ? {} : stable
  const room = view.available - (m.preamble >= 0 ? view.unitSize(m.preamble) : 0)
  // Room set aside beside the history (the ledger's) is part of the slack: a cut frees what it
  // would free in the whole room, so the cut moves no more often for it.
  const aside = Math.max(0, view.aside ?? 0)
  const lowWater =
    o.evictAtLeast !== undefined
      ? 1 - o.evictAtLeast / Math.max(1, room)
      : Math.max(0.05, ((o.lowWater ?? 0.72) * (room + aside) - aside) / Math.max(1, room))
  const cut = stableCut(view, m.first, view.unitCount, room, lowWater)
  return alignStart(view, m, Math.min(Math.max(cut, start), m.last))
}

/** Alternately take the newest and the oldest units while they fit: the middle goes. */
function keepEnds(view: View, m: Mandatory, room: number): PlanItem[] {
  const { first, last, lastUser, preamble } = m
  let head = first
  let tail = last // units (tail, last] kept; the mandatory `last` and `lastUser` are free here
  let left = room
  let headOpen = !view.userFirst || (first <= last && view.role(first) === 'user')
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
  const n = view.unitCount
  const out: PlanItem[] = []
  if (preamble >= 0) view.items(preamble, preamble + 1, out)
  if (head > tail) return view.items(first, n, out)
  view.items(first, head, out)
  if (lastUser >= 0 && lastUser <= tail && lastUser >= head) view.items(lastUser, lastUser + 1, out)
  return view.items(tail + 1, n, out)
}

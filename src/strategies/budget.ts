import { ContextOverflowError } from '../errors.js'
import type { Mandatory, PlanItem, View } from './types.js'

export type { Mandatory } from './types.js'

/** The units that are always sent: the system preamble, the newest user message, the newest unit. */
export function mandatory(view: View): Mandatory {
  return view.mandatory()
}

/** The error for a mandatory part (system prompt, `pinned` messages and newest turn) that does not fit. */
export function mandatoryOverflow(
  view: View,
  tokens: number,
  system: number,
  pinned?: number,
): ContextOverflowError {
  const { tools, reserve, priming } = view.overhead
  return new ContextOverflowError(
    `the system prompt${pinned === undefined ? '' : ', the pinned messages'} and the newest turn`,
    {
      required: tokens + (pinned ?? 0) + tools + reserve + priming,
      budget: view.budget,
      breakdown: {
        system,
        ...(pinned !== undefined && { pinned }),
        'newest turn': tokens - system,
        tools,
        reserve,
        priming,
      },
    },
  )
}

/** Throws `ContextOverflowError`, with the breakdown, when the mandatory part alone does not fit. */
export function assertMandatoryFits(view: View, m: Mandatory): void {
  if (m.tokens <= view.available) return
  throw mandatoryOverflow(view, m.tokens, m.preamble >= 0 ? view.unitSize(m.preamble) : 0)
}

/**
 * The start of the longest run of newest units that fits beside the mandatory ones: a
 * binary search over prefix sums, so its cost does not grow with the history.
 */
export function newestStart(view: View, m: Mandatory, room: number): number {
  const n = view.unitCount
  const lastTokens = m.last > m.preamble ? view.unitSize(m.last) : 0
  const userTokens = m.lastUser >= 0 && m.lastUser !== m.last ? view.unitSize(m.lastUser) : 0
  // Tokens of the optional units in [s, n): falls as s grows.
  const cost = (s: number) =>
    view.rangeTokens(s, n) - (s <= m.last ? lastTokens : 0) - (s <= m.lastUser ? userTokens : 0)
  let lo = m.first
  let hi = Math.max(m.first, n)
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (cost(mid) <= room) hi = mid
    else lo = mid + 1
  }
  return alignStart(view, m, lo)
}

/** Under a user-first provider's rules (Anthropic, Gemini) the first message after the system prompt is the user's. */
export function alignStart(view: View, m: Mandatory, start: number): number {
  if (!view.userFirst) return start
  let s = start
  // A system message on the way stays (it goes to the system prompt): assembly drops what
  // stands between it and the user turn.
  while (s < m.lastUser && view.role(s) !== 'user' && view.role(s) !== 'system') s++
  return s
}

/** Preamble, then the newest user message when it falls before `start`, then units `[start, n)`. */
export function keepFrom(view: View, m: Mandatory, start: number): PlanItem[] {
  const out: PlanItem[] = []
  if (m.preamble >= 0) view.items(m.preamble, m.preamble + 1, out)
  // The newest unit is kept even when nothing optional fits.
  const from = m.last >= m.first ? Math.min(start, m.last) : view.unitCount
  if (m.lastUser >= 0 && m.lastUser < from) view.items(m.lastUser, m.lastUser + 1, out)
  return view.items(from, view.unitCount, out)
}

/** Messages in unit `u`. */
function sizeOf(view: View, u: number): number {
  const { start, end } = view.unit(u)
  return end - start
}

/** Start of the longest run of whole units ending at `end`, not before `floor`, holding at most `max` messages. */
export function newestByCount(view: View, floor: number, end: number, max: number): number {
  let start = end
  let count = 0
  while (start > floor) {
    const size = sizeOf(view, start - 1)
    if (count + size > max) break
    count += size
    start--
  }
  return start
}

/** End of the longest run of whole units starting at `start`, holding at most `max` messages. */
export function oldestByCount(view: View, start: number, max: number): number {
  let end = start
  let count = 0
  while (end < view.unitCount) {
    const size = sizeOf(view, end)
    if (count + size > max) break
    count += size
    end++
  }
  return end
}

/** Tokens of one plan item as sent. */
export function itemTokens(view: View, item: PlanItem): number {
  if ('synthetic' in item) return view.counter.countMessage(item.synthetic)
  return item.message ? view.counter.countMessage(item.message) : view.messageTokens(item.index)
}

/**
 * The plan within `room` tokens, by the one rule for a strategy that does not count: the
 * oldest items go, a unit's items together, until it fits; system messages, the newest unit
 * and the newest user turn stay. Each item counted once; linear in the plan. `tokens` is what
 * is left, over `room` only when what must stay is.
 */
export function trimOldest(
  view: View,
  plan: PlanItem[],
  room: number,
  /** Units kept besides those (the pinned ones). */
  stays?: (u: number) => boolean,
): { items: PlanItem[]; tokens: number } {
  const { last, lastUser } = view.mandatory()
  const unitOfItem = (item: PlanItem) => ('synthetic' in item ? -1 : view.unitOf(item.index))
  const tokens = plan.map((item) => itemTokens(view, item))
  let total = 0
  for (const t of tokens) total += t
  // A plan that fits is returned as it is: nothing copied.
  if (total <= room) return { items: plan, tokens: total }
  const items: PlanItem[] = []
  for (let k = 0; k < plan.length; ) {
    const u = unitOfItem(plan[k] as PlanItem)
    let j = k + 1
    let size = tokens[k] as number
    while (u >= 0 && j < plan.length && unitOfItem(plan[j] as PlanItem) === u)
      size += tokens[j++] as number
    const keep =
      u >= 0 && (view.kind(u) === 'system' || u === last || u === lastUser || !!stays?.(u))
    if (total > room && !keep) total -= size
    else for (let x = k; x < j; x++) items.push(plan[x] as PlanItem)
    k = j
  }
  return { items, tokens: total }
}

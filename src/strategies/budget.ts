import { ContextOverflowError } from '../errors.js'
import type { Unit } from '../messages/units.js'
import { type PlanItem, unitItems, type View } from './types.js'

/** The units that are always sent: the system preamble, the newest user message, the newest unit. */
export interface Mandatory {
  /** Index of the preamble unit, or -1. */
  preamble: number
  /** Index of the newest unit that opens with a user message, or -1. */
  lastUser: number
  /** Index of the newest unit, or -1 for an empty history. */
  last: number
  /** First unit after the preamble. */
  first: number
  tokens: number
}

export function mandatory(view: View): Mandatory {
  const { units, unitTokens, messages } = view
  const preamble = units[0]?.kind === 'system' ? 0 : -1
  const last = units.length - 1
  let lastUser = -1
  for (let u = last; u > preamble; u--) {
    if (messages[(units[u] as Unit).start]?.role === 'user') {
      lastUser = u
      break
    }
  }
  let tokens = 0
  if (preamble >= 0) tokens += unitTokens[preamble] as number
  if (lastUser >= 0) tokens += unitTokens[lastUser] as number
  if (last > preamble && last !== lastUser) tokens += unitTokens[last] as number
  return { preamble, lastUser, last, first: preamble + 1, tokens }
}

/** Throws `ContextOverflowError`, with the breakdown, when the mandatory part alone does not fit. */
export function assertMandatoryFits(view: View, m: Mandatory): void {
  if (m.tokens <= view.available) return
  const system = m.preamble >= 0 ? (view.unitTokens[m.preamble] as number) : 0
  const { tools, reserve, priming } = view.overhead
  throw new ContextOverflowError('the system prompt and the newest turn', {
    required: m.tokens + tools + reserve + priming,
    budget: view.budget,
    breakdown: { system, 'newest turn': m.tokens - system, tools, reserve, priming },
  })
}

/**
 * The start of the longest run of newest units that fits beside the mandatory ones: a
 * binary search over prefix sums, so its cost does not grow with the history.
 */
export function newestStart(view: View, m: Mandatory, room: number): number {
  const { unitPrefix, unitTokens } = view
  const n = view.units.length
  const total = unitPrefix[n] as number
  const lastTokens = m.last > m.preamble ? (unitTokens[m.last] as number) : 0
  const userTokens =
    m.lastUser >= 0 && m.lastUser !== m.last ? (unitTokens[m.lastUser] as number) : 0
  // Tokens of the optional units in [s, n): falls as s grows.
  const cost = (s: number) =>
    total -
    (unitPrefix[s] as number) -
    (s <= m.last ? lastTokens : 0) -
    (s <= m.lastUser ? userTokens : 0)
  let lo = m.first
  let hi = Math.max(m.first, n)
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (cost(mid) <= room) hi = mid
    else lo = mid + 1
  }
  return alignStart(view, m, lo)
}

/** Under Anthropic's rules the first message after the system prompt is the user's. */
export function alignStart(view: View, m: Mandatory, start: number): number {
  if (view.provider !== 'anthropic') return start
  let s = start
  while (s < m.lastUser && view.messages[(view.units[s] as Unit).start]?.role !== 'user') s++
  return s
}

/** Preamble, then the newest user message when it falls before `start`, then units `[start, n)`. */
export function keepFrom(view: View, m: Mandatory, start: number): PlanItem[] {
  const out: PlanItem[] = []
  if (m.preamble >= 0) unitItems(view, m.preamble, m.preamble + 1, out)
  // The newest unit is kept even when nothing optional fits.
  const from = m.last >= m.first ? Math.min(start, m.last) : view.units.length
  if (m.lastUser >= 0 && m.lastUser < from) unitItems(view, m.lastUser, m.lastUser + 1, out)
  return unitItems(view, from, view.units.length, out)
}

/** Start of the longest run of whole units ending at `end`, not before `floor`, holding at most `max` messages. */
export function newestByCount(
  units: readonly Unit[],
  floor: number,
  end: number,
  max: number,
): number {
  let start = end
  let count = 0
  while (start > floor) {
    const u = units[start - 1] as Unit
    if (count + (u.end - u.start) > max) break
    count += u.end - u.start
    start--
  }
  return start
}

/** End of the longest run of whole units starting at `start`, holding at most `max` messages. */
export function oldestByCount(units: readonly Unit[], start: number, max: number): number {
  let end = start
  let count = 0
  while (end < units.length) {
    const u = units[end] as Unit
    if (count + (u.end - u.start) > max) break
    count += u.end - u.start
    end++
  }
  return end
}

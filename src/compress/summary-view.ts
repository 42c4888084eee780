/** The newest summary that applies to a view, and what is sent with it. */
import { contentText, type Message } from '../messages/message.js'
import {
  type PlanItem,
  type SummaryEntry,
  type SummaryLedger,
  unitItems,
  type View,
} from '../strategies/types.js'

/** The newest summary that applies to a view. */
export interface Current {
  from: number
  to: number
  /** Index of the first unit after the summarized range (`units.length` when none). */
  unit: number
  entries: SummaryEntry[]
  tokens: number
}

/** The newest summary in the ledger that applies to this view, or undefined. */
export function latest(view: View, ledger: SummaryLedger): Current | undefined {
  const all = ledger.list()
  const last = all[all.length - 1]
  if (!last) return undefined
  const [from, to] = last.replaces
  const { messages } = view
  const n = view.unitCount
  if (n === 0 || from !== view.end(0) || to <= from || to > messages.length) return undefined
  if (last.anchor !== undefined && last.anchor !== anchorOf(view.message(to - 1))) return undefined
  // The summarized range must end on a unit boundary.
  let lo = 1
  let hi = n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (view.start(mid) < to) lo = mid + 1
    else hi = mid
  }
  if (lo < n ? view.start(lo) !== to : to !== messages.length) return undefined
  const entries: SummaryEntry[] = []
  for (let k = all.length - 1; k >= 0; k--) {
    const e = all[k]
    if (!e || e.replaces[0] !== from || e.replaces[1] !== to) break
    entries.unshift(e)
  }
  const tokens = entries.reduce((n, e) => n + (e.tokens ?? view.counter.countMessage(e.message)), 0)
  return { from, to, unit: lo, entries, tokens }
}

/** Tokens of the messages sent with this summary: first unit, summary, the rest. */
export function served(view: View, c: Current): number {
  const n = view.unitCount
  return view.unitSize(0) + c.tokens + view.rangeTokens(c.unit, n)
}

export function planOf(view: View, c: Current): PlanItem[] {
  const replaces = Array.from({ length: c.to - c.from }, (_, k) => c.from + k)
  const plan = unitItems(view, 0, 1)
  for (const e of c.entries)
    plan.push({
      synthetic: e.message,
      replaces,
      reason: 'summary',
      ...(e.facts && { facts: e.facts.report }),
    })
  return unitItems(view, c.unit, view.unitCount, plan)
}

export function messagesOf(view: View, c: Current): Message[] {
  return planOf(view, c).map((item) =>
    'synthetic' in item ? item.synthetic : view.message(item.index),
  )
}

/** Identifies a message well enough to tell histories apart, and survives transforms that clear content. */
export function anchorOf(m: Message): string {
  if (m.role === 'tool') return `tool:${m.toolCallId}`
  if (m.role === 'assistant' && m.toolCalls?.length)
    return `calls:${m.toolCalls.map((c) => c.id).join(',')}`
  return `${m.role}:${m.name ?? ''}:${contentText(m.content).slice(0, 48)}`
}

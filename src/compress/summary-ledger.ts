/** The summaries kept for one conversation, a newer one superseding those it folds in. */
import { messageIssue } from '../messages/check.js'
import { requireArgument } from '../options-check.js'
import { isJson, isList } from '../providers/codec-kit.js'
import type { SummaryEntry, SummaryLedger } from '../strategies/types.js'

/**
 * Summaries kept in memory, for one conversation: `fitAsync` keeps one per history it is
 * given; pass your own (`summaries: summaryLedger()`) to keep them across calls that rebuild
 * the history from scratch. A new summary supersedes the older ones it folds in, so the
 * ledger holds one summary (with its facts) however long the conversation.
 */
export function summaryLedger(initial: readonly SummaryEntry[] = []): SummaryLedger {
  requireArgument(
    Array.isArray(initial) && initial.every(isSummaryEntry),
    'summaryLedger',
    'initial',
    'a list of summaries { replaces: [from, to), message }',
    initial,
  )
  let entries = supersede([], initial)
  return {
    list: () => entries,
    add: (more) => {
      entries = supersede(entries, more)
    },
  }
}

function isSummaryEntry(e: unknown): boolean {
  if (!isJson(e)) return false
  const r = e.replaces
  return (
    isList(r) &&
    typeof r[0] === 'number' &&
    typeof r[1] === 'number' &&
    messageIssue(e.message) === undefined
  )
}

/**
 * `entries` with `more` added and every older summary they supersede taken out: a later
 * summary of the same conversation folds in the one before (a running summary), so one that
 * ends at or before the newest one's end is never served again.
 */
export function supersede(
  entries: readonly SummaryEntry[],
  more: readonly SummaryEntry[],
): SummaryEntry[] {
  if (more.length === 0) return [...entries]
  const end = Math.max(...more.map((e) => e.replaces[1]))
  return [...entries.filter((e) => e.replaces[1] > end), ...more]
}

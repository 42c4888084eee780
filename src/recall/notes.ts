// What a text standing for a message says when the recall tool is offered: the message's
// number, so the model can ask for the original (a cleared or cut result, a summary's range).
import type { ChangeReason, View } from '../strategies/types.js'

/**
 * Reasons a message is sent changed whose original recall returns: its text was cleared,
 * cut or stubbed to save room (the model may need what was taken out). A message changed
 * otherwise (a thought dropped, media over a provider's limits, a call the repair removed)
 * is sent with what it says.
 */
export const RECALLABLE_CHANGES: ReadonlySet<string> = new Set<ChangeReason>([
  'cleared',
  'truncated',
  'stubbed',
])

/** The number the model reads for view position `i`, or undefined when it has none. */
export function numberAt(view: View, i: number): number | undefined {
  const n = view.origin ? view.origin[i] : i
  return n !== undefined && n >= 0 ? n : undefined
}

/**
 * `recall message 12 for the original`, for the message at view position `i` when the recall
 * tool is offered; undefined otherwise.
 */
export function recallNote(view: View, i: number): string | undefined {
  if (view.recall !== true) return undefined
  const n = numberAt(view, i)
  return n === undefined ? undefined : `recall message ${n} for the original`
}

/** `; recall any of them by number for the originals`, for a text standing for a range, when the recall tool is offered. */
export function rangeNote(view: View): string {
  return view.recall === true ? '; recall any of them by number for the originals' : ''
}

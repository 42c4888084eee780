import type { Message } from './message.js'

/**
 * - `system`: the leading run of system messages (the preamble); at most one, always first.
 * - `exchange`: an assistant message with tool calls and the tool results that follow it.
 * - `message`: any other single message (including a system message later in the history).
 * - `orphan`: a tool result that does not directly follow the call it answers.
 */
export type UnitKind = 'system' | 'exchange' | 'message' | 'orphan'

/** An atomic slice of a history, `messages[start..end)`: strategies keep or drop it whole. */
export interface Unit {
  kind: UnitKind
  start: number
  end: number
  /** For an exchange: every call has its result. */
  complete: boolean
}

/**
 * Splits a history into units. Linear in the number of messages and tool calls; the one
 * place that knows how tool calls and results belong together.
 */
export function toUnits(messages: readonly Message[]): Unit[] {
  const units: Unit[] = []
  let i = 0
  while (i < messages.length && messages[i]?.role === 'system') i++
  if (i > 0) units.push({ kind: 'system', start: 0, end: i, complete: true })

  while (i < messages.length) {
    const m = messages[i] as Message
    if (m.role === 'assistant' && m.toolCalls?.length) {
      const pending = new Set(m.toolCalls.map((c) => c.id))
      let j = i + 1
      while (j < messages.length) {
        const next = messages[j] as Message
        if (next.role !== 'tool' || !pending.has(next.toolCallId)) break
        pending.delete(next.toolCallId)
        j++
      }
      units.push({ kind: 'exchange', start: i, end: j, complete: pending.size === 0 })
      i = j
    } else {
      units.push({
        kind: m.role === 'tool' ? 'orphan' : 'message',
        start: i,
        end: i + 1,
        complete: true,
      })
      i++
    }
  }
  return units
}

/** The unit opens a user turn: its first message is from the user. */
export function startsUserTurn(messages: readonly Message[], unit: Unit): boolean {
  return messages[unit.start]?.role === 'user'
}

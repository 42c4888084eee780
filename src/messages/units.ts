import { requireArgument } from '../options-check.js'
import { requireMessages } from './check.js'
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
 * Groups messages into units as they arrive: appending a message touches only the last
 * unit, so a context that grows one message at a time pays nothing for its history.
 * The one place that knows how tool calls and their results belong together.
 */
export class UnitBuilder {
  readonly units: Unit[] = []
  private count = 0
  /** Calls of the last exchange still waiting for a result. */
  private pending: Set<string> | undefined

  /** Adds the next message; returns true when it extended the last unit instead of opening one. */
  push(m: Message): boolean {
    const i = this.count++
    const last = this.units[this.units.length - 1]
    if (m.role === 'system' && (last === undefined || (last.kind === 'system' && last.end === i))) {
      if (last) {
        last.end = i + 1
        return true
      }
      this.units.push({ kind: 'system', start: i, end: i + 1, complete: true })
      return false
    }
    if (m.role === 'tool' && last?.kind === 'exchange' && this.pending?.has(m.toolCallId)) {
      this.pending.delete(m.toolCallId)
      last.end = i + 1
      last.complete = this.pending.size === 0
      return true
    }
    this.pending = undefined
    if (m.role === 'assistant' && m.toolCalls?.length) {
      this.pending = new Set(m.toolCalls.map((c) => c.id))
      this.units.push({ kind: 'exchange', start: i, end: i + 1, complete: false })
    } else {
      this.units.push({
        kind: m.role === 'tool' ? 'orphan' : 'message',
        start: i,
        end: i + 1,
        complete: true,
      })
    }
    return false
  }
}

/** Splits a history into units, in one pass; a value that is not a message list is refused. */
/** A tool call (an assistant message with calls) or a tool result: it travels only in an exchange. */
export function inToolExchange(m: Message): boolean {
  return m.role === 'tool' || (m.role === 'assistant' && !!m.toolCalls?.length)
}

export function toUnits(messages: readonly Message[]): Unit[] {
  requireMessages(messages)
  return unitsOf(messages)
}

/** `toUnits` for messages already checked. */
export function unitsOf(messages: readonly Message[]): Unit[] {
  const builder = new UnitBuilder()
  for (const m of messages) builder.push(m)
  return builder.units
}

/** The unit opens a user turn: its first message is from the user. */
export function startsUserTurn(messages: readonly Message[], unit: Unit): boolean {
  requireArgument(
    Array.isArray(messages),
    'startsUserTurn',
    'messages',
    'a list of messages',
    messages,
  )
  requireArgument(
    typeof unit === 'object' && unit !== null && Number.isSafeInteger(unit.start),
    'startsUserTurn',
    'unit',
    'a unit with a whole start',
    unit,
  )
  return messages[unit.start]?.role === 'user'
}

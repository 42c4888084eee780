import { messageSchema } from '../messages/message.js'
import { isRecord } from '../options-check.js'
import { isRange, type StoredEntry, StoreError, type SummaryRecord } from './history-store.js'
import { isWhole } from './stored-json.js'

/**
 * What a store read back, checked before anyone uses it: a stored entry (`{ m, t, c }`) or
 * summary that is not JSON or not valid is a `StoreError` naming the store, conversation and
 * position, never its contents. `value` is the text the server kept, or JSON it parsed.
 */
export function readEntry(store: string, id: string, value: unknown, seq: number): StoredEntry {
  let json: unknown
  try {
    json = unwrapped(typeof value === 'string' ? JSON.parse(value) : value)
  } catch {
    throw new StoreError(
      `${store}: conversation ${id}, message ${seq}: the stored entry is not JSON`,
      id,
      seq,
    )
  }
  const { m, t, c } = isRecord(json) ? json : {}
  const parsed = messageSchema.safeParse(m)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new StoreError(
      `${store}: conversation ${id}, message ${seq}: the stored message is invalid (field ${issue?.path.join('.') || 'role'})`,
      id,
      seq,
    )
  }
  return {
    seq,
    message: parsed.data,
    // A count that is not a positive whole number is no count: the reader counts again.
    ...(isWhole(t) && t > 0 && { tokens: t }),
    ...(typeof c === 'string' && { counter: c }),
  }
}

/** A stored summary, checked whole: a record without a valid `replaces` is as corrupt as one that is not JSON. */
export function readSummary(store: string, id: string, value: unknown, k: number): SummaryRecord {
  const bad = (what: string) =>
    new StoreError(`${store}: conversation ${id}, summary ${k}: the stored summary ${what}`, id, k)
  let s: unknown
  try {
    s = unwrapped(typeof value === 'string' ? JSON.parse(value) : value)
  } catch {
    throw bad('is not JSON')
  }
  if (!isRecord(s)) throw bad('is not an object')
  const r = s.replaces
  if (!isRange(r)) throw bad('has no valid replaces [from, to)')
  const parsed = messageSchema.safeParse(s.message)
  if (!parsed.success)
    throw bad(`has an invalid message (field ${parsed.error.issues[0]?.path.join('.') || 'role'})`)
  return {
    ...s,
    replaces: [r[0], r[1]],
    message: parsed.data,
    tokens: isWhole(s.tokens) && s.tokens > 0 ? s.tokens : undefined,
  }
}

/** A value the PostgreSQL store kept as JSON text (`{ "json": "…" }`, see `storable` there), parsed. */
function unwrapped(value: unknown): unknown {
  return isRecord(value) && typeof value.json === 'string' && Object.keys(value).length === 1
    ? JSON.parse(value.json)
    : value
}

import { ContextWindowError, InvalidInputError } from '../errors.js'
import { messageIssue } from '../messages/check.js'
import type { Message } from '../messages/message.js'
import { describeValue, isRecord } from '../options-check.js'
import { isWhole } from './stored-json.js'

/** A stored message with what another process needs not to count it again. */
export interface StoredEntry {
  /** Position in the conversation, from 0. */
  seq: number
  message: Message
  /** Tokens as counted by `counter`, when the writer counted them. */
  tokens?: number | undefined
  counter?: string | undefined
}

/** A summary kept beside the messages it stands for (never instead of them). */
export interface SummaryRecord {
  /** Conversation positions `[from, to)` it replaces. */
  replaces: [number, number]
  message: Message
  tokens?: number | undefined
}

export interface AppendOptions {
  /** Append only if the conversation still holds this many messages (optimistic concurrency). */
  expectedLength?: number
  /**
   * Entries that go first when the conversation is empty (its initial messages), in the same
   * step: a conversation the store lost (expired, cleared) starts again with them.
   */
  seed?: readonly Omit<StoredEntry, 'seq'>[]
  /**
   * Names this append so that sending it again (after a lost reply, a timeout, a failover) stores
   * it once: a store that saw the id returns the length it returned then and appends nothing.
   * The entries of a repeat are not compared. Stores remember an id at least an hour.
   */
  appendId?: string
}

/**
 * An append id: a non-empty string of at most 200 characters, without a lone surrogate or
 * U+0000, or a typed error. A server takes a lone surrogate for U+FFFD, so two ids would be one
 * and the second append would be dropped as a repeat; PostgreSQL text cannot hold U+0000.
 */
export function checkAppendId(id: string, appendId: unknown): asserts appendId is string {
  if (typeof appendId !== 'string' || appendId.length === 0 || appendId.length > 200)
    throw new InvalidInputError(`conversation ${id}: expected an appendId of 1 to 200 characters`, {
      field: 'appendId',
    })
  if (/\p{Surrogate}|\0/u.test(appendId))
    throw new InvalidInputError(
      `conversation ${id}: an appendId may not hold a lone surrogate or U+0000`,
      { field: 'appendId' },
    )
}

/**
 * The one check every store makes before an append: each entry holds a message by the
 * library's rules and, when given, a count that is a number and a counter name, or a typed
 * error names the entry and field.
 */
export function checkEntries(id: string, entries: unknown, what = 'entries'): void {
  if (!Array.isArray(entries))
    throw new InvalidInputError(`conversation ${id}: expected a list of entries`, { field: what })
  for (let i = 0; i < entries.length; i++) {
    const e: unknown = entries[i]
    if (!isRecord(e))
      throw new InvalidInputError(`conversation ${id}: expected an entry object`, {
        index: i,
        field: what,
      })
    const issue = messageIssue(e.message)
    if (issue)
      throw new InvalidInputError(`conversation ${id}: ${issue.message}`, {
        index: i,
        field: ['message', ...issue.path].join('.'),
      })
    // A count's plausibility is the reader's to judge (it counts again when one lies).
    if (e.tokens !== undefined && typeof e.tokens !== 'number')
      throw new InvalidInputError(`conversation ${id}: expected a count`, {
        index: i,
        field: 'tokens',
      })
    if (e.counter !== undefined && typeof e.counter !== 'string')
      throw new InvalidInputError(`conversation ${id}: expected a counter name`, {
        index: i,
        field: 'counter',
      })
  }
}

/** The longest conversation id, in UTF-16 code units: PostgreSQL indexes an id with its append ids, in at most 2,704 bytes. */
/** How long a store call waits at most, in ms, when a store states no `timeoutMs` of its own. */
export const STORE_TIMEOUT_MS = 10_000

export const MAX_CONVERSATION_ID = 512

/**
 * The one check every store makes of a conversation id: a non-empty string of at most 512
 * UTF-16 code units, of well-formed Unicode and without U+0000, or a typed error. A lone
 * surrogate reaches a server as U+FFFD, so `'\uD800'`, `'\uDC00'` and `'\uFFFD'` would share
 * one conversation; PostgreSQL text cannot hold U+0000. The error does not quote the id.
 */
export function checkConversationId(store: string, id: unknown): asserts id is string {
  if (typeof id !== 'string' || id === '')
    throw new InvalidInputError(
      `${store}: expected a conversation id (a non-empty string), got ${describeValue(id)}`,
      { field: 'id' },
    )
  if (id.length > MAX_CONVERSATION_ID)
    throw new InvalidInputError(
      `${store}: a conversation id may hold at most ${MAX_CONVERSATION_ID} UTF-16 code units, got ${id.length}`,
      { field: 'id' },
    )
  const bad = /\p{Surrogate}|\0/u.exec(id)
  if (bad)
    throw new InvalidInputError(
      `${store}: a conversation id may not hold ${bad[0] === '\0' ? 'U+0000' : 'a lone surrogate'} (at index ${bad.index})`,
      { field: 'id' },
    )
}

/**
 * A read's range: whole positions, `from >= 0` and `to` (when given) `>= 0`, or a typed
 * error. Stores read negative positions differently (from the end, or not at all), and
 * would number what they return wrong.
 */
export function checkReadRange(id: string, from: unknown, to: unknown): void {
  const whole = (n: unknown) => isWhole(n) && n >= 0
  if (!whole(from) || (to !== undefined && !whole(to)))
    throw new InvalidInputError(`conversation ${id}: expected a range of whole positions >= 0`, {
      field: 'range',
    })
}

/** A window for `putLimit`: `null`, or whole tokens from 1 to 2^31 - 1 (PostgreSQL's integer), or a typed error. */
export function checkWindow(id: string, window: unknown): void {
  if (window !== null && !(isWhole(window) && window >= 1 && window <= 2 ** 31 - 1))
    throw new InvalidInputError(
      `conversation ${id}: expected a window of whole tokens from 1 to 2147483647, or null`,
      { field: 'window' },
    )
}

/** A summary's `replaces`: whole positions `[from, to)` with `0 <= from < to`. */
export function isRange(r: unknown): r is [number, number] {
  return (
    Array.isArray(r) &&
    r.length === 2 &&
    Number.isSafeInteger(r[0]) &&
    Number.isSafeInteger(r[1]) &&
    r[0] >= 0 &&
    r[1] > r[0]
  )
}

/**
 * The one check every store makes before it keeps a summary: its `replaces` is a range
 * `[from, to)` of whole positions with `from < to`, and its message is a message by the
 * library's rules, or a typed error names the field.
 */
export function checkSummary(id: string, summary: unknown): asserts summary is SummaryRecord {
  if (!isRecord(summary) || Array.isArray(summary))
    throw new InvalidInputError(`conversation ${id}: expected a summary { replaces, message }`, {
      field: 'summary',
    })
  if (!isRange(summary.replaces))
    throw new InvalidInputError(
      `conversation ${id}: expected replaces [from, to) with 0 <= from < to`,
      { field: 'summary.replaces' },
    )
  checkEntries(id, [{ message: summary.message }], 'summary')
}

/**
 * Where conversations live. Every method is per conversation id; appends are atomic (all
 * of a call's messages land together, in order, or none do).
 */
export interface HistoryStore {
  /** Appends messages; returns the new length. Throws `StoreConflictError` when `expectedLength` no longer holds. */
  append(
    id: string,
    entries: readonly Omit<StoredEntry, 'seq'>[],
    options?: AppendOptions,
  ): Promise<number>
  /** Entries `[from, to)` (default: all), in order. */
  read(id: string, from?: number, to?: number): Promise<StoredEntry[]>
  length(id: string): Promise<number>
  /** Increases on every change: a cheap way to see that something moved. */
  version(id: string): Promise<number>
  /**
   * Adds a summary beside the messages; fails with `StoreConflictError` if the version moved
   * since `expectedVersion`. A new summary supersedes those that end where it ends or before
   * (a later summary folds the earlier ones in), so a conversation keeps few summaries
   * however often it is summarized.
   */
  putSummary(
    id: string,
    summary: SummaryRecord,
    options?: { expectedVersion?: number },
  ): Promise<void>
  summaries(id: string): Promise<SummaryRecord[]>
  /** Keeps the window a provider taught for this conversation (`null` forgets it). Optional. */
  putLimit?(id: string, window: number | null): Promise<void>
  /** The window kept by `putLimit`, if any. Optional. */
  limit?(id: string): Promise<number | undefined>
  /** Removes the messages and summaries of a conversation, keeping its version moving. */
  clear(id: string): Promise<void>
  /** Removes everything about a conversation. */
  delete(id: string): Promise<void>
  /**
   * The longest any one call waits, in ms, before it fails with a `StoreError`. Optional: a
   * `ChatContext` sends a write that failed again (same append id) only within it, and takes
   * 10 s when a store does not say.
   */
  readonly timeoutMs?: number
  /**
   * Ends what the store opened (a connection, a pool). Optional here, as a store in memory
   * holds nothing open; the Redis and PostgreSQL stores declare it, and a process that made
   * one from a URL exits only once it is called.
   */
  close?(): Promise<void>
}

/** A store failed: the server went away, or what it holds is not a valid message. */
export class StoreError extends ContextWindowError {
  override name = 'StoreError'
  constructor(
    message: string,
    readonly conversation: string,
    readonly position?: number,
  ) {
    super(message)
  }
}

/** An optimistic write lost a race: re-read and try again. */
export class StoreConflictError extends StoreError {
  override name = 'StoreConflictError'
}

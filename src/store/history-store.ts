import { ContextWindowError } from '../errors.js'
import type { Message } from '../messages/message.js'

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
  /** Adds a summary beside the messages; fails with `StoreConflictError` if the version moved since `expectedVersion`. */
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

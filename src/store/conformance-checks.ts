/** What the store conformance tests share: the test they are written with, and their checks. */
import type { Message } from '../messages/message.js'
import type { HistoryStore, StoredEntry } from './history-store.js'
import { fieldOf } from './stored-json.js'

/** One conformance test: its title, and its body given a fresh store, a fresh id and a racing writer. */
export type StoreTest = (
  title: string,
  body: (
    store: HistoryStore,
    id: () => string,
    writer: () => Promise<HistoryStore>,
  ) => Promise<void>,
) => unknown

/** Writers in each race. */
export const RACERS = 6
/** The longest conversation id (UTF-16 code units) every store takes. */
export const MAX_ID = 512

export const user = (content: string): Message => ({ role: 'user', content })

/** A value in a failure's text: strings quoted with their escapes, long ones cut. */
export function show(value: unknown): string {
  if (typeof value === 'number') return String(value)
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value)
  return text.length > 40 ? `${text.slice(0, 30)}…(${text.length})` : text
}

export function entry(
  content: string,
  tokens?: number,
  counter?: string,
): Omit<StoredEntry, 'seq'> {
  return {
    message: user(content),
    ...(tokens !== undefined && { tokens }),
    ...(counter && { counter }),
  }
}

export function texts(entries: StoredEntry[]): unknown[] {
  return entries.map((e) => e.message.content)
}

export function fail(what: string): never {
  throw new Error(`store conformance: ${what}`)
}

export function equal(actual: unknown, expected: unknown, what: string): void {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)]
  if (a !== e) fail(`${what}: expected ${e}, got ${a}`)
}

export async function rejects(
  promise: Promise<unknown>,
  name: string,
  what: string,
): Promise<void> {
  const outcome = await promise.then(
    () => 'resolved',
    (e: unknown) => fieldOf(e, 'name'),
  )
  if (outcome !== name) fail(`${what}: expected a ${name}, got ${String(outcome)}`)
}

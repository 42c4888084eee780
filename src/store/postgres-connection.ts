/** How the PostgreSQL store reads a broken connection, and writes a value `jsonb` would refuse. */
import { fieldOf } from './stored-json.js'

/** How long an append id is remembered, as the Redis store does. */
export const APPEND_ID_SECONDS = 3600
/** Tries of an append whose connection broke. */
export const APPEND_ATTEMPTS = 3

/** The store's errors that came from a connection that broke (the server may have done the work). */
export const lostConnection = new WeakSet<object>()

/** A connection that broke, or a server that ended it (SQLSTATE class 08, 57P01-57P03). */
export function connectionLost(e: unknown): boolean {
  const code = fieldOf(e, 'code')
  if (typeof code === 'string' && (/^08/.test(code) || /^57P0[123]$/.test(code))) return true
  const message = e instanceof Error ? e.message : ''
  return /Connection terminated|ECONNRESET|EPIPE|ECONNREFUSED|socket hang up/i.test(message)
}

/**
 * What goes into a `jsonb` column. `jsonb` refuses `\u0000` and a lone surrogate, which a
 * message may hold (a tool's binary output, text cut mid-pair): such a value is kept as its
 * JSON text, `{ "json": "…" }`, where they are plain escapes, and read back whole.
 */
export function storable(value: object): object {
  const text = JSON.stringify(value)
  return /\\u(0000|d[89a-f])/i.test(text) ? { json: text } : value
}

/** What the PostgreSQL store takes, checked. */
import type { Pool, PoolConfig } from 'pg'
import { InvalidOptionError } from '../errors.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import { STORE_TIMEOUT_MS } from './history-store.js'
import { checkTablePrefix } from './postgres-schema.js'

export interface PostgresStoreOptions {
  /** `postgres://[user:password@]host[:port]/database`; or give a `pool`. */
  url?: string
  /** A `pg` Pool of your own: the store does not end it. */
  pool?: Pool
  /** Prefix of the table names (letters, digits, `_`; case folded, as PostgreSQL folds names). Default `cw_`. */
  tablePrefix?: string
  /**
   * Seconds a conversation lives after its last change: older ones are deleted by `sweep()`,
   * which writes run at most once a minute. Default: for ever.
   */
  ttl?: number
  /** Passed to `pg` when it makes the pool from `url`. */
  poolOptions?: PoolConfig
  /**
   * Longest wait for any one call, in ms, before it fails with a `StoreError`: pg's limits and
   * the server's `statement_timeout` on connections the store opens. Default 10,000.
   */
  timeoutMs?: number
}

/** The store's settings from its options, each checked (a wrong one is an `InvalidOptionError`). */
export function postgresSettings(options: PostgresStoreOptions) {
  requireOptions(options, 'postgresStore', [
    'url',
    'pool',
    'tablePrefix',
    'ttl',
    'poolOptions',
    'timeoutMs',
  ])
  for (const k of ['url', 'tablePrefix'] as const)
    requireArgument(
      options[k] === undefined || typeof options[k] === 'string',
      'postgresStore',
      k,
      'a string',
      options[k],
    )
  for (const k of ['pool', 'poolOptions'] as const)
    requireArgument(
      options[k] === undefined || (typeof options[k] === 'object' && options[k] !== null),
      'postgresStore',
      k,
      k === 'pool' ? 'a pg Pool' : 'pg pool options',
      options[k],
    )
  const { tablePrefix: given = 'cw_', ttl = 0, timeoutMs = STORE_TIMEOUT_MS } = options
  checkTablePrefix(given)
  // PostgreSQL folds unquoted names: `CW_` names the tables of `cw_`, so the schema lock and
  // the messages name them folded too (two spellings starting together would otherwise race).
  const tablePrefix = given.toLowerCase()
  if (!Number.isInteger(ttl) || ttl < 0)
    throw new InvalidOptionError('ttl', `expected whole seconds >= 0, got ${describeValue(ttl)}`)
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1)
    throw new InvalidOptionError(
      'timeoutMs',
      `expected a positive whole number of ms, got ${describeValue(timeoutMs)}`,
    )
  return { tablePrefix, ttl, timeoutMs }
}

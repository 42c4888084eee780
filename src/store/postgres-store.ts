import type { Pool, PoolClient, PoolConfig } from 'pg'
import { InvalidInputError, InvalidOptionError } from '../errors.js'
import { isRecord } from '../options-check.js'
import { newAppendId } from './append-id.js'
import {
  type AppendOptions,
  checkAppendId,
  checkConversationId,
  checkEntries,
  checkReadRange,
  checkSummary,
  checkWindow,
  type HistoryStore,
  StoreConflictError,
  StoreError,
} from './history-store.js'
import {
  APPEND_ATTEMPTS,
  APPEND_ID_SECONDS,
  connectionLost,
  lostConnection,
  storable,
} from './postgres-connection.js'
import { type PostgresStoreOptions, postgresSettings } from './postgres-options.js'
import { SCHEMA_VERSION, schemaSql } from './postgres-schema.js'
import { checkServerUrl } from './server-url.js'
import { firstLineOf } from './stored-json.js'
import { readEntry, readSummary } from './stored-values.js'

/** The PostgreSQL store: a `HistoryStore` with `sweep()`, which deletes conversations past their `ttl`. */
export interface PostgresStore extends HistoryStore {
  /** Deletes conversations idle for longer than `ttl` (none without one); returns how many. */
  sweep(): Promise<number>
  /** Ends the pool the store made from `url` (a pool you gave stays open). */
  close(): Promise<void>
}

/**
 * Conversations in PostgreSQL, for teams that keep their data there. One row per
 * conversation (length, version, learned limit) that every change locks (`SELECT … FOR
 * UPDATE`), so appends to one conversation are serialized, land whole and in order in one
 * transaction, and the expected-length check and the append id are read under the same lock.
 * Messages and summaries are `jsonb` rows, checked when read. `pg` is an optional peer
 * dependency, loaded here. Errors never carry message contents or the password.
 */
export async function postgresStore(options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const { tablePrefix, ttl, timeoutMs } = postgresSettings(options)
  let pool = options.pool
  let owned = false
  let hide = (text: string) => text
  if (!pool) {
    if (options.url === undefined)
      throw new InvalidOptionError('url', 'postgresStore needs a url or a pool')
    hide = checkServerUrl(options.url, {
      schemes: ['postgres:', 'postgresql:'],
      form: 'postgres://[user:password@]host[:port]/database',
    })
    let mod: { Pool: new (config: PoolConfig) => Pool }
    try {
      const loaded = (await import('pg')) as unknown as typeof mod & { default?: typeof mod }
      mod = loaded.default ?? loaded
    } catch {
      throw new InvalidOptionError('store', 'postgresStore needs the "pg" package: npm install pg')
    }
    pool = new mod.Pool({
      connectionString: options.url,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      // The server's own limit too: a statement waiting for a row another transaction holds
      // is cancelled there, so the transaction ends and the call fails in time (pg's limit
      // alone leaves the statement running and the ROLLBACK queued behind it).
      statement_timeout: timeoutMs,
      ...options.poolOptions,
    })
    // A broken connection surfaces as a StoreError from the call that meets it, never as an
    // 'error' event nobody listens to (which would end the process): on the pool for idle
    // clients, and on every client for a server's FATAL that lands between two of pg's listeners.
    pool.on('error', () => {})
    pool.on('connect', (client) => client.on('error', () => {}))
    owned = true
  }
  const db = pool
  const t = (name: string) => `${tablePrefix}${name}`

  const fail = (id: string, what: string, e: unknown): never => {
    if (e instanceof StoreError || e instanceof InvalidInputError) throw e
    const message = firstLineOf(e instanceof Error ? e.message : String(e))
    const about = id === '' ? '' : ` for conversation ${id}`
    throw new StoreError(`postgres store: ${what}${about} failed (${hide(message)})`, id)
  }

  const query = async <R extends object>(
    id: string,
    what: string,
    sql: string,
    args: unknown[],
  ) => {
    try {
      return (await db.query<R>(sql, args)).rows
    } catch (e) {
      return fail(id, what, e)
    }
  }

  /** Runs `work` in a transaction on one connection; a connection that broke is not reused. */
  const transaction = async <T>(
    id: string,
    what: string,
    work: (c: PoolClient) => Promise<T>,
  ): Promise<T> => {
    let client: PoolClient | undefined
    let broken: Error | undefined
    // A connection killed while checked out emits 'error' on its client, which would
    // otherwise end the process: it fails the query in flight, and the client is dropped.
    const onError = (e: Error) => {
      broken = e
    }
    try {
      client = await db.connect()
      client.on('error', onError)
      await client.query('BEGIN')
      const out = await work(client)
      await client.query('COMMIT')
      return out
    } catch (e) {
      if (client) await client.query('ROLLBACK').catch((r: Error) => (broken = r))
      try {
        return fail(id, what, e)
      } catch (error) {
        if ((broken || connectionLost(e)) && isRecord(error)) lostConnection.add(error)
        throw error
      }
    } finally {
      client?.off('error', onError)
      client?.release(broken)
    }
  }

  /** The conversation's row, created if missing, locked until the transaction ends. */
  const lock = async (c: PoolClient, id: string) => {
    await c.query(
      `INSERT INTO ${t('conversations')} (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`,
      [id],
    )
    const rows = (
      await c.query<{ length: number; version: string }>(
        `SELECT length, version FROM ${t('conversations')} WHERE id = $1 FOR UPDATE`,
        [id],
      )
    ).rows
    return { length: rows[0]?.length ?? 0, version: Number(rows[0]?.version ?? 0) }
  }

  const touch = (c: PoolClient, id: string, grow: number) =>
    c.query(
      `UPDATE ${t('conversations')} SET length = length + $2, version = version + 1, updated_at = now() WHERE id = $1`,
      [id, grow],
    )

  // The schema, once per store, whoever starts first. A pool of its own goes if this fails.
  await transaction('', 'creating the schema', async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`context-window ${tablePrefix}`])
    await c.query(schemaSql(tablePrefix))
    const v = await c.query<{ value: string }>(
      `SELECT value FROM ${t('meta')} WHERE key = 'schema_version'`,
    )
    if (Number(v.rows[0]?.value) > SCHEMA_VERSION)
      throw new StoreError(
        `postgres store: the tables ${tablePrefix}* are of schema version ${v.rows[0]?.value}, newer than this version knows (${SCHEMA_VERSION})`,
        '',
      )
  }).catch(async (e: unknown) => {
    if (owned) await db.end().catch(() => {})
    throw e
  })

  let lastSweep = Date.now()
  const sweep = async () => {
    lastSweep = Date.now()
    if (ttl === 0) {
      await query('', 'sweep', `DELETE FROM ${t('appends')} WHERE at < now() - $1::interval`, [
        `${APPEND_ID_SECONDS} seconds`,
      ])
      return 0
    }
    const rows = await query<{ id: string }>(
      '',
      'sweep',
      `DELETE FROM ${t('conversations')} WHERE updated_at < now() - $1::interval RETURNING id`,
      [`${ttl} seconds`],
    )
    await query('', 'sweep', `DELETE FROM ${t('appends')} WHERE at < now() - $1::interval`, [
      `${APPEND_ID_SECONDS} seconds`,
    ])
    return rows.length
  }
  const maybeSweep = () => {
    if (Date.now() - lastSweep > 60_000) void sweep().catch(() => {})
  }

  const checkId = (id: unknown): void => checkConversationId('postgres store', id)

  return {
    timeoutMs,
    async append(id, entries, opts: AppendOptions = {}) {
      checkId(id)
      checkEntries(id, entries)
      if (opts.seed !== undefined) checkEntries(id, opts.seed, 'seed')
      if (opts.appendId !== undefined) checkAppendId(id, opts.appendId)
      const encode = (list: typeof entries) =>
        list.map((e) => storable({ m: e.message, t: e.tokens, c: e.counter }))
      // Without a caller's id, one of the store's own: the retry below is then safe too.
      const appendId = opts.appendId ?? newAppendId()
      const attempt = () =>
        transaction(id, 'append', async (c) => {
          const { length } = await lock(c, id)
          const seen = await c.query<{ length: number }>(
            `SELECT length FROM ${t('appends')} WHERE conversation = $1 AND append_id = $2 AND at > now() - $3::interval`,
            [id, appendId, `${APPEND_ID_SECONDS} seconds`],
          )
          if (seen.rows[0]) return seen.rows[0].length
          if (opts.expectedLength !== undefined && opts.expectedLength !== length)
            return { conflict: length }
          const all = encode(length === 0 && opts.seed ? [...opts.seed, ...entries] : entries)
          await c.query(
            `INSERT INTO ${t('messages')} (conversation, seq, entry)
           SELECT $1, $2 + e.ord - 1, e.value FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS e(value, ord)`,
            [id, length, JSON.stringify(all)],
          )
          await touch(c, id, all.length)
          await c.query(
            `INSERT INTO ${t('appends')} (conversation, append_id, length) VALUES ($1, $2, $3)
             ON CONFLICT (conversation, append_id) DO UPDATE SET length = EXCLUDED.length, at = now()`,
            [id, appendId, length + all.length],
          )
          return length + all.length
        })
      // A connection that broke mid-append (even after COMMIT, with only the answer lost) is
      // tried again under the same id, on another connection: stored once either way.
      let result: Awaited<ReturnType<typeof attempt>> | undefined
      for (let k = 1; result === undefined; k++) {
        try {
          result = await attempt()
        } catch (e) {
          if (k >= APPEND_ATTEMPTS || !(isRecord(e) && lostConnection.has(e))) throw e
          await new Promise((r) => setTimeout(r, 50 * k))
        }
      }
      maybeSweep()
      if (typeof result === 'object')
        throw new StoreConflictError(
          `conversation ${id} holds ${result.conflict} messages, not ${opts.expectedLength}`,
          id,
        )
      return result
    },
    async read(id, from = 0, to) {
      checkId(id)
      checkReadRange(id, from, to)
      const rows = await query<{ seq: number; entry: unknown }>(
        id,
        'read',
        `SELECT seq, entry FROM ${t('messages')} WHERE conversation = $1 AND seq >= $2::bigint AND ($3::bigint IS NULL OR seq < $3::bigint) ORDER BY seq`,
        [id, from, to ?? null],
      )
      return rows.map((r) => readEntry('postgres store', id, r.entry, r.seq))
    },
    async length(id) {
      checkId(id)
      const rows = await query<{ length: number }>(
        id,
        'length',
        `SELECT length FROM ${t('conversations')} WHERE id = $1`,
        [id],
      )
      return rows[0]?.length ?? 0
    },
    async version(id) {
      checkId(id)
      const rows = await query<{ version: string }>(
        id,
        'version',
        `SELECT version FROM ${t('conversations')} WHERE id = $1`,
        [id],
      )
      return Number(rows[0]?.version ?? 0)
    },
    async putSummary(id, summary, opts = {}) {
      checkId(id)
      checkSummary(id, summary)
      const conflict = await transaction(id, 'putSummary', async (c) => {
        const { version } = await lock(c, id)
        if (opts.expectedVersion !== undefined && opts.expectedVersion !== version) return version
        await c.query(
          `DELETE FROM ${t('summaries')} WHERE conversation = $1 AND replaces_end <= $2`,
          [id, summary.replaces[1]],
        )
        await c.query(
          `INSERT INTO ${t('summaries')} (conversation, replaces_end, record) VALUES ($1, $2, $3::jsonb)`,
          [id, summary.replaces[1], JSON.stringify(storable(summary))],
        )
        await touch(c, id, 0)
        return undefined
      })
      if (conflict !== undefined)
        throw new StoreConflictError(
          `conversation ${id} changed (version ${conflict}, expected ${opts.expectedVersion})`,
          id,
        )
    },
    async summaries(id) {
      checkId(id)
      const rows = await query<{ record: unknown }>(
        id,
        'summaries',
        `SELECT record FROM ${t('summaries')} WHERE conversation = $1 ORDER BY k`,
        [id],
      )
      return rows.map((r, k) => readSummary('postgres store', id, r.record, k))
    },
    async putLimit(id, window) {
      checkId(id)
      checkWindow(id, window)
      await query(
        id,
        'putLimit',
        `INSERT INTO ${t('conversations')} (id, window_limit) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET window_limit = EXCLUDED.window_limit, updated_at = now()`,
        [id, window],
      )
    },
    async limit(id) {
      checkId(id)
      const rows = await query<{ window_limit: number | null }>(
        id,
        'limit',
        `SELECT window_limit FROM ${t('conversations')} WHERE id = $1`,
        [id],
      )
      const n = rows[0]?.window_limit
      return typeof n === 'number' && n >= 1 ? n : undefined
    },
    async clear(id) {
      checkId(id)
      await transaction(id, 'clear', async (c) => {
        await lock(c, id)
        await c.query(`DELETE FROM ${t('messages')} WHERE conversation = $1`, [id])
        await c.query(`DELETE FROM ${t('summaries')} WHERE conversation = $1`, [id])
        await c.query(
          `UPDATE ${t('conversations')} SET length = 0, version = version + 1, updated_at = now() WHERE id = $1`,
          [id],
        )
      })
    },
    async delete(id) {
      checkId(id)
      await query(id, 'delete', `DELETE FROM ${t('conversations')} WHERE id = $1`, [id])
    },
    sweep,
    async close() {
      if (owned) await db.end().catch(() => {})
    },
  }
}

// The PostgreSQL store against a real server the test starts: what it creates, what it
// refuses, what it reads back, and appends from 4 processes whose connections are killed.
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { InvalidOptionError } from '../../src/errors.js'
import { StoreError } from '../../src/store/history-store.js'
import { schemaSql } from '../../src/store/postgres-schema.js'
import { postgresStore } from '../../src/store/postgres-store.js'
import { requireInCI } from '../helpers/ci.js'
import { echoingPostgres } from '../helpers/echoing-servers.js'
import { hasPostgres, type PostgresServer, startPostgres } from '../helpers/postgres-server.js'

const available = requireInCI(hasPostgres(), 'PostgreSQL (initdb, pg_ctl)')
const user = (content: string) => ({ role: 'user' as const, content })

/** Everything an error holds that could reach a log. */
const everything = (e: unknown) =>
  [
    (e as Error).message,
    (e as Error).stack,
    JSON.stringify(e),
    JSON.stringify(Object.entries(e as object)),
  ].join('\n')

describe('postgresStore: a bad URL is a typed error without the password', () => {
  it.each([
    'postgres://user:s3cretpw@host:notaport/db',
    'postgres://user:s3cr%etpw@127.0.0.1/db',
    'mysql://user:s3cretpw@127.0.0.1/db',
    'postgres://user:s3cretpw@',
  ])('%s', async (url) => {
    const error = await postgresStore({ url }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidOptionError)
    expect(everything(error)).not.toMatch(/s3cr/)
  })

  it('a server that is not there is a StoreError without the password', async () => {
    const error = await postgresStore({
      url: 'postgres://user:s3cretpw@127.0.0.1:1/db',
      timeoutMs: 2000,
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StoreError)
    expect(everything(error)).not.toMatch(/s3cr/)
  })
})

describe('postgresStore: a server that quotes the password back', () => {
  it('its refusal reaches the caller as a StoreError without the password', async () => {
    const server = await echoingPostgres()
    try {
      const error = await postgresStore({
        url: `postgres://user:s3cret%40pw@127.0.0.1:${server.port}/db`,
        timeoutMs: 2000,
      }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(StoreError)
      // The server did quote it: its refusal is there, with the password taken out.
      expect(everything(error)).toMatch(/password authentication failed/)
      expect(everything(error)).not.toMatch(/s3cr/)
    } finally {
      await server.close()
    }
  })
})

describe.runIf(available)('postgres store against a real server', () => {
  let server: PostgresServer
  let admin: pg.Pool
  beforeAll(async () => {
    server = await startPostgres()
    admin = new pg.Pool({ connectionString: server.url })
  }, 180_000)
  afterAll(async () => {
    await admin?.end()
    await server?.stop()
  })

  it('creates its tables, records the schema version, and several stores start together', async () => {
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => postgresStore({ url: server.url, tablePrefix: 'sch_' })),
    )
    const tables = await admin.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE tablename LIKE 'sch\\_%' ORDER BY tablename",
    )
    expect(tables.rows.map((r) => r.tablename)).toEqual([
      'sch_appends',
      'sch_conversations',
      'sch_messages',
      'sch_meta',
      'sch_summaries',
    ])
    const v = await admin.query("SELECT value FROM sch_meta WHERE key = 'schema_version'")
    expect(v.rows[0]?.value).toBe('1')
    for (const s of stores) await s.close()
    // Tables of a later version are not written by this one.
    await admin.query("UPDATE sch_meta SET value = '99' WHERE key = 'schema_version'")
    await expect(postgresStore({ url: server.url, tablePrefix: 'sch_' })).rejects.toThrow(
      /schema version 99/,
    )
  })

  it('a corrupted row is a StoreError naming the conversation and position, without its contents', async () => {
    const store = await postgresStore({ url: server.url })
    await store.append('bad', [{ message: user('secret text') }])
    await admin.query(
      `INSERT INTO cw_messages (conversation, seq, entry) VALUES ('bad', 1, '{"m": {"role": "user", "content": 42}}')`,
    )
    const error = await store.read('bad').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StoreError)
    expect((error as Error).message).toMatch(
      /postgres store: conversation bad, message 1: the stored message is invalid \(field content\)/,
    )
    expect((error as Error).message).not.toMatch(/secret/)
    await admin.query(
      `INSERT INTO cw_summaries (conversation, replaces_end, record) VALUES ('bad', 2, '{"replaces": [5, 2]}')`,
    )
    await expect(store.summaries('bad')).rejects.toThrow(StoreError)
    await store.close()
  })

  it('a conversation idle past its ttl is deleted by sweep()', async () => {
    const store = await postgresStore({ url: server.url, tablePrefix: 'ttl_', ttl: 60 })
    await store.append('old', [{ message: user('a') }])
    await store.append('new', [{ message: user('b') }])
    await admin.query(
      "UPDATE ttl_conversations SET updated_at = now() - interval '2 minutes' WHERE id = 'old'",
    )
    expect(await store.sweep()).toBe(1)
    expect(await store.read('old')).toEqual([])
    expect((await store.read('new')).map((e) => e.message.content)).toEqual(['b'])
    await store.close()
  })

  it('a pool of your own is used and not ended', async () => {
    const pool = new pg.Pool({ connectionString: server.url })
    const store = await postgresStore({ pool, tablePrefix: 'own_' })
    expect(await store.append('c', [{ message: user('a') }])).toBe(1)
    await store.close()
    expect((await pool.query('SELECT 1 AS one')).rows[0]?.one).toBe(1)
    await pool.end()
  })

  it('4 processes × 8 conversations × 40 appends while their connections are killed: every append once, in each writer order', async () => {
    const WRITERS = 4
    const CONVERSATIONS = 8
    const APPENDS = 40
    /** Appends answered between two waves of kills. */
    const WAVE_EVERY = 8
    const writer = fileURLToPath(new URL('./postgres-writer.ts', import.meta.url))
    const url = server.url.replace(/\/postgres$/, '/writers')
    await admin.query('CREATE DATABASE writers')
    // The schema first, so that the kills hit appends.
    await (await postgresStore({ url })).close()
    const writers: ChildProcess[] = []
    onTestFinished(() => {
      for (const p of writers) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
    })
    let total = 0
    let retries = 0
    const acked = new Map<string, Set<string>>()
    const exits = Array.from({ length: WRITERS }, (_, w) => {
      const name = `w${w}`
      const p = spawn(
        process.execPath,
        ['--import', 'tsx', writer, url, name, String(CONVERSATIONS), String(APPENDS)],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      )
      writers.push(p)
      let rest = ''
      p.stdout.on('data', (d: Buffer) => {
        const lines = (rest + d.toString()).split('\n')
        rest = lines.pop() ?? ''
        for (const line of lines) {
          const [conversation, k] = line.split(' ') as [string, string]
          if (conversation === 'retries') {
            retries += Number(k)
            continue
          }
          const seen = acked.get(conversation) ?? new Set()
          seen.add(`${name}:${k}`)
          acked.set(conversation, seen)
          total++
        }
      })
      return new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)))
    })
    const all = WRITERS * CONVERSATIONS * APPENDS
    let killed = 0
    let done = false
    void Promise.all(exits).then(() => {
      done = true
    })
    // Kill every connection of the writers, mid-transaction or not, in waves until three
    // quarters are in. A wave comes 100 ms after the last, once a quarter of the appends in
    // flight (8 of 32) have been answered since: on a machine too busy to open a connection
    // and run a transaction within 100 ms, waves on the clock alone let nothing through, and
    // the run took 190 s to past 300 s, or never ended; with each wave waiting for answers,
    // about 100 waves hit appends in flight however busy the machine.
    let waves = 0
    while (!done && total < (all * 3) / 4) {
      const r = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cw-writer'",
      )
      const hit = r.rowCount ?? 0
      killed += hit
      const before = total
      await new Promise((r) => setTimeout(r, 100))
      // A wave that found no connection (the writers still starting) waits for nothing.
      if (hit > 0) waves++
      while (hit > 0 && !done && total - before < WAVE_EVERY)
        await new Promise((r) => setTimeout(r, 10))
    }
    expect(await Promise.all(exits)).toEqual(Array(WRITERS).fill(0))
    // A wave lets 8 answers through, a few more while the next is sent: 960 need 20 at least.
    expect(waves).toBeGreaterThanOrEqual(20)
    expect(killed).toBeGreaterThanOrEqual(waves)
    const store = await postgresStore({ url })
    for (let c = 0; c < CONVERSATIONS; c++) {
      const conversation = `conv-${c}`
      const stored = (await store.read(conversation)).map((e) => String(e.message.content))
      expect(stored).toHaveLength(WRITERS * APPENDS)
      expect(new Set(stored).size).toBe(stored.length)
      for (const a of acked.get(conversation) ?? []) expect(stored).toContain(a)
      for (let w = 0; w < WRITERS; w++) {
        const mine = stored
          .filter((s) => s.startsWith(`w${w}:`))
          .map((s) => Number(s.split(':')[1]))
        expect(mine).toEqual(Array.from({ length: APPENDS }, (_, k) => k))
      }
    }
    await store.close()
    console.log(
      `postgres: ${killed} connections killed in ${waves} waves; ${retries} appends sent again`,
    )
  }, 300_000)
})

describe('the schema in docs/stores.md', () => {
  it('is the SQL the store runs', () => {
    const page = readFileSync(new URL('../../docs/stores.md', import.meta.url), 'utf8')
    const block = /```sql\n([\s\S]*?)```/.exec(page)?.[1]
    expect(block?.trim()).toBe(schemaSql('cw_').trim())
  })
})

describe('postgresSchemaSql', () => {
  it('gives the default prefix, and refuses a prefix that cannot stand in a table name', () => {
    expect(schemaSql()).toContain('CREATE TABLE IF NOT EXISTS cw_conversations')
    for (const bad of [{}, '', 'a;DROP TABLE x', 'cw-', 7, '__proto__"'])
      expect(() => schemaSql(bad as string)).toThrow(InvalidOptionError)
  })
})

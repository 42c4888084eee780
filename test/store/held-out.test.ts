// The Redis and PostgreSQL stores on inputs their other tests do not try: hostile conversation
// ids (hash-tag braces, control characters, astral and lone surrogates, U+0000, the longest, names of
// Object.prototype), message text PostgreSQL's jsonb refuses, a row lock held by someone
// else, an ACL user's password, and writers in separate processes on a hostile id.
import { execFile, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Cluster, Redis } from 'ioredis'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { InvalidInputError } from '../../src/errors.js'
import { type HistoryStore, StoreError } from '../../src/store/history-store.js'
import { memoryStore } from '../../src/store/memory-store.js'
import { postgresStore } from '../../src/store/postgres-store.js'
import { redisStore } from '../../src/store/redis-store.js'
import { requireInCI } from '../helpers/ci.js'
import { hasPostgres, type PostgresServer, startPostgres } from '../helpers/postgres-server.js'
import { type RedisCluster, startRedisCluster } from '../helpers/redis-cluster.js'
import { hasRedisServer, type RedisServer, startRedis } from '../helpers/redis-server.js'

const redisAvailable = requireInCI(hasRedisServer(), 'redis-server')
const postgresAvailable = requireInCI(hasPostgres(), 'PostgreSQL (initdb, pg_ctl)')
const run = promisify(execFile)
const user = (content: string) => ({ role: 'user' as const, content })

/** Ids every store must keep apart: each is its own conversation. */
const hostileIds = [
  '{a}',
  'a}{b',
  '}{',
  '{}',
  '{',
  '}',
  '{{x}}',
  '%7B',
  '%7Ba%7D',
  '%',
  '%25',
  'a:b/c d',
  'cw:{x}:messages',
  'x\ny\r\tz',
  ' ',
  '😀',
  '𝒳{😀}',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'Case',
  'case',
  'CASE',
  'é',
  'e\u0301',
  '\uFFFD',
  'x'.repeat(512),
  `${'x'.repeat(511)}{`,
]

/** Everything an error holds that could reach a log. */
const everything = (e: unknown) =>
  [
    (e as Error).message,
    (e as Error).stack,
    JSON.stringify(e),
    JSON.stringify(Object.entries(e as object)),
  ].join('\n')

/** Appends one message per id, then reads each back: its own message, and only it. */
async function keptApart(store: HistoryStore, ids: string[], tag: string) {
  await Promise.all(ids.map((id, k) => store.append(id, [{ message: user(`${tag}${k}`) }])))
  const read = await Promise.all(ids.map((id) => store.read(id)))
  return read.map((entries) => entries.map((e) => e.message.content))
}

/** Ids a server cannot keep apart (a lone surrogate reaches it as U+FFFD). */
const loneSurrogates = [
  'z\uD800',
  'z\uDC00',
  'z\uDBFF',
  `z${'😀'.slice(1)}`,
  `z${'😀'.slice(0, 1)}`,
]

/** Reads every store must answer alike: from..to of 5 messages, by seq. */
const ranges: [number, number | undefined, number[]][] = [
  [0, 0, []],
  [2, 2, []],
  [3, 1, []],
  [0, undefined, [0, 1, 2, 3, 4]],
  [4, 99, [4]],
  [9, undefined, []],
  [1, 3, [1, 2]],
]
const badRanges: [number, number | undefined][] = [
  [-2, undefined],
  [1, -1],
  [Number.NaN, 2],
  [1.5, 3],
  [0, Number.POSITIVE_INFINITY],
]

/** Ids no store takes: one rule for all, as a server cannot keep them apart or hold them. */
function idCases(name: string, make: () => Promise<HistoryStore>) {
  it(`${name}: append ids that differ only in a lone surrogate, or hold U+0000, are refused with an InvalidInputError (a server would take them for one id and drop the second append)`, async () => {
    const store = await make()
    await store.append('aid', [{ message: user('x\uFFFD') }], { appendId: 'x\uFFFD' })
    for (const appendId of ['x\uD800', 'x\uDC00', `x${'😀'.slice(1)}`, 'n\0a', '\0'])
      await expect(
        store.append('aid', [{ message: user(appendId) }], { appendId }),
      ).rejects.toMatchObject({ name: 'InvalidInputError', field: 'appendId' })
    // Ids of astral characters and look-alikes stay apart: each append is stored.
    for (const appendId of ['x😀', 'x😁', 'x\uFFFD\uFFFD', 'X\uFFFD', '{x}', '}{'])
      await store.append('aid', [{ message: user(appendId) }], { appendId })
    expect((await store.read('aid')).map((e) => e.message.content)).toEqual([
      'x\uFFFD',
      'x😀',
      'x😁',
      'x\uFFFD\uFFFD',
      'X\uFFFD',
      '{x}',
      '}{',
    ])
    await store.close?.()
  })

  it(`${name}: ${hostileIds.length} hostile ids are ${hostileIds.length} conversations, as in memory`, async () => {
    const store = await make()
    const expected = hostileIds.map((_, k) => [`m${k}`])
    expect(await keptApart(memoryStore(), hostileIds, 'm')).toEqual(expected)
    expect(await keptApart(store, hostileIds, 'm')).toEqual(expected)
    await store.close?.()
  })

  it(`${name}: reads of ${ranges.length} ranges give the same seqs as memory; ${badRanges.length} bad ranges and 4 bad windows are InvalidInputErrors`, async () => {
    const store = await make()
    for (let k = 0; k < 5; k++) await store.append('r', [{ message: user(`m${k}`) }])
    for (const [from, to, seqs] of ranges)
      expect(
        (await store.read('r', from, to)).map((e) => e.seq),
        `${from}..${to}`,
      ).toEqual(seqs)
    for (const [from, to] of badRanges)
      await expect(store.read('r', from, to), `${from}..${to}`).rejects.toMatchObject({
        name: 'InvalidInputError',
        field: 'range',
      })
    for (const window of [0, 1.5, -1, 2 ** 31])
      await expect(store.putLimit?.('r', window), `${window}`).rejects.toMatchObject({
        name: 'InvalidInputError',
        field: 'window',
      })
    await store.putLimit?.('r', 2 ** 31 - 1)
    expect(await store.limit?.('r')).toBe(2 ** 31 - 1)
    await store.close?.()
  })

  it(`${name}: an id with a lone surrogate is an InvalidInputError and stores nothing, where it would share U+FFFD's conversation`, async () => {
    const store = await make()
    await store.append('z\uFFFD', [{ message: user('replacement') }])
    for (const id of loneSurrogates) {
      await expect(store.append(id, [{ message: user('lone') }])).rejects.toMatchObject({
        name: 'InvalidInputError',
        field: 'id',
      })
      await expect(store.read(id)).rejects.toBeInstanceOf(InvalidInputError)
    }
    expect((await store.read('z\uFFFD')).map((e) => e.message.content)).toEqual(['replacement'])
    await store.close?.()
  })

  it(`${name}: an id with U+0000 (PostgreSQL text cannot hold it), or of 513 code units to 10 KB (past what PostgreSQL indexes), is an InvalidInputError and stores nothing`, async () => {
    const store = await make()
    for (const id of ['a\0b', 'a\0', '\0', 'x'.repeat(513), '\u754c'.repeat(10_000)]) {
      await expect(store.append(id, [{ message: user('x') }])).rejects.toMatchObject({
        name: 'InvalidInputError',
        field: 'id',
      })
      await expect(store.length(id)).rejects.toBeInstanceOf(InvalidInputError)
    }
    expect(await store.length('a')).toBe(0)
    await store.close?.()
  })
}

/** Stored counts that must not be believed: not a count, far from the message's size, or plausible and wrong. */
const lies: unknown[] = [
  -5,
  0,
  1.5,
  '12',
  'NaN',
  1e300,
  2 ** 53 + 2,
  null,
  [186],
  {},
  1,
  10_000_000,
  // Plausible for the text's length, and wrong: under what it counts (a reader believing it
  // sends over its budget), over it (one that believes it sends too little, or nothing).
  45,
  300,
  20_000,
]

/**
 * Writes 30 messages of CJK and astral text through a context, has `lie` put each lying
 * count in place of every stored one, and compares what a fresh context on the lied-to
 * conversation sends with what one on an honest copy sends: the same messages, the same total.
 */
async function liesChangeNothing(
  store: HistoryStore,
  id: string,
  lie: (value: unknown) => Promise<void>,
) {
  const honest = memoryStore()
  for (const s of [store, honest]) {
    const writer = new ChatContext({ store: s, id, model: 'gpt-4o' })
    for (let k = 0; k < 30; k++)
      await writer.addMessage({
        role: k % 2 ? 'assistant' : 'user',
        content: `${k} ${'漢字😀'.repeat(20 + k)}`,
      })
  }
  for (const value of lies) {
    await lie(value)
    for (const budget of [600, 4000]) {
      const lied = new ChatContext({ store, id, model: 'gpt-4o', budget })
      const truth = new ChatContext({ store: honest, id, model: 'gpt-4o', budget })
      expect(await lied.getMessages(), `count ${JSON.stringify(value)}`).toEqual(
        await truth.getMessages(),
      )
      expect(lied.fit().tokens).toEqual(truth.fit().tokens)
    }
  }
}

idCases('memory', async () => memoryStore())

describe.runIf(redisAvailable)('redis store: held-out inputs', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(async () => {
    await server?.stop()
  })

  idCases('redis', () => redisStore({ url: server.url, prefix: 'ids:' }))

  it(`redis: ${lies.length} lying stored counts (edited in the server) change nothing a reader sends`, async () => {
    const store = await redisStore({ url: server.url, prefix: 'lies:' })
    const raw = new Redis(server.url)
    await liesChangeNothing(store, 'c', async (value) => {
      const entries = await raw.lrange('lies:{c}:messages', 0, -1)
      const edited = entries.map((e) => JSON.stringify({ ...JSON.parse(e), t: value }))
      await raw.del('lies:{c}:messages')
      await raw.rpush('lies:{c}:messages', ...edited)
    })
    await raw.quit()
    await store.close()
  })
})

describe.runIf(redisAvailable)('redis store: an ACL user and writers in other processes', () => {
  let server: RedisServer
  let admin: Redis
  beforeAll(async () => {
    server = await startRedis()
    admin = new Redis(server.url)
  })
  afterAll(async () => {
    await admin?.quit()
    await server?.stop()
  })

  // The password as the server knows it, and as written in a URL.
  const password = 'p@ss:w/rd%21-S3cret'
  const inUrl = encodeURIComponent(password)
  const url = (pw: string) => `redis://agent:${pw}@127.0.0.1:${server.port}`
  const leaks = (e: unknown) => /p@ss|S3cret|Wr0ng|p%40ss/.test(everything(e))

  it("an ACL user's password is never in an error: refused at login, or changed under a running store", async () => {
    await admin.call('ACL', 'SETUSER', 'agent', 'on', `>${password}`, '~*', '+@all')
    const store = await redisStore({ url: url(inUrl), timeoutMs: 1000 })
    await store.append('c', [{ message: user('in') }])
    expect(await store.length('c')).toBe(1)

    const wrong = await redisStore({ url: url('Wr0ng%3Apw'), timeoutMs: 1000 })
    const refused = await wrong.append('c', [{ message: user('x') }]).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(StoreError)
    expect(leaks(refused)).toBe(false)
    await wrong.close()

    // The password changes and the connection is cut: the store's next calls fail, cleanly.
    await admin.call('ACL', 'SETUSER', 'agent', 'resetpass', '>another-one')
    await admin.call('CLIENT', 'KILL', 'USER', 'agent')
    const after = await store.append('c', [{ message: user('y') }]).catch((e: unknown) => e)
    expect(after).toBeInstanceOf(StoreError)
    expect(leaks(after)).toBe(false)
    await store.close()
    expect(await admin.llen('cw:{c}:messages')).toBe(1)
  })

  it('3 processes × 150 appends to one hostile id ("}{", newline, astral, __proto__): 450 stored once, each order kept', async () => {
    const id = '}{:\n😀 __proto__ {x}'
    const writer = fileURLToPath(new URL('./writer.ts', import.meta.url))
    await Promise.all(
      [0, 1, 2].map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const p = spawn(
              process.execPath,
              ['--import', 'tsx', writer, server.url, id, `w${w}`, '150'],
              { stdio: 'ignore' },
            )
            p.on('exit', (code) =>
              code === 0 ? resolve() : reject(new Error(`writer ${w} exited ${code}`)),
            )
          }),
      ),
    )
    const store = await redisStore({ url: server.url })
    const all = (await store.read(id)).map((e) => String(e.message.content))
    expect(all).toHaveLength(450)
    expect(new Set(all).size).toBe(450)
    for (const w of ['w0', 'w1', 'w2'])
      expect(all.filter((c) => c.startsWith(`${w}:`))).toEqual(
        Array.from({ length: 150 }, (_, k) => `${w}:${k}`),
      )
    // One conversation, one slot: every key of the id sits under one hash tag.
    expect((await admin.keys('cw:{%7D*')).filter((k) => !k.includes(':append:')).sort()).toEqual(
      [
        'cw:{%7D%7B:\n😀 __proto__ %7Bx%7D}:messages',
        'cw:{%7D%7B:\n😀 __proto__ %7Bx%7D}:version',
      ].sort(),
    )
    await store.close()
  }, 60_000)
})

describe.runIf(redisAvailable)('redis store: a server that restarts mid-run', () => {
  it('appends resent under their appendId across a SIGKILL and restart (append-only file) are each stored once, in order', async () => {
    const server = await startRedis({ appendonly: true })
    const store = await redisStore({
      url: server.url,
      timeoutMs: 1000,
      redisOptions: { retryStrategy: () => 50 },
    })
    let killed = () => {}
    const down = new Promise<void>((r) => {
      killed = r
    })
    let halfway = () => {}
    const fifty = new Promise<void>((r) => {
      halfway = r
    })
    // Two writers: one waits after its 51st append until the server is dead (so the rest of
    // its appends meet it down), the other keeps going (so some are in flight at the kill).
    const writer = async (id: string, pause: boolean) => {
      for (let k = 0; k < 200; k++) {
        for (;;) {
          try {
            await store.append(id, [{ message: user(`m${k}`) }], { appendId: `a${k}` })
            break
          } catch (e) {
            expect(e).toBeInstanceOf(StoreError)
            await new Promise((r) => setTimeout(r, 20))
          }
        }
        if (k === 50 && pause) {
          halfway()
          await down
        }
      }
    }
    const ids = ['{restart}:😀', '}{restart 2']
    const writing = Promise.all([writer(ids[0] as string, true), writer(ids[1] as string, false)])
    await fifty
    await server.kill()
    killed()
    await new Promise((r) => setTimeout(r, 300))
    await server.start()
    await writing
    for (const id of ids)
      expect((await store.read(id)).map((e) => e.message.content)).toEqual(
        Array.from({ length: 200 }, (_, k) => `m${k}`),
      )
    await store.close()
    await server.stop()
  }, 30_000)
})

describe.runIf(postgresAvailable)('postgres store: held-out inputs', () => {
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

  idCases('postgres', () => postgresStore({ url: server.url, tablePrefix: 'ids_' }))

  it('postgres: messages and summaries with U+0000 and lone surrogates (jsonb refuses them) are stored and read back whole', async () => {
    const store = await postgresStore({ url: server.url, tablePrefix: 'text_' })
    const texts = [
      'nul\0inside',
      '\0',
      'cut\uD800',
      '\uDC00x',
      `half ${'😀'.slice(0, 1)}`,
      'a literal \\u0000 and \\ud800, written out',
      '{"json":"not a wrapper"}',
    ]
    const messages = texts.map((t, k) =>
      k % 2 ? { role: 'assistant' as const, content: t } : user(t),
    )
    messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'c\0', name: 'run', arguments: '{"x":"\u0000"}' }],
    } as never)
    for (const message of messages) await store.append('c', [{ message, tokens: 3, counter: 'n' }])
    await store.append('c', [{ message: user('two\0') }, { message: user('at once\uDFFF') }])
    const back = await store.read('c')
    expect(back.map((e) => e.message)).toEqual([...messages, user('two\0'), user('at once\uDFFF')])
    expect(back[0]).toMatchObject({ seq: 0, tokens: 3, counter: 'n' })
    const summary = { replaces: [0, 2] as [number, number], message: user('sum\0\uD800') }
    await store.putSummary('c', summary)
    expect((await store.summaries('c')).map((s) => s.message)).toEqual([summary.message])
    // A row that merely looks like the wrapper is a message of its own, not unwrapped.
    expect(back[6]?.message.content).toBe('{"json":"not a wrapper"}')
    await store.close()
  })

  it('postgres: an append waiting on a row another transaction holds fails with a StoreError within timeoutMs, stores nothing, and the store goes on', async () => {
    const store = await postgresStore({ url: server.url, tablePrefix: 'lock_', timeoutMs: 1000 })
    await store.append('c', [{ message: user('first') }])
    const holder = await admin.connect()
    await holder.query('BEGIN')
    await holder.query(`SELECT * FROM lock_conversations WHERE id = 'c' FOR UPDATE`)
    // The lock is held until the append settles, or for 4 s (4 times its limit) if it does not.
    const outcome = await Promise.race([
      store.append('c', [{ message: user('second') }]).then(
        () => 'stored while locked',
        (e: unknown) => e,
      ),
      new Promise((r) => setTimeout(() => r('still waiting'), 4000)),
    ])
    await holder.query('ROLLBACK')
    holder.release()
    expect(outcome).toBeInstanceOf(StoreError)
    expect((await store.read('c')).map((e) => e.message.content)).toEqual(['first'])
    // Every connection of the pool is free again: appends and reads go on.
    await Promise.all(
      Array.from({ length: 12 }, (_, k) => store.append('c', [{ message: user(`k${k}`) }])),
    )
    expect(await store.length('c')).toBe(13)
    await store.close()
  }, 20_000)

  it('postgres: table prefixes that differ only in case name the same tables, and stores on them start together', async () => {
    for (let round = 0; round < 3; round++) {
      const spellings = ['Race', 'RACE', 'race', 'rAce', 'raCe', 'racE'].map((p) => `${p}${round}_`)
      const stores = await Promise.all(
        spellings.map((tablePrefix) => postgresStore({ url: server.url, tablePrefix })),
      )
      await Promise.all(stores.map((s, k) => s.append('c', [{ message: user(`s${k}`) }])))
      for (const s of stores) expect(await s.length('c')).toBe(6)
      await Promise.all(stores.map((s) => s.close()))
    }
    const tables = await admin.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_tables WHERE tablename LIKE 'race%'`,
    )
    expect(Number(tables.rows[0]?.n)).toBe(15)
  })

  it('postgres: the longest prefix works; a longer one, tables of a later version, and a password in the database name are refused without it', async () => {
    const longest = await postgresStore({ url: server.url, tablePrefix: `${'p'.repeat(40)}_` })
    await longest.append('c', [{ message: user('x') }])
    expect(await longest.length('c')).toBe(1)
    await longest.close()
    await expect(
      postgresStore({ url: server.url, tablePrefix: `${'p'.repeat(41)}_` }),
    ).rejects.toMatchObject({ name: 'InvalidOptionError', option: 'tablePrefix' })

    await (await postgresStore({ url: server.url, tablePrefix: 'later_' })).close()
    await admin.query(`UPDATE later_meta SET value = '2' WHERE key = 'schema_version'`)
    await expect(postgresStore({ url: server.url, tablePrefix: 'later_' })).rejects.toThrow(
      /schema version 2, newer than this version knows \(1\)/,
    )

    const secret = 'Hunter2-pw'
    const quoted = await postgresStore({
      url: server.url
        .replace('postgres@', `postgres:${secret}@`)
        .replace(/\/postgres$/, `/${secret}`),
      timeoutMs: 2000,
    }).catch((e: unknown) => e)
    expect(quoted).toBeInstanceOf(StoreError)
    expect(everything(quoted)).toMatch(/database "\*\*\*" does not exist/)
    expect(everything(quoted)).not.toMatch(/Hunter2/)
  })

  it(`postgres: ${lies.length} lying stored counts (edited in the server) change nothing a reader sends`, async () => {
    const store = await postgresStore({ url: server.url, tablePrefix: 'lies_' })
    await liesChangeNothing(store, 'c', async (value) => {
      await admin.query(`UPDATE lies_messages SET entry = jsonb_set(entry, '{t}', $1::jsonb)`, [
        JSON.stringify(value),
      ])
    })
    await store.close()
  })

  it('postgres: an id with U+0000 (text cannot hold it) is an InvalidInputError, not a server failure', async () => {
    const store = await postgresStore({ url: server.url, tablePrefix: 'ids_' })
    for (const id of ['a\0b', '\0'])
      await expect(store.append(id, [{ message: user('x') }])).rejects.toMatchObject({
        name: 'InvalidInputError',
        field: 'id',
      })
    await store.close()
  })
})

/** The hash tag the Redis store writes for an id, as docs/stores.md gives it. */
const documentedTag = (id: string) =>
  id.replace(/[%{}]/g, (c) => ({ '%': '%25', '{': '%7B', '}': '%7D' })[c] as string)

describe.runIf(redisAvailable)(
  'redis cluster: conversations over every master while slots move',
  () => {
    let cluster: RedisCluster
    beforeAll(async () => {
      cluster = await startRedisCluster()
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    it('every append of 240 hostile ids lands once and in order while redis-cli reshards 100 slots under them; a client through another node reads them all', async () => {
      const [seed, other] = cluster.nodes as [{ host: string; port: number }, { port: number }]
      const probe = new Redis(seed.port, '127.0.0.1')
      // Which master serves which slot, and the slot of each candidate id's keys (the server says).
      const masterOf = async () =>
        (await probe.cluster('SLOTS')).map(([a, b, node]) => ({ a, b, id: node?.[2] ?? '' }))
      const ranges = await masterOf()
      const owner = (slot: number) => ranges.find(({ a, b }) => slot >= a && slot <= b)?.id
      const from = ranges.find(({ a }) => a === 0)?.id ?? ''
      const to = ranges.find(({ id }) => id !== from)?.id ?? ''
      const shapes = ['{k}', '}{k', '{}k', 'k:/ 😀', 'cw:{k}:messages', '__proto__k', 'k\n%7B']
      const candidates = Array.from({ length: 6000 }, (_, k) =>
        (shapes[k % shapes.length] as string).replace('k', String(k)),
      )
      const pipe = probe.pipeline()
      for (const id of candidates) pipe.cluster('KEYSLOT', `cw:{${documentedTag(id)}}:messages`)
      const slots = ((await pipe.exec()) ?? []).map(([, s]) => s as number)
      const moving = candidates.filter((_, k) => (slots[k] as number) < 100).slice(0, 40)
      const staying = candidates.filter((_, k) => (slots[k] as number) >= 100).slice(0, 200)
      expect(moving).toHaveLength(40)
      // The staying ids reach all 3 masters.
      const masters = new Set(staying.map((id) => owner(slots[candidates.indexOf(id)] as number)))
      expect(masters.size).toBe(3)

      const client = new Cluster([seed], { retryDelayOnTryAgain: 50, retryDelayOnMoved: 50 })
      client.on('error', () => {})
      const store = await redisStore({ client, timeoutMs: 5000, replicas: 1 })
      // Each conversation appends until the reshard is over (at least ROUNDS times), so
      // appends to the moving slots meet them mid-move: ASK, TRYAGAIN, then MOVED.
      const ROUNDS = 4
      let resent = 0
      let moved = false
      let duringMove = 0
      const appended = new Map<string, number>()
      const appendAll = async (id: string) => {
        let k = 0
        for (; k < ROUNDS || !moved; k++) {
          for (let attempt = 1; ; attempt++) {
            try {
              await store.append(id, [{ message: user(`${id}#${k}`) }], { appendId: `${id}#${k}` })
              break
            } catch (e) {
              if (attempt >= 20) throw e
              resent++
              await new Promise((r) => setTimeout(r, 100))
            }
          }
          if (!moved && moving.includes(id)) duringMove++
        }
        appended.set(id, k)
      }
      const ids = [...moving, ...staying]
      const writing = Promise.all(ids.map(appendAll))
      await run(
        'redis-cli',
        [
          '--cluster',
          'reshard',
          `127.0.0.1:${seed.port}`,
          '--cluster-from',
          from,
          '--cluster-to',
          to,
          '--cluster-slots',
          '100',
          '--cluster-yes',
        ],
        { timeout: 60_000 },
      ).finally(() => {
        moved = true
      })
      await writing
      // Slot 0 is served by the other master now: the move did happen under the writers.
      expect((await masterOf()).find(({ a }) => a === 0)?.id).toBe(to)
      expect(duringMove).toBeGreaterThan(0)

      const reader = new Cluster([{ host: '127.0.0.1', port: other.port }])
      const readStore = await redisStore({ client: reader })
      for (const id of ids)
        expect((await readStore.read(id)).map((e) => e.message.content)).toEqual(
          Array.from({ length: appended.get(id) ?? -1 }, (_, k) => `${id}#${k}`),
        )
      console.log(
        `reshard under ${ids.length} conversations: ${duringMove} appends to the moving slots during it, ${resent} sent again`,
      )
      await Promise.all([reader.quit(), client.quit(), probe.quit()])
    }, 90_000)
  },
)

// The Redis and PostgreSQL stores on inputs their other tests do not try: hostile conversation
// ids (hash-tag braces, control characters, astral and lone surrogates, 10 KB, names of
// Object.prototype), message text PostgreSQL's jsonb refuses, a row lock held by someone
// else, an ACL user's password, and writers in separate processes on a hostile id.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InvalidInputError } from '../../src/errors.js'
import type { HistoryStore } from '../../src/store/history-store.js'
import { memoryStore } from '../../src/store/memory-store.js'
import { postgresStore } from '../../src/store/postgres-store.js'
import { redisStore } from '../../src/store/redis-store.js'
import { requireInCI } from '../helpers/ci.js'
import { hasPostgres, type PostgresServer, startPostgres } from '../helpers/postgres-server.js'
import { hasRedisServer, type RedisServer, startRedis } from '../helpers/redis-server.js'

const redisAvailable = requireInCI(hasRedisServer(), 'redis-server')
const postgresAvailable = requireInCI(hasPostgres(), 'PostgreSQL (initdb, pg_ctl)')
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
  'x'.repeat(10_000),
  `${'x'.repeat(9_999)}{`,
]

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

function idCases(name: string, make: () => Promise<HistoryStore>) {
  it(`${name}: ${hostileIds.length} hostile ids are ${hostileIds.length} conversations, as in memory`, async () => {
    const store = await make()
    const expected = hostileIds.map((_, k) => [`m${k}`])
    expect(await keptApart(memoryStore(), hostileIds, 'm')).toEqual(expected)
    expect(await keptApart(store, hostileIds, 'm')).toEqual(expected)
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
}

describe.runIf(redisAvailable)('redis store: held-out inputs', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(async () => {
    await server?.stop()
  })

  idCases('redis', () => redisStore({ url: server.url, prefix: 'ids:' }))

  it('redis: an id with U+0000 is its own conversation', async () => {
    const store = await redisStore({ url: server.url, prefix: 'nul:' })
    expect(await keptApart(store, ['a\0b', 'a', 'a\0', '\0'], 'n')).toEqual([
      ['n0'],
      ['n1'],
      ['n2'],
      ['n3'],
    ])
    await store.close()
  })
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

import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inCI } from '../../test/helpers/ci.js'
import { hasRedisServer, type RedisServer, startRedis } from '../../test/helpers/redis-server.js'
import { tauBench } from '../../test/tau-bench.js'
import { summarizing } from '../compress/summarizing.js'
import { ChatContext } from '../context/chat/chat-context.js'
import { InvalidInputError, InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import type { TokenCounter } from '../tokens/counter.js'
import { exactCounter } from '../tokens/counters.js'
import { type HistoryStore, StoreConflictError, StoreError } from './history-store.js'
import { memoryStore } from './memory-store.js'
import { redisStore } from './redis-store.js'

const user = (t: string): Message => ({ role: 'user', content: t })
const say = (t: string): Message => ({ role: 'assistant', content: t })

const redisAvailable = hasRedisServer()
if (!redisAvailable) {
  if (inCI)
    throw new Error(
      'CI must run the Redis tests: redis-server is not installed (.ci/run installs it)',
    )
  console.warn(
    '\n*** SKIPPING the Redis store tests: redis-server is not installed (apt-get install redis-server) ***\n',
  )
}

/** The same behaviour, whatever the store. */
function behaviour(name: string, make: () => Promise<HistoryStore>) {
  describe(`${name}: the HistoryStore contract`, () => {
    let store: HistoryStore
    let n = 0
    const id = () => `conv-${name}-${++n}`
    beforeAll(async () => {
      store = await make()
    })
    afterAll(async () => {
      await store.close?.()
    })

    it('appends atomically, reads all or a range, in order, with sequence numbers and counts', async () => {
      const c = id()
      expect(
        await store.append(c, [
          { message: user('a'), tokens: 8, counter: 'x' },
          { message: say('b') },
        ]),
      ).toBe(2)
      expect(await store.append(c, [{ message: user('c') }])).toBe(3)
      const all = await store.read(c)
      expect(all.map((e) => [e.seq, e.message.content])).toEqual([
        [0, 'a'],
        [1, 'b'],
        [2, 'c'],
      ])
      expect(all[0]).toMatchObject({ tokens: 8, counter: 'x' })
      expect((await store.read(c, 1, 2)).map((e) => e.message.content)).toEqual(['b'])
      expect(await store.length(c)).toBe(3)
    })

    it('refuses an append whose expected length moved (optimistic concurrency)', async () => {
      const c = id()
      await store.append(c, [{ message: user('a') }])
      await expect(
        store.append(c, [{ message: user('b') }], { expectedLength: 0 }),
      ).rejects.toThrow(StoreConflictError)
      expect(await store.append(c, [{ message: user('b') }], { expectedLength: 1 })).toBe(2)
    })

    it('keeps summaries beside the messages, bumps the version, and refuses a stale summary', async () => {
      const c = id()
      await store.append(c, [{ message: user('a') }, { message: say('b') }])
      const v = await store.version(c)
      await store.putSummary(
        c,
        { replaces: [0, 2], message: user('[summary] a, b') },
        { expectedVersion: v },
      )
      expect((await store.summaries(c)).map((s) => s.replaces)).toEqual([[0, 2]])
      expect(await store.length(c)).toBe(2)
      await store.append(c, [{ message: user('c') }])
      await expect(
        store.putSummary(c, { replaces: [0, 3], message: user('x') }, { expectedVersion: v }),
      ).rejects.toThrow(StoreConflictError)
    })

    it('refuses an entry that is not a message with the same typed error, naming entry and field, and stores nothing', async () => {
      const c = id()
      const bad = [{ message: user('ok') }, { message: { role: 'user' } as unknown as Message }]
      const error = await store.append(c, bad).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(InvalidInputError)
      expect(error).toMatchObject({ index: 1, field: 'message.content' })
      await expect(
        store.append(c, [{ message: user('a'), tokens: 'many' as unknown as number }]),
      ).rejects.toMatchObject({
        field: 'tokens',
      })
      await expect(
        store.putSummary(c, {
          replaces: [0, 1],
          message: { role: 'nobody' } as unknown as Message,
        }),
      ).rejects.toBeInstanceOf(InvalidInputError)
      expect(await store.length(c)).toBe(0)
    })

    it('a new summary supersedes those ending where it ends or before; a later range stays', async () => {
      const c = id()
      await store.append(
        c,
        Array.from({ length: 12 }, (_, k) => ({ message: k % 2 ? say(`r${k}`) : user(`q${k}`) })),
      )
      await store.putSummary(c, { replaces: [0, 4], message: user('[summary] 0-4') })
      await store.putSummary(c, { replaces: [6, 10], message: user('[summary] 6-10') })
      await store.putSummary(c, { replaces: [0, 6], message: user('[summary] 0-6') })
      expect((await store.summaries(c)).map((s) => s.replaces)).toEqual([
        [6, 10],
        [0, 6],
      ])
      await store.putSummary(c, { replaces: [0, 10], message: user('[summary] 0-10') })
      expect((await store.summaries(c)).map((s) => s.message.content)).toEqual(['[summary] 0-10'])
      for (const replaces of [[2, 2], [-1, 3], [0], [0, 1.5], 'all'])
        await expect(
          store.putSummary(c, { replaces, message: user('x') } as never),
        ).rejects.toMatchObject({ name: 'InvalidInputError', field: 'summary.replaces' })
      await expect(store.putSummary(c, null as never)).rejects.toBeInstanceOf(InvalidInputError)
      expect(await store.summaries(c)).toHaveLength(1)
    })

    it('a summarizing context over the store keeps its stored summaries within twice the history', async () => {
      const c = id()
      const ctx = new ChatContext({
        store,
        id: c,
        strategy: summarizing({ leaveLastN: 2, trigger: 0.5 }),
        budget: 1200,
        initialMessages: [{ role: 'system', content: 'You are an airline agent.' }],
      })
      const history = fromOpenAIChat(tauBench()[4]?.traj ?? []).slice(1)
      for (let k = 0; k < 3; k++)
        for (const m of history) {
          await ctx.addMessage(m)
          if (m.role === 'user') await ctx.getMessages()
        }
      await ctx.getMessages()
      await ctx.sync()
      const stored = await store.summaries(c)
      const messages = (await store.read(c)).map((e) => e.message)
      expect(stored.length).toBeGreaterThan(0)
      expect(stored.length).toBeLessThanOrEqual(2)
      expect(JSON.stringify(stored).length).toBeLessThanOrEqual(2 * JSON.stringify(messages).length)
    }, 60_000)

    it('a seed goes first into an empty conversation, in the same step, and never into one with messages', async () => {
      const c = id()
      const seed = [{ message: { role: 'system', content: 'policy' } as Message }]
      expect(await store.append(c, [{ message: user('a') }], { seed })).toBe(2)
      expect(await store.append(c, [{ message: user('b') }], { seed })).toBe(3)
      expect((await store.read(c)).map((e) => e.message.content)).toEqual(['policy', 'a', 'b'])
    })

    it('a context whose conversation the store lost begins with its initial messages again', async () => {
      const c = id()
      const ctx = new ChatContext({
        store,
        id: c,
        budget: 4000,
        initialMessages: [{ role: 'system', content: 'policy' }],
      })
      await ctx.addMessage(user('first'))
      await store.clear(c) // the key expired, or another process cleared it
      await ctx.addMessage(user('second'))
      expect((await ctx.getMessages()).map((m) => m.content)).toEqual(['policy', 'second'])
      await store.delete(c)
      expect((await ctx.getMessages()).map((m) => m.content)).toEqual(['policy'])
    })

    it('clears and deletes', async () => {
      const c = id()
      await store.append(c, [{ message: user('a') }])
      await store.clear(c)
      expect(await store.length(c)).toBe(0)
      await store.append(c, [{ message: user('b') }])
      await store.delete(c)
      expect(await store.read(c)).toEqual([])
    })

    it('two contexts on one id see each other, and counts are not taken twice', async () => {
      const c = id()
      let counted = 0
      const inner = exactCounter()
      const counting: TokenCounter = {
        ...inner,
        countMessage: (m) => {
          counted++
          return inner.countMessage(m)
        },
      }
      const a = new ChatContext({
        store,
        id: c,
        budget: 4000,
        initialMessages: [{ role: 'system', content: 'policy' }],
      })
      const b = new ChatContext({ store, id: c, budget: 4000, counter: counting })
      await a.addMessage(user('from a'))
      await b.addMessage(say('from b'))
      expect((await a.getMessages()).map((m) => m.content)).toEqual(['policy', 'from a', 'from b'])
      expect((await b.getMessages()).map((m) => m.content)).toEqual(['policy', 'from a', 'from b'])
      // b counted its own message, and each message it sends once, when first sent: a stored
      // count is checked before it is believed for what goes out. Sending again counts nothing.
      expect(counted).toBeLessThanOrEqual(4)
      const before = counted
      await b.getMessages()
      expect(counted).toBe(before)
      await a.clear({ initial: false })
      expect(await b.getMessages()).toEqual([])
    })
  })
}

behaviour('memory', async () => memoryStore())

describe.runIf(redisAvailable)('redis store against a real redis-server', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(async () => {
    await server?.stop()
  })

  behaviour('redis', async () => redisStore({ url: server.url, prefix: 'test:' }))

  it('documents its key layout: one hash tag per conversation, messages list, summaries list, version counter', async () => {
    const store = await redisStore({ url: server.url, prefix: 'cw:', ttl: 60 })
    await store.append('k1', [{ message: user('hello') }], { appendId: 'a-1' })
    const redis = new Redis(server.url)
    const keys = (await redis.keys('cw:{k1}:*')).sort()
    expect(keys).toEqual(['cw:{k1}:append:a-1', 'cw:{k1}:messages', 'cw:{k1}:version'])
    // The append id is remembered for an hour so a resent append is not applied twice.
    expect(await redis.ttl('cw:{k1}:append:a-1')).toBeGreaterThan(3500)
    expect(await redis.ttl('cw:{k1}:messages')).toBeGreaterThan(0)
    // Braces and % in an id are encoded: the tag stays whole and ids stay apart.
    await store.append('{a}%', [{ message: user('x') }])
    expect(await redis.exists('cw:{%7Ba%7D%25}:messages')).toBe(1)
    await redis.quit()
    await store.close?.()
  })

  it('refuses a prefix with a brace and an empty conversation id, with typed errors', async () => {
    await expect(redisStore({ url: server.url, prefix: 'a{b}:' })).rejects.toMatchObject({
      name: 'InvalidOptionError',
      option: 'prefix',
    })
    const store = await redisStore({ url: server.url })
    await expect(store.append('', [{ message: user('x') }])).rejects.toMatchObject({
      name: 'InvalidInputError',
      field: 'id',
    })
    await expect(store.read('')).rejects.toBeInstanceOf(InvalidInputError)
    await store.close?.()
  })

  it('replicas: 1 with no replica: the append fails with a StoreError, is on the master, and a repeat under its id is not stored twice', async () => {
    const store = await redisStore({
      url: server.url,
      prefix: 'wait:',
      replicas: 1,
      replicaTimeoutMs: 100,
    })
    const send = () => store.append('c', [{ message: user('a') }], { appendId: 'only-once' })
    await expect(send()).rejects.toThrow(/0 of 1 replicas confirmed it within 100 ms/)
    await expect(send()).rejects.toThrow(StoreError)
    const plain = await redisStore({ url: server.url, prefix: 'wait:' })
    expect((await plain.read('c')).map((e) => e.message.content)).toEqual(['a'])
    await plain.close?.()
    await store.close?.()
  })

  it('a corrupted entry is a typed error naming the conversation and position, without its contents', async () => {
    const store = await redisStore({ url: server.url, prefix: 'bad:' })
    await store.append('c', [{ message: user('secret text') }])
    const redis = new Redis(server.url)
    await redis.rpush(
      'bad:{c}:messages',
      JSON.stringify({ m: { role: 'user', content: 42 } }),
      'not json',
    )
    await redis.quit()
    const err = await store.read('c').catch((e) => e)
    expect(err).toBeInstanceOf(StoreError)
    expect(err.message).toMatch(
      /conversation c, message 1: the stored message is invalid \(field content\)/,
    )
    expect(err.position).toBe(1)
    expect(err.message).not.toMatch(/secret/)
    await store.close?.()
  })

  it('4 processes appending 250 messages each to one conversation: 1,000 stored, none lost or duplicated, each order kept', async () => {
    const writer = fileURLToPath(new URL('../../test/store/writer.ts', import.meta.url))
    const runs = [0, 1, 2, 3].map(
      (w) =>
        new Promise<void>((resolve, reject) => {
          const p = spawn(
            process.execPath,
            ['--import', 'tsx', writer, server.url, 'shared', `w${w}`, '250'],
            { stdio: 'ignore' },
          )
          p.on('exit', (code) =>
            code === 0 ? resolve() : reject(new Error(`writer ${w} exited ${code}`)),
          )
        }),
    )
    await Promise.all(runs)
    const store = await redisStore({ url: server.url })
    const all = (await store.read('shared')).map((e) => String(e.message.content))
    expect(all).toHaveLength(1000)
    expect(new Set(all).size).toBe(1000)
    for (const w of ['w0', 'w1', 'w2', 'w3']) {
      const mine = all.filter((c) => c.startsWith(`${w}:`)).map((c) => Number(c.split(':')[1]))
      expect(mine).toEqual(Array.from({ length: 250 }, (_, k) => k))
    }
    await store.close?.()
  }, 120_000)

  it('a server that goes away mid-call gives a typed error; the context stays usable and reconnects', async () => {
    const local = await startRedis()
    const store = await redisStore({
      url: local.url,
      redisOptions: { maxRetriesPerRequest: 0, retryStrategy: () => 50 },
    })
    const ctx = new ChatContext({ store, id: 'f', budget: 2000 })
    await ctx.addMessage(user('before'))
    expect(await ctx.getMessages()).toHaveLength(1)
    await local.kill()
    await expect(ctx.addMessage(user('while down'))).rejects.toThrow(StoreError)
    expect(ctx.getMessagesSync().map((m) => m.content)).toEqual(['before'])
    await local.start()
    await new Promise((r) => setTimeout(r, 300))
    await ctx.addMessage(user('after'))
    // The restarted server kept nothing (no persistence here): the context follows the store,
    // and the write that failed was sent again first, under its id: nothing the caller added is lost.
    expect((await ctx.getMessages()).map((m) => m.content)).toEqual(['while down', 'after'])
    await store.close?.()
    await local.stop()
  }, 60_000)
})

describe.runIf(redisAvailable)('durability with append-only persistence', () => {
  it('every acknowledged append survives a SIGKILL of the server during appends', async () => {
    const server = await startRedis({ appendonly: true })
    const writer = fileURLToPath(new URL('../../test/store/writer.ts', import.meta.url))
    const p = spawn(
      process.execPath,
      ['--import', 'tsx', writer, server.url, 'durable', 'w', '100000'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    )
    const acked: number[] = []
    p.stdout.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) if (line) acked.push(Number(line))
    })
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (acked.length >= 300) {
          clearInterval(t)
          resolve()
        }
      }, 20)
    })
    await server.kill()
    await new Promise<void>((resolve) => p.on('exit', () => resolve()))
    await server.start()
    const store = await redisStore({ url: server.url })
    const stored = (await store.read('durable')).map((e) =>
      Number(String(e.message.content).split(':')[1]),
    )
    expect(acked.length).toBeGreaterThanOrEqual(300)
    for (const k of acked) expect(stored).toContain(k)
    expect(stored).toEqual(Array.from({ length: stored.length }, (_, k) => k))
    await store.close?.()
    await server.stop()
  }, 120_000)
})

describe('ChatContext and append ids', () => {
  it('gives every write an id of its own, so a store that gets one twice keeps one copy', async () => {
    const inner = memoryStore()
    const ids: (string | undefined)[] = []
    const store: HistoryStore = {
      ...inner,
      append: (id, entries, options) => {
        ids.push(options?.appendId)
        // A reply lost after the append went through: the store sees the same append again.
        return inner.append(id, entries, options).then(() => inner.append(id, entries, options))
      },
    }
    const ctx = new ChatContext({
      store,
      id: 'ids',
      budget: 4000,
      initialMessages: [{ role: 'system', content: 'policy' }],
    })
    await ctx.addMessage(user('a'))
    await ctx.addMessages([say('b'), user('c')])
    expect(ids.every((i) => typeof i === 'string' && i.length > 0)).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    expect((await inner.read('ids')).map((e) => e.message.content)).toEqual([
      'policy',
      'a',
      'b',
      'c',
    ])
  })

  /** A memory store whose appends are watched and, while `failing` says so, fail with a StoreError. */
  function flaky(
    failing: (call: number) => 'before' | 'after' | undefined,
    extra: Partial<HistoryStore> = {},
  ) {
    const inner = memoryStore()
    const calls: (string | undefined)[] = []
    const store: HistoryStore = {
      ...inner,
      ...extra,
      append: async (id, entries, options) => {
        calls.push(options?.appendId)
        const how = failing(calls.length)
        if (how === 'before') throw new StoreError('store: the server went away', id)
        const length = await inner.append(id, entries, options)
        if (how === 'after') throw new StoreError('store: the reply was lost', id)
        return length
      },
    }
    return { inner, store, calls }
  }
  const contents = async (store: HistoryStore, id: string) =>
    (await store.read(id)).map((e) => e.message.content)

  it('a write whose reply was lost is sent again under its id before the caller hears of it, and stored once', async () => {
    // The first call is the seed's (its reply lost), the third the message's (its reply lost).
    const { inner, store, calls } = flaky((k) => (k === 1 || k === 3 ? 'after' : undefined))
    const ctx = new ChatContext({
      store,
      id: 'lost',
      budget: 4000,
      initialMessages: [{ role: 'system', content: 'policy' }],
    })
    await ctx.addMessage(user('a'))
    expect(calls).toHaveLength(4)
    expect([calls[1], calls[3]]).toEqual([calls[0], calls[2]])
    expect(calls[2]).not.toBe(calls[0])
    expect(await contents(inner, 'lost')).toEqual(['policy', 'a'])
  })

  it('a write that fails 3 times: the error says what is safe to do; the next write sends it first, under its id, each stored once', async () => {
    let down = true
    const { inner, store, calls } = flaky(() => (down ? 'after' : undefined))
    const ctx = new ChatContext({ store, id: 'down', budget: 4000 })
    const error = await ctx.addMessage(user('a')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StoreError)
    expect((error as Error).message).toMatch(
      /reply was lost; the context holds the message not known to be stored and sends it again, under the same append id, before its next write or read .* do not add it again/,
    )
    // 3 tries (each stored, each reply lost), all under one id.
    expect(calls).toHaveLength(3)
    expect(new Set(calls).size).toBe(1)
    // A second write while the store is still down waits behind the first, and says so.
    await expect(ctx.addMessage(user('b'))).rejects.toThrow(/2 messages not known to be stored/)
    down = false
    await ctx.addMessage(user('c'))
    expect(await contents(inner, 'down')).toEqual(['a', 'b', 'c'])
    expect((await ctx.getMessages()).map((m) => m.content)).toEqual(['a', 'b', 'c'])
  })

  it('a write that failed before the store had it is sent by the next read', async () => {
    let down = true
    const { inner, store } = flaky(() => (down ? 'before' : undefined))
    const ctx = new ChatContext({ store, id: 'read', budget: 4000 })
    await expect(ctx.addMessage(user('a'))).rejects.toThrow(StoreError)
    await expect(ctx.getMessages()).rejects.toThrow(/sends it again/)
    expect(await contents(inner, 'read')).toEqual([])
    down = false
    expect((await ctx.getMessages()).map((m) => m.content)).toEqual(['a'])
    expect(await contents(inner, 'read')).toEqual(['a'])
  })

  it('a read and a write started together while a failed write waits: each message stored once, in order', async () => {
    let down = true
    const { inner, store } = flaky(() => (down ? 'after' : undefined))
    const ctx = new ChatContext({ store, id: 'together', budget: 4000 })
    await expect(ctx.addMessage(user('a'))).rejects.toThrow(StoreError)
    down = false
    const [read] = await Promise.all([ctx.getMessages(), ctx.addMessage(user('b'))])
    expect(read.map((m) => m.content)).toEqual(['a', 'b'])
    expect(await contents(inner, 'together')).toEqual(['a', 'b'])
  })

  it("no try starts once the store's own time limit has passed since the first", async () => {
    const inner = memoryStore()
    let calls = 0
    const store: HistoryStore = {
      ...inner,
      timeoutMs: 1,
      append: async (id) => {
        calls++
        // The store's failure itself takes longer than its limit (a call that timed out).
        await new Promise((r) => setTimeout(r, 20))
        throw new StoreError('store: no answer within 1 ms', id)
      },
    }
    const ctx = new ChatContext({ store, id: 'slow', budget: 4000 })
    await expect(ctx.addMessage(user('a'))).rejects.toThrow(StoreError)
    expect(calls).toBe(1)
  })

  it('a refusal is not tried again: an InvalidInputError from the store reaches the caller after one try, and the write is dropped', async () => {
    const { inner, store, calls } = flaky(() => undefined, {})
    const strict: HistoryStore = {
      ...store,
      append: async (id, entries, options) => {
        if (entries.some((e) => e.message.content === 'too long'))
          throw new InvalidInputError('conversation: this store keeps shorter messages', {
            index: 0,
            field: 'message.content',
          })
        return store.append(id, entries, options)
      },
    }
    const ctx = new ChatContext({ store: strict, id: 'strict', budget: 4000 })
    await expect(ctx.addMessage(user('too long'))).rejects.toBeInstanceOf(InvalidInputError)
    await ctx.addMessage(user('fine'))
    expect(calls).toHaveLength(1)
    expect(await contents(inner, 'strict')).toEqual(['fine'])
  })

  it('clear drops a write not known to be stored: it is not sent after the clear', async () => {
    let down = true
    const { inner, store } = flaky(() => (down ? 'before' : undefined))
    const ctx = new ChatContext({ store, id: 'cleared', budget: 4000 })
    await expect(ctx.addMessage(user('a'))).rejects.toThrow(StoreError)
    down = false
    await ctx.clear()
    await ctx.addMessage(user('b'))
    expect(await contents(inner, 'cleared')).toEqual(['b'])
  })

  it('an id no store takes is refused when the context is made', () => {
    for (const id of ['\uD800', 'a\0', 'x'.repeat(513)])
      expect(() => new ChatContext({ store: memoryStore(), id, budget: 4000 })).toThrow(
        InvalidOptionError,
      )
  })
})

// The Redis store against a real redis-server: lying counts, corrupted summaries, a server
// that never answers, and a reply lost after the script ran.
import { createServer, Socket as NetSocket, type Server, type Socket } from 'node:net'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import type { Message } from '../../src/messages/message.js'
import { StoreError } from '../../src/store/history-store.js'
import { redisStore } from '../../src/store/redis-store.js'
import { exactCounter } from '../../src/tokens/counters.js'
import { hasRedisServer, type RedisServer, startRedis } from '../helpers/redis-server.js'

const available = hasRedisServer()
if (!available && process.env.CI === 'true') throw new Error('CI must run the Redis tests')

describe.runIf(available)('redis store: what comes back is checked', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(async () => {
    await server.stop()
  })

  it.each([-5000, 0, 1, 0.5, 1e15])(
    'a stored count of %s is not believed: a view for 500 tokens holds at most 500',
    async (t) => {
      const counter = exactCounter()
      const redis = new Redis(server.url)
      const id = `lie-${String(t).replace('.', '_')}`
      const text = (k: number) =>
        `message ${k}: ${'details about the booking and the refund '.repeat(20)}`
      for (let k = 0; k < 20; k++) {
        const m: Message = { role: k % 2 ? 'assistant' : 'user', content: text(k) }
        await redis.rpush(`cw:{${id}}:messages`, JSON.stringify({ m, t, c: counter.name }))
      }
      await redis.quit()
      const store = await redisStore({ url: server.url })
      const ctx = new ChatContext({ store, id, budget: 500, counter })
      const view = await ctx.getMessages()
      expect(counter.countMessages(view)).toBeLessThanOrEqual(500)
      expect(view.length).toBeGreaterThan(0)
      await store.close?.()
    },
  )

  it('a true stored count is checked once, when its message is first sent, and never counted again', async () => {
    const counter = exactCounter()
    const writer = await redisStore({ url: server.url })
    const a = new ChatContext({ store: writer, id: 'true-counts', budget: 300, counter })
    for (let k = 0; k < 40; k++)
      await a.addMessage({
        role: k % 2 ? 'assistant' : 'user',
        content: `turn ${k}: a question about a refund for order 4242`,
      })
    let counted = 0
    const spy = {
      ...counter,
      countMessage: (m: Message) => {
        counted++
        return counter.countMessage(m)
      },
    }
    const b = new ChatContext({ store: writer, id: 'true-counts', budget: 300, counter: spy })
    const sent = await b.getMessages()
    // Only what is sent is counted (once each), not the 40 messages read with their counts.
    expect(sent.length).toBeGreaterThan(2)
    expect(sent.length).toBeLessThan(40)
    expect(counted).toBe(sent.length)
    await b.getMessages()
    expect(counted).toBe(sent.length)
    await writer.close?.()
  })

  it.each([
    ['no replaces', { message: { role: 'user', content: 's' } }],
    ['replaces not a pair', { replaces: [3], message: { role: 'user', content: 's' } }],
    ['replaces backwards', { replaces: [5, 2], message: { role: 'user', content: 's' } }],
    ['no message', { replaces: [0, 2] }],
    ['not an object', 42],
  ])('a stored summary with %s is a StoreError', async (_, record) => {
    const redis = new Redis(server.url)
    await redis.rpush('cw:{bad-summary}:summaries', JSON.stringify(record))
    await redis.quit()
    const store = await redisStore({ url: server.url })
    await expect(store.summaries('bad-summary')).rejects.toThrow(StoreError)
    await redisStore({ url: server.url }).then(async (s) => {
      const r = new Redis(server.url)
      await r.del('cw:{bad-summary}:summaries')
      await r.quit()
      await s.close?.()
    })
    await store.close?.()
  })
})

describe('redis store: a server that accepts and never answers', () => {
  let silent: Server
  let port = 0
  const sockets = new Set<Socket>()
  beforeAll(async () => {
    silent = createServer((s) => {
      sockets.add(s)
      s.on('error', () => {})
    })
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    port = (silent.address() as { port: number }).port
  })
  afterAll(async () => {
    for (const s of sockets) s.destroy()
    await new Promise<void>((r) => silent.close(() => r()))
  })

  it('every call fails with a StoreError within its time limit, and close returns', async () => {
    const store = await redisStore({ url: `redis://127.0.0.1:${port}`, timeoutMs: 300 })
    const started = Date.now()
    await expect(store.append('c', [{ message: { role: 'user', content: 'x' } }])).rejects.toThrow(
      /no answer within 300 ms/,
    )
    await expect(store.read('c')).rejects.toThrow(StoreError)
    await expect(store.length('c')).rejects.toThrow(StoreError)
    await expect(store.summaries('c')).rejects.toThrow(StoreError)
    const ctx = new ChatContext({ store, id: 'c', budget: 1000 })
    await expect(ctx.addMessage({ role: 'user', content: 'hi' })).rejects.toThrow(StoreError)
    await store.close?.()
    expect(Date.now() - started).toBeLessThan(10_000)
  }, 15_000)
})

describe.runIf(available)('redis store: a reply lost after the append ran', () => {
  let server: RedisServer
  let proxy: Server
  let proxyPort = 0
  /** Set: the next reply to an EVAL is dropped and the client's connection cut. */
  let dropNextEvalReply = false
  const open = new Set<Socket>()
  beforeAll(async () => {
    server = await startRedis()
    proxy = createServer((client) => {
      open.add(client)
      const upstream = new NetSocket()
      open.add(upstream)
      let dropping = false
      upstream.connect(server.port, '127.0.0.1')
      client.on('data', (d: Buffer) => {
        if (dropNextEvalReply && /eval/i.test(d.toString('latin1'))) {
          dropNextEvalReply = false
          dropping = true
        }
        upstream.write(d)
      })
      upstream.on('data', (d: Buffer) => {
        if (dropping) {
          // The script ran on the server; its answer never reaches the client.
          client.destroy()
          upstream.destroy()
          return
        }
        client.write(d)
      })
      for (const s of [client, upstream]) {
        s.on('error', () => {})
        s.on('close', () => {
          client.destroy()
          upstream.destroy()
        })
      }
    })
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
    proxyPort = (proxy.address() as { port: number }).port
  })
  afterAll(async () => {
    for (const s of open) s.destroy()
    await new Promise<void>((r) => proxy.close(() => r()))
    await server.stop()
  })

  it('the resent script does not append twice', async () => {
    const store = await redisStore({
      url: `redis://127.0.0.1:${proxyPort}`,
      redisOptions: { maxRetriesPerRequest: 3, retryStrategy: () => 20 },
    })
    await store.append('lost', [{ message: { role: 'user', content: 'first' } }])
    dropNextEvalReply = true
    const length = await store.append('lost', [{ message: { role: 'user', content: 'second' } }])
    expect(dropNextEvalReply).toBe(false)
    const stored = (await store.read('lost')).map((e) => e.message.content)
    expect(stored).toEqual(['first', 'second'])
    expect(length).toBe(2)
    await store.close?.()
  })
})

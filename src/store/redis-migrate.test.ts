import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireInCI } from '../../test/helpers/ci.js'
import { hasRedisServer, type RedisServer, startRedis } from '../../test/helpers/redis-server.js'
import { migrateRedisKeys } from './redis-migrate.js'
import { redisStore } from './redis-store.js'

const available = requireInCI(hasRedisServer(), 'redis-server')
const entry = (content: string) => JSON.stringify({ m: { role: 'user', content } })

describe.runIf(available)('moving 0.1 data to the hash-tagged layout', () => {
  let server: RedisServer
  let redis: Redis
  beforeAll(async () => {
    server = await startRedis()
    redis = new Redis(server.url)
  })
  afterAll(async () => {
    await redis?.quit()
    await server?.stop()
  })

  it('moves every part of every conversation, keeps TTLs, and a second run moves nothing', async () => {
    // What redisStore 0.1 wrote.
    await redis.rpush('cw:conv-1:messages', entry('a'), entry('b'))
    await redis.set('cw:conv-1:version', '2')
    await redis.rpush(
      'cw:conv-1:summaries',
      JSON.stringify({ replaces: [0, 2], message: { role: 'user', content: 's' } }),
    )
    await redis.set('cw:conv-1:limit', '8000')
    await redis.rpush('cw:with:colon:messages', entry('c'))
    await redis.expire('cw:with:colon:messages', 600)
    await redis.set('cw:conv-1:append:0b7c', '2:2', 'EX', 3600)
    await redis.set('other-app:key', 'untouched')

    expect(await migrateRedisKeys(redis)).toEqual({ moved: 2, skipped: [] })
    const store = await redisStore({ url: server.url })
    expect((await store.read('conv-1')).map((e) => e.message.content)).toEqual(['a', 'b'])
    expect(await store.version('conv-1')).toBe(2)
    expect((await store.summaries('conv-1')).map((s) => s.replaces)).toEqual([[0, 2]])
    expect(await store.limit?.('conv-1')).toBe(8000)
    expect((await store.read('with:colon')).map((e) => e.message.content)).toEqual(['c'])
    expect(await redis.ttl('cw:{with:colon}:messages')).toBeGreaterThan(500)
    expect(await redis.exists('cw:conv-1:messages', 'cw:with:colon:messages')).toBe(0)
    expect(await redis.get('other-app:key')).toBe('untouched')
    // The new layout keeps working where the old one stopped.
    expect(await store.append('conv-1', [{ message: { role: 'user', content: 'd' } }])).toBe(3)
    expect(await migrateRedisKeys(redis)).toEqual({ moved: 0, skipped: [] })
    await store.close?.()
  })

  it('leaves a conversation alone when the new layout already holds it, and says so', async () => {
    const store = await redisStore({ url: server.url, prefix: 'p:' })
    await store.append('both', [{ message: { role: 'user', content: 'new' } }])
    await redis.rpush('p:both:messages', entry('old'))
    expect(await migrateRedisKeys(redis, { prefix: 'p:' })).toEqual({ moved: 0, skipped: ['both'] })
    expect((await store.read('both')).map((e) => e.message.content)).toEqual(['new'])
    expect(await redis.llen('p:both:messages')).toBe(1)
    await store.close?.()
  })

  it('refuses a prefix with a brace and options it does not know', async () => {
    await expect(migrateRedisKeys(redis, { prefix: '{x}' })).rejects.toMatchObject({
      name: 'InvalidOptionError',
    })
    await expect(migrateRedisKeys(redis, { perfix: 'x' } as never)).rejects.toMatchObject({
      name: 'InvalidOptionError',
    })
  })
})

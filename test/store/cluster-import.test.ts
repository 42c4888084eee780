// The move docs/stores.md describes, end to end: 0.1 data on one server, migrateRedisKeys
// there, then `redis-cli --cluster import` into a cluster, read back by the store on the cluster.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { Cluster, Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateRedisKeys } from '../../src/store/redis-migrate.js'
import { redisStore } from '../../src/store/redis-store.js'
import { requireInCI } from '../helpers/ci.js'
import { type RedisCluster, startRedisCluster } from '../helpers/redis-cluster.js'
import { hasRedisServer, type RedisServer, startRedis } from '../helpers/redis-server.js'

const available = requireInCI(hasRedisServer(), 'redis-server')
const entry = (content: string) => JSON.stringify({ m: { role: 'user', content } })

describe.runIf(available)('from one server (0.1 layout) to a Redis Cluster', () => {
  let single: RedisServer
  let cluster: RedisCluster
  beforeAll(async () => {
    ;[single, cluster] = await Promise.all([startRedis(), startRedisCluster()])
  }, 120_000)
  afterAll(async () => {
    await single?.stop()
    await cluster?.stop()
  })

  it('migrateRedisKeys, then redis-cli --cluster import: every conversation reads back whole', async () => {
    const old = new Redis(single.url)
    for (let c = 0; c < 20; c++)
      await old.rpush(`cw:conv-${c}:messages`, entry(`${c}.0`), entry(`${c}.1`))
    expect((await migrateRedisKeys(old)).moved).toBe(20)
    await old.quit()
    await promisify(execFile)(
      'redis-cli',
      [
        '--cluster',
        'import',
        `127.0.0.1:${cluster.ports[0]}`,
        '--cluster-from',
        `127.0.0.1:${single.port}`,
        '--cluster-copy',
      ],
      { timeout: 60_000 },
    )
    const client = new Cluster(cluster.nodes)
    const store = await redisStore({ client })
    for (let c = 0; c < 20; c++)
      expect((await store.read(`conv-${c}`)).map((e) => e.message.content)).toEqual([
        `${c}.0`,
        `${c}.1`,
      ])
    // And the conversations go on on the cluster.
    expect(await store.append('conv-3', [{ message: { role: 'user', content: '3.2' } }])).toBe(3)
    await client.quit()
  }, 120_000)
})

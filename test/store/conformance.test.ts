// Every store the library ships passes the suite it exports for stores of your own.
import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { storeConformance } from '../../src/store/conformance.js'
import { memoryStore } from '../../src/store/memory-store.js'
import { postgresStore } from '../../src/store/postgres-store.js'
import { redisStore } from '../../src/store/redis-store.js'
import { requireInCI } from '../helpers/ci.js'
import { hasPostgres, type PostgresServer, startPostgres } from '../helpers/postgres-server.js'
import { type RedisCluster, startRedisCluster } from '../helpers/redis-cluster.js'
import { hasRedisServer, type RedisServer, startRedis } from '../helpers/redis-server.js'

const redisAvailable = requireInCI(hasRedisServer(), 'redis-server')
const postgresAvailable = requireInCI(hasPostgres(), 'PostgreSQL (initdb, pg_ctl)')

storeConformance('memory', () => memoryStore(), { describe, it })

describe.runIf(redisAvailable)('redis, one server', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(async () => {
    await server?.stop()
  })
  storeConformance('redis', () => redisStore({ url: server.url }), { describe, it })
})

describe.runIf(redisAvailable)('redis cluster, 3 masters with a replica each', () => {
  let cluster: RedisCluster
  let client: Cluster
  beforeAll(async () => {
    cluster = await startRedisCluster()
    client = new Cluster(cluster.nodes)
  }, 120_000)
  afterAll(async () => {
    await client?.quit()
    await cluster?.stop()
  })
  storeConformance('redis cluster', () => redisStore({ client, replicas: 1 }), { describe, it })
})

describe.runIf(postgresAvailable)('postgresql', () => {
  let server: PostgresServer
  beforeAll(async () => {
    server = await startPostgres()
  }, 180_000)
  afterAll(async () => {
    await server?.stop()
  })
  storeConformance('postgres', () => postgresStore({ url: server.url }), { describe, it })
})

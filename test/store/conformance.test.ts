// Every store the library ships passes the suite it exports for stores of your own, and
// processes starting one conversation together through ChatContext store its system prompt once.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storeConformance } from '../../src/store/conformance.js'
import type { HistoryStore } from '../../src/store/history-store.js'
import { memoryStore } from '../../src/store/memory-store.js'
import { postgresStore } from '../../src/store/postgres-store.js'
import { redisStore } from '../../src/store/redis-store.js'
import { requireInCI } from '../helpers/ci.js'
import { hasPostgres, type PostgresServer, startPostgres } from '../helpers/postgres-server.js'
import { type RedisCluster, startRedisCluster } from '../helpers/redis-cluster.js'
import { hasRedisServer, type RedisServer, startRedis } from '../helpers/redis-server.js'

const redisAvailable = requireInCI(hasRedisServer(), 'redis-server')
const WRITERS = 4
const CONVERSATIONS = 6

/**
 * 4 processes, each with a ChatContext (system prompt 'policy') on the same 6 new
 * conversations, connect, then add a message to every conversation at one signal.
 */
async function startTogether(store: HistoryStore, kind: string, address: string) {
  const racer = fileURLToPath(new URL('./seed-racer.ts', import.meta.url))
  const tag = Math.random().toString(36).slice(2, 8)
  const ids = Array.from({ length: CONVERSATIONS }, (_, k) => `together-${tag}-${k}`)
  const processes = Array.from({ length: WRITERS }, (_, w) =>
    spawn(process.execPath, ['--import', 'tsx', racer, kind, address, `w${w}`, ids.join(',')], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  )
  const said = (p: (typeof processes)[number], word: string) =>
    new Promise<void>((resolve, reject) => {
      let out = ''
      p.stdout?.on('data', (d: Buffer) => {
        out += d.toString()
        if (out.split('\n').includes(word)) resolve()
      })
      p.on('exit', (code) => reject(new Error(`a racer exited ${code} before "${word}"`)))
    })
  try {
    await Promise.all(processes.map((p) => said(p, 'ready')))
    const done = processes.map((p) => said(p, 'done'))
    for (const p of processes) p.stdin?.write('go\n')
    await Promise.all(done)
  } finally {
    for (const p of processes) if (p.exitCode === null) p.kill('SIGKILL')
  }
  for (const id of ids) {
    const stored = (await store.read(id)).map((e) => e.message.content)
    expect(stored[0], id).toBe('policy')
    expect(
      stored.filter((c) => c === 'policy'),
      id,
    ).toHaveLength(1)
    expect([...stored.slice(1)].sort(), id).toEqual(
      Array.from({ length: WRITERS }, (_, w) => `w${w}`),
    )
  }
}
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
  storeConformance(
    'redis',
    () => redisStore({ url: server.url }),
    { describe, it },
    { shared: true },
  )
  it('4 processes starting 6 conversations together through ChatContext store each system prompt once, first', async () => {
    const store = await redisStore({ url: server.url })
    await startTogether(store, 'redis', server.url)
    await store.close()
  }, 180_000)
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
  storeConformance(
    'redis cluster',
    () => redisStore({ client, replicas: 1 }),
    { describe, it },
    { shared: true },
  )
  it('4 processes starting 6 conversations together through ChatContext store each system prompt once, first', async () => {
    await startTogether(await redisStore({ client }), 'cluster', cluster.ports.join(','))
  }, 180_000)
})

describe.runIf(postgresAvailable)('postgresql', () => {
  let server: PostgresServer
  beforeAll(async () => {
    server = await startPostgres()
  }, 180_000)
  afterAll(async () => {
    await server?.stop()
  })
  storeConformance(
    'postgres',
    () => postgresStore({ url: server.url }),
    { describe, it },
    { shared: true },
  )
  it('4 processes starting 6 conversations together through ChatContext store each system prompt once, first', async () => {
    const store = await postgresStore({ url: server.url })
    await startTogether(store, 'postgres', server.url)
    await store.close()
  }, 180_000)
})

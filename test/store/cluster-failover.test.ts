// A Redis Cluster loses a master (SIGKILL) while 4 processes append to 8 shared
// conversations: with `replicas: 1` and appends sent again under their appendId until they
// resolve, every append is stored exactly once and each writer's order is kept.
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { redisStore } from '../../src/store/redis-store.js'
import { requireInCI } from '../helpers/ci.js'
import { type RedisCluster, startRedisCluster } from '../helpers/redis-cluster.js'
import { hasRedisServer } from '../helpers/redis-server.js'

const available = requireInCI(hasRedisServer(), 'redis-server')
const WRITERS = 4
const CONVERSATIONS = 8
const APPENDS = 40

describe.runIf(available)('a Redis Cluster master killed during appends', () => {
  let cluster: RedisCluster
  beforeAll(async () => {
    cluster = await startRedisCluster()
  }, 120_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  it(`${WRITERS} processes × ${CONVERSATIONS} conversations × ${APPENDS} appends: all stored once, in each writer's order, every acknowledged one kept`, async () => {
    const writer = fileURLToPath(new URL('./cluster-writer.ts', import.meta.url))
    const acked = new Map<string, Set<string>>()
    const writers: ChildProcess[] = []
    let total = 0
    let retries = 0
    const exits = Array.from({ length: WRITERS }, (_, w) => {
      const name = `w${w}`
      const p = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          writer,
          cluster.ports.join(','),
          name,
          String(CONVERSATIONS),
          String(APPENDS),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      )
      writers.push(p)
      let rest = ''
      p.stdout.on('data', (d: Buffer) => {
        const lines = (rest + d.toString()).split('\n')
        rest = lines.pop() ?? ''
        for (const line of lines) {
          const [conversation, k] = line.split(' ')
          if (conversation === 'retries') {
            retries += Number(k)
            continue
          }
          const seen = acked.get(conversation as string) ?? new Set()
          seen.add(`${name}:${k}`)
          acked.set(conversation as string, seen)
          total++
        }
      })
      return new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)))
    })

    // A quarter through, a master goes: its replica takes over after the node timeout (2 s).
    const all = WRITERS * CONVERSATIONS * APPENDS
    onTestFinished(() => {
      for (const p of writers) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
    })
    while (total < all / 4) await new Promise((r) => setTimeout(r, 50))
    const [victim] = await cluster.masters()
    const before = total
    await cluster.kill(victim as number)
    await cluster.ready(90_000)
    // An operator brings the dead node back; it rejoins as the new master's replica, and
    // writes to that shard can be confirmed by a replica again.
    await cluster.restart(victim as number)
    expect(await Promise.all(exits)).toEqual(Array(WRITERS).fill(0))
    expect(before).toBeLessThan(all)
    // Writers met the dead master and sent those appends again: the failover path ran, so
    // what follows proves it keeps every append once.
    expect(retries, 'appends sent again after the master died').toBeGreaterThan(0)

    const client = new Cluster(cluster.nodes)
    const store = await redisStore({ client })
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
    await client.quit()
    console.log(
      `cluster failover: master ${victim} killed after ${before} of ${all} appends; ${retries} appends sent again`,
    )
  }, 300_000)
})

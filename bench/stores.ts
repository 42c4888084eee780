// npm run bench:stores: appends per second and latency of ChatContext.addMessage over a
// single Redis, a Redis Cluster (3 masters, a replica each, replicas: 1) and PostgreSQL,
// each started here: 8 processes × 100 conversations × 20 messages. Figures, not a test.
import { spawn } from 'node:child_process'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import { startPostgres } from '../test/helpers/postgres-server.js'
import { startRedisCluster } from '../test/helpers/redis-cluster.js'
import { startRedis } from '../test/helpers/redis-server.js'

const PROCESSES = 8
const CONVERSATIONS = 100
const APPENDS = 20
const worker = fileURLToPath(new URL('./store-worker.ts', import.meta.url))

interface WorkerOut {
  latencies: number[]
  start: number
  end: number
}

/** Throughput over the time appends ran (from the first process's first to the last one's last), not counting process start-up. */
async function run(kind: string, target: string) {
  const outs = await Promise.all(
    Array.from(
      { length: PROCESSES },
      (_, w) =>
        new Promise<WorkerOut>((resolve, reject) => {
          const p = spawn(
            process.execPath,
            [
              '--import',
              'tsx',
              worker,
              kind,
              target,
              `w${w}`,
              String(CONVERSATIONS),
              String(APPENDS),
            ],
            { stdio: ['ignore', 'pipe', 'inherit'] },
          )
          let out = ''
          p.stdout.on('data', (d: Buffer) => {
            out += d.toString()
          })
          p.on('exit', (code) =>
            code === 0
              ? resolve(JSON.parse(out) as WorkerOut)
              : reject(new Error(`${kind} worker ${w}: ${code}`)),
          )
        }),
    ),
  )
  const seconds =
    (Math.max(...outs.map((o) => o.end)) - Math.min(...outs.map((o) => o.start))) / 1000
  const all = outs.flatMap((o) => o.latencies).sort((a, b) => a - b)
  const at = (q: number) => all[Math.min(all.length - 1, Math.floor(q * all.length))] as number
  return {
    store: kind,
    appends: all.length,
    perSecond: Math.round(all.length / seconds),
    p50ms: Number(at(0.5).toFixed(1)),
    p99ms: Number(at(0.99).toFixed(1)),
  }
}

const rows = []
const redis = await startRedis()
rows.push(await run('redis', redis.url))
await redis.stop()
const cluster = await startRedisCluster()
rows.push(await run('cluster', cluster.ports.join(',')))
await cluster.stop()
const pg = await startPostgres()
rows.push(await run('postgres', pg.url))
await pg.stop()
console.log(
  `${cpus().length} cores, ${PROCESSES} processes × ${CONVERSATIONS} conversations × ${APPENDS} messages`,
)
console.table(rows)

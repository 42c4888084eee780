import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** A real Redis Cluster on 127.0.0.1: 3 masters with one replica each, in a temporary folder. */
export interface RedisCluster {
  /** Every node's port, masters and replicas. */
  ports: number[]
  dir: string
  /** `{ host, port }` of every node, as ioredis's `Cluster` takes them. */
  nodes: { host: string; port: number }[]
  /** Ports of the nodes that are masters now (they change after a failover). */
  masters(): Promise<number[]>
  /** SIGKILL one node: no chance to hand anything over. */
  kill(port: number): Promise<void>
  /** Starts a killed node again, empty: it rejoins as a replica of whoever took its slots. */
  restart(port: number): Promise<void>
  /**
   * Resolves once every live node says `cluster_state:ok`, 3 masters are up, and every live
   * replica has finished its sync (`master_link_status:up`): before that, a WAIT counts nobody.
   */
  ready(timeoutMs?: number): Promise<void>
  stop(): Promise<void>
}

/** A port that is free, with its cluster bus port (port + 10000) free too. */
async function freePair(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000)
    if (taken.has(port) || taken.has(port + 10_000)) continue
    if ((await isFree(port)) && (await isFree(port + 10_000))) {
      taken.add(port)
      taken.add(port + 10_000)
      return port
    }
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    timeout: 10_000,
  })
  return stdout
}

/**
 * Starts 6 `redis-server --cluster-enabled yes` and joins them with `redis-cli --cluster
 * create --cluster-replicas 1`. A short node timeout (2 s) makes a failover take seconds.
 * Startup is given a minute: the machine may be busy.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'cw-cluster-'))
  const taken = new Set<number>()
  const ports: number[] = []
  for (let k = 0; k < 6; k++) ports.push(await freePair(taken))
  const processes = new Map<number, ChildProcess>()
  const launch = (port: number) =>
    processes.set(
      port,
      spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--dbfilename',
          `dump-${port}.rdb`,
          '--save',
          '',
          '--appendonly',
          'no',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          '2000',
          '--daemonize',
          'no',
        ],
        { stdio: 'ignore' },
      ),
    )
  for (const port of ports) launch(port)
  // A process killed by a signal keeps exitCode null: signalCode says it is gone.
  const running = (p: ChildProcess | undefined) =>
    !!p && p.exitCode === null && p.signalCode === null
  const alive = () => ports.filter((p) => running(processes.get(p)))
  const cluster: RedisCluster = {
    ports,
    dir,
    nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    async masters() {
      const out = await cli(alive()[0] as number, 'cluster', 'nodes')
      return out
        .split('\n')
        .filter((l) => / master /.test(l) || /,master /.test(l))
        .filter((l) => !/fail/.test(l.split(' ')[2] ?? ''))
        .map((l) => Number(/:(\d+)@/.exec(l)?.[1]))
    },
    async kill(port) {
      const p = processes.get(port)
      if (!p || !running(p)) return
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve())
        p.kill('SIGKILL')
      })
    },
    async restart(port) {
      launch(port)
      await waitUntil(
        async () => (await cli(port, 'ping').catch(() => '')).includes('PONG'),
        60_000,
      )
    },
    async ready(timeoutMs = 60_000) {
      await waitUntil(async () => {
        for (const port of alive()) {
          const info = await cli(port, 'cluster', 'info').catch(() => '')
          if (!info.includes('cluster_state:ok')) return false
          const replication = await cli(port, 'info', 'replication').catch(() => '')
          if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
            return false
        }
        return (await cluster.masters().catch(() => [])).length === 3
      }, timeoutMs)
    },
    async stop() {
      await Promise.all(ports.map((p) => cluster.kill(p)))
      rmSync(dir, { recursive: true, force: true })
    },
  }
  try {
    await waitUntil(async () => {
      for (const port of ports)
        if (!(await cli(port, 'ping').catch(() => '')).includes('PONG')) return false
      return true
    }, 60_000)
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 60_000 },
    )
    await cluster.ready()
  } catch (e) {
    await cluster.stop()
    throw e
  }
  return cluster
}

async function waitUntil(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`the Redis Cluster did not get ready within ${ms} ms`)
}

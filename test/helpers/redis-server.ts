import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './free-port.js'

/** A real redis-server on 127.0.0.1 at a free port, in a temporary folder. */
export interface RedisServer {
  port: number
  url: string
  dir: string
  process: ChildProcess
  /** SIGKILL: no chance to flush anything it was not told to. */
  kill(): Promise<void>
  start(): Promise<void>
  stop(): Promise<void>
}

export function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

export async function startRedis(options: { appendonly?: boolean } = {}): Promise<RedisServer> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'cw-redis-'))
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--daemonize',
    'no',
  ]
  if (options.appendonly) args.push('--appendonly', 'yes', '--appendfsync', 'always')
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    process: undefined as unknown as ChildProcess,
    async start() {
      server.process = spawn('redis-server', args, { stdio: 'ignore' })
      await waitUntil(async () => ping(port))
    },
    async kill() {
      const p = server.process
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve())
        p.kill('SIGKILL')
      })
    },
    async stop() {
      if (server.process.exitCode === null) await server.kill()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  await server.start()
  return server
}

async function ping(port: number): Promise<boolean> {
  const { Socket } = await import('node:net')
  return new Promise((resolve) => {
    const s = new Socket()
    s.once('error', () => resolve(false))
    s.connect(port, '127.0.0.1', () => {
      s.write('PING\r\n')
      s.once('data', (d) => {
        s.destroy()
        resolve(d.toString().startsWith('+PONG'))
      })
    })
  })
}

async function waitUntil(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('redis-server did not start')
}

import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { freePort } from './free-port.js'

const DEBIAN = '/usr/lib/postgresql'

/**
 * Where the server programs are: Debian's postgresql package puts each major version under
 * /usr/lib/postgresql/N/bin (the newest wins); other systems put initdb on the PATH.
 */
const BIN = [
  ...(existsSync(DEBIAN) ? readdirSync(DEBIAN) : [])
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(DEBIAN, v, 'bin')),
  ...(process.env.PATH ?? '').split(delimiter).filter(Boolean),
].find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')))

/** A real PostgreSQL server on 127.0.0.1 at a free port, its data in a temporary folder. */
export interface PostgresServer {
  port: number
  /** `postgres://postgres@127.0.0.1:port/postgres` (trust authentication: no password). */
  url: string
  dir: string
  stop(): Promise<void>
}

export function hasPostgres(): boolean {
  return BIN !== undefined
}

/**
 * Runs a server program. PostgreSQL refuses to run as root, so as root it runs as `nobody`
 * (the temporary folder is made theirs); as anyone else, as that user.
 */
function asServerUser(program: string, args: string[]): void {
  const root = process.getuid?.() === 0
  const [cmd, all] = root
    ? ['runuser', ['-u', 'nobody', '--', join(BIN as string, program), ...args]]
    : [join(BIN as string, program), args]
  const r = spawnSync(cmd, all, { encoding: 'utf8', timeout: 120_000, cwd: tmpdir() })
  if (r.status !== 0) throw new Error(`${program} failed: ${r.stderr || r.stdout}`)
}

/** initdb, then pg_ctl start with the socket in the folder; a minute and more on a busy machine. */
export async function startPostgres(): Promise<PostgresServer> {
  if (!BIN) throw new Error('PostgreSQL is not installed (apt-get install postgresql)')
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'cw-pg-'))
  chmodSync(dir, 0o777)
  if (process.getuid?.() === 0) execFileSync('chown', ['nobody', dir])
  const data = join(dir, 'data')
  asServerUser('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'])
  asServerUser('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-t',
    '120',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    'start',
  ])
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dir,
    async stop() {
      try {
        asServerUser('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

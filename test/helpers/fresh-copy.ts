import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The repository as a fresh clone holds it (every file git knows, with this checkout's
 * edits), in a temporary folder with `node_modules` linked: what runs there runs without
 * vitest, its aliases or its setup files.
 */
export function freshCopy(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'cw-fresh-'))
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root })
    .toString('utf8')
    .split('\0')
    .filter((f) => f !== '' && f !== 'node_modules')
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true })
    try {
      copyFileSync(join(root, f), join(dir, f))
    } catch {
      // A file git knows but this checkout deleted: a clone of the edit would not hold it.
    }
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** The `// Run: …` line of a file in the repository. */
export function runLine(path: string): string {
  const m = /^\/\/ Run: (.+)$/m.exec(readFileSync(join(root, path), 'utf8'))
  if (!m?.[1]) throw new Error(`${path} has no "// Run:" line`)
  return m[1]
}

export interface Ran {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs a shell command line in `dir`, with the given `KEY=...` placeholders filled in. */
export function runIn(
  dir: string,
  line: string,
  fill: Record<string, string> = {},
  timeoutMs = 120_000,
  extraEnv: Record<string, string> = {},
): Promise<Ran> {
  const command = line.replace(/\b([A-Z_]+)=\.\.\./g, (all, key: string) =>
    key in fill ? `${key}=${fill[key]}` : all,
  )
  // The child's environment is a user's shell: none of vitest's variables.
  const env: Record<string, string> = { ...extraEnv }
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const v = process.env[k]
    if (v !== undefined) env[k] = v
  }
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd: dir, env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => {
      stdout += c
    })
    child.stderr.on('data', (c) => {
      stderr += c
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/**
 * The bench sections of another commit and of this checkout side by side, in one run:
 *   npx tsx scripts/bench-compare.ts [--base <commit>] [--sections a,b,c] [--runs 5]
 * (npm run bench:compare -- --base <commit>). The base is built in a temporary git worktree
 * (node_modules linked from here), this checkout is built in place, and every section of
 * each build runs from that build's own bench/sections.ts (it reads its own dist/), each in
 * a fresh process, base and head interleaved, so that the machine's drift falls on both.
 * Prints a table of each figure's median and head / base, and writes bench/results/compare.md.
 * The base defaults to the merge base with the upstream branch, or HEAD~1 without one.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const option = (name: string): string | undefined => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const runs = Number(option('--runs') ?? 5)
const only = option('--sections')?.split(',').filter(Boolean)

const git = (...a: string[]) =>
  execFileSync('git', a, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()

function defaultBase(): string {
  try {
    return git('merge-base', 'HEAD', '@{upstream}')
  } catch {
    return git('rev-parse', 'HEAD~1')
  }
}

const base = git('rev-parse', '--verify', `${option('--base') ?? defaultBase()}^{commit}`)
const head = git('rev-parse', 'HEAD')
const dirty = git('status', '--porcelain', '--untracked-files=no') !== ''

/** What a step prints goes to stderr: stdout is the table. */
function build(dir: string) {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: ['ignore', 2, 2] })
}

/** A build's section names: `--list`, or the names its error for an unknown section gives (older builds). */
function sectionsOf(dir: string): string[] {
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'bench/sections.ts', '--list'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    return JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as string[]
  } catch (e) {
    const said = String((e as { stderr?: string }).stderr ?? e)
    const names = /unknown section --list: ([^\n]*)/.exec(said)?.[1]
    if (!names) throw new Error(`cannot list the sections in ${dir}:\n${said}`)
    return names.split(',').map((s) => s.trim())
  }
}

/** Numeric figures of a section's JSON line, nested objects flattened with dots. */
function figures(value: unknown, prefix = '', out: Record<string, number> = {}) {
  if (typeof value === 'number') out[prefix] = value
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) figures(v, prefix ? `${prefix}.${k}` : k, out)
  return out
}

/** One section of one build, in a fresh process from that build's folder. */
function runSection(dir: string, section: string): Record<string, number> {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', 'bench/sections.ts', section],
    { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  return figures(JSON.parse(out.trim().split('\n').at(-1) ?? ''))
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] as number
}

const isTime = (figure: string) => /Ms($|_)/.test(figure)
const show = (figure: string, x: number | undefined) =>
  x === undefined || Number.isNaN(x)
    ? '—'
    : isTime(figure)
      ? x >= 1
        ? `${x.toFixed(2)} ms`
        : `${(x * 1000).toFixed(0)} µs`
      : Number.isInteger(x)
        ? String(x)
        : x.toFixed(3)

const tmp = mkdtempSync(join(tmpdir(), 'bench-base-'))
try {
  console.error(`base ${base.slice(0, 7)} in ${tmp}`)
  git('worktree', 'add', '--detach', tmp, base)
  symlinkSync(realpathSync(join(root, 'node_modules')), join(tmp, 'node_modules'))
  build(tmp)
  console.error(`head ${head.slice(0, 7)}${dirty ? ' (with uncommitted changes)' : ''} in ${root}`)
  build(root)

  const sides = { base: tmp, head: root } as const
  const names = { base: sectionsOf(tmp), head: sectionsOf(root) }
  const all = [...new Set([...names.base, ...names.head])].filter(
    (s) => only === undefined || only.includes(s),
  )
  for (const s of only ?? [])
    if (!all.includes(s)) throw new Error(`no build has section ${s}: ${all.join(', ')}`)

  // results[section][side] = one figures record per run
  const results: Record<string, Record<string, Record<string, number>[]>> = {}
  const failed: string[] = []
  for (let round = 1; round <= runs; round++)
    for (const section of all)
      for (const side of ['base', 'head'] as const) {
        if (!names[side].includes(section)) continue
        console.error(`run ${round}/${runs}: ${section} (${side})`)
        const t0 = performance.now()
        try {
          const got = runSection(sides[side], section)
          const bySide = results[section] ?? {}
          bySide[side] = [...(bySide[side] ?? []), got]
          results[section] = bySide
        } catch (e) {
          failed.push(
            `${section} (${side}), run ${round}: ${String((e as Error).message).split('\n')[0]}`,
          )
        }
        console.error(`  ${((performance.now() - t0) / 1000).toFixed(1)} s`)
      }

  const lines = [
    `# Bench sections: base ${base.slice(0, 7)} vs head ${head.slice(0, 7)}${dirty ? ' (with uncommitted changes)' : ''}`,
    '',
    `Node ${process.version}; each section ${runs} times per build, each run in a fresh process, base and head interleaved; every figure the median of its runs. Ratio: head / base (for times, above 1 is slower).`,
    '',
    '| section | figure | base median | head median | head / base |',
    '| --- | --- | --- | --- | --- |',
  ]
  const slower: string[] = []
  for (const section of all) {
    const side = (s: 'base' | 'head') => results[section]?.[s] ?? []
    const keys = [...new Set([...side('base'), ...side('head')].flatMap((r) => Object.keys(r)))]
    const where = !names.base.includes(section)
      ? ' (only in head)'
      : !names.head.includes(section)
        ? ' (only in base)'
        : ''
    for (const key of keys) {
      const med = (s: 'base' | 'head') => {
        const xs = side(s)
          .map((r) => r[key])
          .filter((x): x is number => x !== undefined)
        return xs.length ? median(xs) : undefined
      }
      const b = med('base')
      const h = med('head')
      const ratio = b !== undefined && h !== undefined && b !== 0 ? h / b : undefined
      if (ratio !== undefined && isTime(key) && ratio > 1.1)
        slower.push(`${section} ${key}: ${ratio.toFixed(2)}×`)
      lines.push(
        `| ${section}${where} | ${key} | ${show(key, b)} | ${show(key, h)} | ${ratio === undefined ? '—' : `${ratio.toFixed(2)}`} |`,
      )
    }
  }
  lines.push(
    '',
    slower.length
      ? `Head slower than base by more than 10%: ${slower.join('; ')}.`
      : 'No time figure of head is more than 10% slower than base.',
  )
  if (failed.length) lines.push('', `Failed runs: ${failed.join('; ')}.`)
  const text = `${lines.join('\n')}\n`
  console.log(text)
  writeFileSync(join(root, 'bench/results/compare.md'), text)
  console.error('written: bench/results/compare.md')
} finally {
  if (existsSync(join(tmp, '.git'))) git('worktree', 'remove', '--force', tmp)
  rmSync(tmp, { recursive: true, force: true })
}

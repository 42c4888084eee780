/**
 * The package as a user gets it: `npm pack`, installed into a scratch project, then type
 * checked, required, bundled for the browser and for a neutral runtime, run in headless
 * Chromium and in Node outside any node_modules, and its CLI's help examples run from an
 * empty folder. Slow (a build, an install, two bundles, a browser): about a minute.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, resultInChromium } from './helpers/chromium.js'
import { requireInCI } from './helpers/ci.js'

const repo = fileURLToPath(new URL('..', import.meta.url))
const bin = (name: string) => join(repo, 'node_modules', '.bin', name)
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }

const work = mkdtempSync(join(tmpdir(), 'cw-pack-'))
const app = join(work, 'app')
const example = readFileSync(join(repo, 'examples', 'airline-booking.json'), 'utf8')

// Text the exact counter must count as gpt-tokenizer does: astral characters, a joined
// emoji, a special token typed by a user (counted as text).
const NASTY = 'Héllo 👩‍👩‍👧 𝒳𝒴 <|endoftext|> done'

/**
 * One module that every runtime runs: fits the example and counts a few texts. Node loads
 * the encoding on the first exact count; other runtimes call \`ready\` (loadEncoding) first.
 */
const ENTRY = `
import { exactCounter, fit, fromOpenAIChat, loadEncoding, tokenLimited, toOpenAIChat } from 'context-window'
const convo = ${example}
export const ready = () => loadEncoding('o200k_base')
export function run() {
  const history = fromOpenAIChat(convo)
  const r = fit(history, { model: 'gpt-4o', budget: 3000, strategy: tokenLimited() })
  const counter = exactCounter({ model: 'gpt-4o' })
  const bare = counter.countMessage({ role: 'user', content: '' })
  return {
    kept: r.kept,
    total: r.tokens.total,
    sent: toOpenAIChat(r.messages).length,
    nasty: counter.countMessage({ role: 'user', content: ${JSON.stringify(NASTY)} }) - bare,
  }
}
`

function sh(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

let tarball = ''
let expected: { kept: number[]; total: number; sent: number; nasty: number }

beforeAll(() => {
  // `prepack` builds dist first, as it does before a publish.
  const out = sh('npm', ['pack', '--silent', '--pack-destination', work], repo)
  tarball = join(work, out.trim().split('\n').pop() as string)
  mkdirSync(app)
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
  )
  sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], app)
  writeFileSync(join(app, 'entry.js'), ENTRY)
  // What Node computes from the installed package: every other runtime must agree.
  writeFileSync(
    join(app, 'node-run.mjs'),
    `import { run } from './entry.js'\nconsole.log(JSON.stringify(run()))\n`,
  )
  expected = JSON.parse(sh('node', ['node-run.mjs'], app))
}, 300_000)

afterAll(() => {
  rmSync(work, { recursive: true, force: true })
})

// Each case runs programs (tsc, node, esbuild, a browser) on a machine that may be busy.
const SLOW = 180_000

describe('the packed package, installed', () => {
  it(
    'ships the entries, the example conversation and no tests or optional peers',
    () => {
      const root = join(app, 'node_modules', 'context-window')
      for (const f of [
        'dist/index.js',
        'dist/index.d.ts',
        'dist/node/index.js',
        'dist/tokens/data/o200k_base.js',
        'dist/tokens/data/cl100k_base.js',
        'dist/redis.js',
        'dist/postgres.js',
        'dist/ai-sdk.js',
        'dist/langchain.js',
        'dist/openai-agents.js',
        'dist/mastra.js',
        'dist/gemini-tokenizer.js',
        'dist/store-conformance.js',
        'dist/cli/main.js',
        'examples/airline-booking.json',
        'examples/TAU-BENCH-LICENSE',
        'LICENSE',
        'README.md',
      ])
        expect(existsSync(join(root, f)), f).toBe(true)
      expect(existsSync(join(root, 'dist/cli/main.test.js'))).toBe(false)
      expect(existsSync(join(app, 'node_modules', 'ioredis'))).toBe(false)
      expect(existsSync(join(app, 'node_modules', 'pg'))).toBe(false)
      // The Node run is right on its own terms: a valid fit within budget, exact counts.
      expect(expected.total).toBeLessThanOrEqual(3000)
      expect(expected.kept.length).toBeGreaterThan(0)
      expect(expected.nasty).toBe(countTokens(NASTY, { disallowedSpecial: new Set() }))
    },
    SLOW,
  )

  it(
    'type checks under strict + skipLibCheck: false without ioredis, as ESM, CommonJS and for bundlers',
    () => {
      writeFileSync(
        join(app, 'esm.mts'),
        `import { fit, fromOpenAIChat, type FitResult, type Message, InvalidInputError } from 'context-window'
const history: Message[] = fromOpenAIChat([{ role: 'user', content: 'hi' }])
const r: FitResult = fit(history, { model: 'gpt-4o', budget: 100 })
export const total: number = r.tokens.total
export const isError = (e: unknown): boolean => e instanceof InvalidInputError
`,
      )
      writeFileSync(
        join(app, 'cjs.cts'),
        `import { fit, type Message } from 'context-window'
import cw = require('context-window')
const m: Message = { role: 'user', content: 'hi' }
export const a: number = fit([m], { budget: 100 }).tokens.total
export const b: number = cw.fit([m], { budget: 100 }).tokens.total
`,
      )
      writeFileSync(join(app, 'bundler.ts'), `export * from './esm.mjs'\n`)
      const base = {
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        types: [],
        lib: ['ES2022', 'DOM'],
        target: 'ES2022',
      }
      writeFileSync(
        join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' },
          files: ['esm.mts', 'cjs.cts'],
        }),
      )
      writeFileSync(
        join(app, 'tsconfig.bundler.json'),
        JSON.stringify({
          compilerOptions: { ...base, module: 'esnext', moduleResolution: 'bundler' },
          files: ['esm.mts'],
        }),
      )
      for (const p of ['tsconfig.json', 'tsconfig.bundler.json']) {
        const r = spawnSync(bin('tsc'), ['-p', p, '--listFilesOnly'], {
          cwd: app,
          encoding: 'utf8',
        })
        expect(r.status, `${p}\n${r.stdout}${r.stderr}`).toBe(0)
        expect(r.stdout).not.toMatch(/ioredis|redis-store/)
        const check = spawnSync(bin('tsc'), ['-p', p], { cwd: app, encoding: 'utf8' })
        expect(check.status, `${p}\n${check.stdout}${check.stderr}`).toBe(0)
      }
    },
    SLOW,
  )

  it(
    "a stack trace from the Node entry names the library's functions",
    () => {
      writeFileSync(
        join(app, 'trace.mjs'),
        `import { inspect } from 'node:util'
import { fit, ChatContext, ProviderFeedback } from 'context-window'
try { fit('not a list') } catch (e) { console.log(inspect(e).split('\\n')[0]); console.log(e.stack) }
console.log([ChatContext.name, ProviderFeedback.name].join(' '))
`,
      )
      const [printed, ...rest] = sh('node', ['trace.mjs'], app).split('\n')
      const stack = rest.join('\n')
      // As Node prints an error (by its class's name): the bundle keeps the classes' names.
      expect(printed).toMatch(/^InvalidInputError: /)
      expect(rest.filter((l) => l.trim() !== '').at(-1)).toBe('ChatContext ProviderFeedback')
      expect(stack).toMatch(/^InvalidInputError: /)
      // Names as written (checkList, fit), not one or two letters of a minifier.
      expect(stack).toMatch(/\n\s+at checkList \(.*dist\/node\/chunk-\w+\.js:\d+:\d+\)/)
      expect(stack).toMatch(/\n\s+at (Module\.)?fit \(/)
    },
    SLOW,
  )

  it(
    'require() works, gives the same result as import, and the Redis entry names its missing peer',
    () => {
      writeFileSync(
        join(app, 'req.cjs'),
        `const cw = require('context-window')
const r = cw.fit(cw.fromOpenAIChat(require('./example.json')), { model: 'gpt-4o', budget: 3000, strategy: cw.tokenLimited() })
require('context-window/redis').redisStore({ url: 'redis://127.0.0.1:9' }).then(
  () => console.log(JSON.stringify({ total: r.tokens.total, kept: r.kept, redis: 'connected?' })),
  (e) => console.log(JSON.stringify({ total: r.tokens.total, kept: r.kept, redis: e.name + ': ' + e.message })),
)
`,
      )
      writeFileSync(join(app, 'example.json'), example)
      const out = JSON.parse(sh('node', ['req.cjs'], app))
      expect(out.total).toBe(expected.total)
      expect(out.kept).toEqual(expected.kept)
      expect(out.redis).toMatch(/^InvalidOptionError: .*needs the "ioredis" package/)
    },
    SLOW,
  )

  it(
    'bundles with esbuild for a neutral platform (no externals) and runs in Node outside any node_modules',
    async () => {
      const result = await build({
        entryPoints: [join(app, 'entry.js')],
        bundle: true,
        platform: 'neutral',
        format: 'esm',
        write: false,
        logLevel: 'silent',
        absWorkingDir: app,
      })
      const far = mkdtempSync(join(tmpdir(), 'cw-neutral-'))
      try {
        for (let d = far; d !== dirname(d); d = dirname(d))
          expect(existsSync(join(d, 'node_modules')), d).toBe(false)
        writeFileSync(join(far, 'bundle.mjs'), result.outputFiles[0]?.contents ?? '')
        // A neutral bundle has no synchronous loader: a typed error until the table is loaded.
        writeFileSync(
          join(far, 'main.mjs'),
          `import { ready, run } from './bundle.mjs'
let before = 'counted'
try { run() } catch (e) { before = e.name }
await ready()
console.log(JSON.stringify({ before, ...run() }))
`,
        )
        expect(JSON.parse(sh('node', ['main.mjs'], far))).toEqual({
          before: 'EncodingNotLoadedError',
          ...expected,
        })
      } finally {
        rmSync(far, { recursive: true, force: true })
      }
    },
    SLOW,
  )

  it.runIf(requireInCI(existsSync(CHROMIUM), 'chromium'))(
    'bundles with esbuild for the browser (no externals) and runs fit with the exact counter in headless Chromium',
    async () => {
      const result = await build({
        entryPoints: [join(app, 'entry.js')],
        bundle: true,
        platform: 'browser',
        format: 'esm',
        minify: true,
        write: false,
        logLevel: 'silent',
        absWorkingDir: app,
      })
      const bundle = result.outputFiles[0]?.contents ?? new Uint8Array()
      const page = `<!doctype html><meta charset="utf-8"><script type="module">
import { ready, run } from '/bundle.js'
ready().then(() => { window.result = run() }).catch((e) => { window.result = { error: String(e) } })
</script>`
      // No Node in a browser: a bundle that reached for one would fail here.
      const {
        result: got,
        errors,
        probed,
      } = await resultInChromium(page, new Map([['/bundle.js', bundle]]), (tab) =>
        tab.evaluate(() => typeof (globalThis as { process?: unknown }).process),
      )
      expect(errors).toEqual([])
      expect(got).toEqual(expected)
      expect(probed).toBe('undefined')
    },
    SLOW,
  )

  it(
    'the installed command: --version, and every --help example runs as written from an empty folder',
    () => {
      const binDir = join(app, 'node_modules', '.bin')
      expect(sh(join(binDir, 'context-window'), ['--version'], app).trim()).toBe(pkg.version)
      const empty = mkdtempSync(join(tmpdir(), 'cw-anywhere-'))
      try {
        const lines: string[] = []
        for (const command of ['fit', 'count', 'validate']) {
          const help = sh(join(binDir, 'context-window'), [command, '--help'], empty)
          lines.push(
            ...(help.split('Examples:\n')[1] ?? '')
              .split('\n')
              .map((l) => l.trim())
              .filter((l) => l.startsWith('context-window ')),
          )
        }
        expect(lines.length).toBeGreaterThanOrEqual(8)
        for (const line of lines) {
          const r = spawnSync('bash', ['-o', 'pipefail', '-c', line], {
            cwd: empty,
            encoding: 'utf8',
            env: { ...process.env, PATH: `${binDir}:${process.env.PATH}`, NO_COLOR: '1' },
          })
          expect(r.status, `${line}\n${r.stderr}`).toBe(0)
          expect(r.stdout.length, line).toBeGreaterThan(0)
        }
      } finally {
        rmSync(empty, { recursive: true, force: true })
      }
    },
    SLOW,
  )
})

import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENTRIES } from '../scripts/entries.js'
import { blockName, blocks, missingLines } from './docs/blocks.js'
import { type DocsServer, startDocsServer } from './docs/server.js'
import { requireInCI } from './helpers/ci.js'
import { runIn } from './helpers/fresh-copy.js'
import { type LimitedServer, startLimitedServer } from './helpers/limited-server.js'
import { hasRedisServer, type RedisServer, startRedis } from './helpers/redis-server.js'

/**
 * Every TypeScript block of the README and of docs/ is either a program, standalone (it
 * defines what it uses: no global declarations), compiled under `strict` and run as a
 * user would run it, `npx tsx block.ts` in its own process, which must exit on its own,
 * with the SDKs' keys and base URLs in the environment pointing at loopback servers
 * (OpenAI chat and Responses, Anthropic and Gemini on 127.0.0.1, a real redis-server for
 * the store), or an excerpt of an example
 * (`// from examples/x.ts` on its first line) whose lines all appear in that file, in order;
 * the examples are compiled by the type check and run by test/examples*.test.ts.
 */
const root = fileURLToPath(new URL('..', import.meta.url))
const all = blocks(root)
const programs = all.filter((b) => !b.excerptOf)
const excerpts = all.filter((b) => b.excerptOf)
const dir = join(root, '.tmp', 'doc-blocks')

/** Examples that test/examples.test.ts or test/examples-adapters.test.ts run. */
const runExamples = ['examples.test.ts', 'examples-adapters.test.ts']
  .map((f) => readFileSync(join(root, 'test', f), 'utf8'))
  .join('\n')

describe('README and docs code blocks', () => {
  it('finds the blocks', () => {
    expect(programs.length).toBeGreaterThan(5)
  })

  for (const b of excerpts) {
    it(`${b.file}:${b.line} is an excerpt of ${b.excerptOf}, which the tests run`, () => {
      const source = readFileSync(join(root, b.excerptOf as string), 'utf8')
      expect(missingLines(b.code, source)).toEqual([])
      const name = (b.excerptOf as string).replace(/^examples\//, '').replace(/\.ts$/, '')
      expect(runExamples).toContain(`examples/${name}.ts`)
    })
  }

  beforeAll(() => {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    for (const b of programs) writeFileSync(join(dir, `${blockName(b)}.ts`), b.code)
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          // The Node entries, as the package's `node` condition resolves them for tsx.
          paths: Object.fromEntries(
            ENTRIES.map((e) => [
              e === 'index' ? 'context-window' : `context-window/${e}`,
              [`../../src/node/${e}.ts`],
            ]),
          ),
        },
        files: programs.map((b) => `${blockName(b)}.ts`),
      }),
    )
  })

  it('every program block compiles under strict', () => {
    const tsc = join(root, 'node_modules', '.bin', 'tsc')
    let out = ''
    try {
      execFileSync(tsc, ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' })
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string }
      out = `${err.stdout ?? ''}${err.stderr ?? ''}`
    }
    expect(out).toBe('')
  }, 120_000)

  describe('every program block runs against loopback servers', () => {
    let limited: LimitedServer
    let docs: DocsServer
    let redis: RedisServer | undefined
    beforeAll(async () => {
      limited = await startLimitedServer({ window: 1_000_000 })
      docs = await startDocsServer(limited)
      if (requireInCI(hasRedisServer(), 'redis-server')) redis = await startRedis()
    })
    afterAll(async () => {
      await docs.close()
      await limited.close()
      await redis?.stop()
    })

    /** The documented default Redis URL stands for the one the test started. */
    const REDIS_URL = 'redis://127.0.0.1:6379'

    for (const b of programs) {
      it(`${b.file}:${b.line}`, async () => {
        let file = join(dir, `${blockName(b)}.ts`)
        expect(existsSync(file)).toBe(true)
        if (b.code.includes(REDIS_URL)) {
          if (!redis) return
          file = join(dir, `${blockName(b)}.run.ts`)
          writeFileSync(file, b.code.replaceAll(REDIS_URL, redis.url))
        }
        // From the repository's root, as a user runs a file in their project.
        const ran = await runIn(root, `npx tsx ${file}`, {}, 60_000, {
          OPENAI_BASE_URL: `${docs.url}/v1`,
          OPENAI_API_KEY: 'test',
          ANTHROPIC_BASE_URL: docs.url,
          ANTHROPIC_API_KEY: 'test',
          GOOGLE_GEMINI_BASE_URL: docs.url,
          GEMINI_API_KEY: 'test',
        })
        // Exit 0 on its own within the time limit (a block that leaves a connection open is killed).
        expect(ran.code, ran.stderr).toBe(0)
      }, 90_000)
    }

    it('the blocks reached every provider, and none was rejected', () => {
      expect(limited.rejections).toBe(0)
      for (const route of ['chat', 'responses', 'messages', 'gemini', 'embeddings'])
        expect(docs.calls[route] ?? 0, `${route}: ${JSON.stringify(docs.calls)}`).toBeGreaterThan(0)
    })
  })
})

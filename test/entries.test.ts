import { fileURLToPath } from 'node:url'
import { build, type Metafile } from 'esbuild'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const entry = (name: string) => fileURLToPath(new URL(`../src/${name}`, import.meta.url))

/** Bundles an entry with nothing external: every import must resolve for the platform given. */
async function bundle(
  file: string,
  platform: 'neutral' | 'browser' | 'node',
  format: 'esm' | 'cjs' = 'esm',
) {
  const result = await build({
    entryPoints: [file],
    bundle: true,
    platform,
    format,
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: root,
    // neutral has no main fields by default; packages are resolved through `exports` only.
    mainFields: platform === 'neutral' ? [] : undefined,
  })
  return result
}

function inputs(metafile: Metafile): string[] {
  return Object.keys(metafile.inputs)
}

describe('entries by runtime', () => {
  it('the root entry bundles for a neutral platform: no node: built-in, no ioredis', async () => {
    const { metafile, outputFiles } = await bundle(entry('index.ts'), 'neutral')
    const text = outputFiles[0]?.text ?? ''
    expect(text.length).toBeGreaterThan(0)
    expect(inputs(metafile).filter((f) => f.startsWith('node:'))).toEqual([])
    expect(inputs(metafile).filter((f) => /ioredis|redis-store/.test(f))).toEqual([])
    expect(text).not.toMatch(/\brequire\(|node:/)
    // Schemas are zod/mini: the full (classic) zod build is nowhere in the graph.
    expect(inputs(metafile).filter((f) => /zod\/v4\/classic\//.test(f))).toEqual([])
    // The exact counter's encodings are part of the graph, as ESM.
    expect(
      inputs(metafile).some((f) => /gpt-tokenizer\/esm\/encoding\/o200k_base\.js$/.test(f)),
    ).toBe(true)
  })

  it('the root entry has no top-level await (require() of it must work)', async () => {
    // esbuild refuses top-level await in CommonJS output: this bundle fails if any module has one.
    const { outputFiles } = await bundle(entry('index.ts'), 'neutral', 'cjs')
    expect(outputFiles[0]?.text.length).toBeGreaterThan(0)
  })

  it('the redis entry holds the store, and only it names ioredis', async () => {
    const redis = await build({
      entryPoints: [entry('redis.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: root,
      external: ['ioredis'],
    })
    expect(inputs(redis.metafile).some((f) => f.endsWith('src/store/redis-store.ts'))).toBe(true)
    const index = await import('../src/index.js')
    expect('redisStore' in index).toBe(false)
    const sub = await import('../src/redis.js')
    expect(typeof sub.redisStore).toBe('function')
  })
})

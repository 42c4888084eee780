import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
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
    expect(inputs(metafile).filter((f) => /ioredis|redis-store|postgres-store/.test(f))).toEqual([])
    expect(text).not.toMatch(/from ['"]pg['"]/)
    expect(text).not.toMatch(/\brequire\(|node:/)
    // Schemas are zod/mini: the full (classic) zod build is nowhere in the graph.
    expect(inputs(metafile).filter((f) => /zod\/v4\/classic\//.test(f))).toEqual([])
    // The rank tables are reached only through loadEncoding's dynamic import: nothing imports
    // them statically, and no other tokenizer package is in the graph.
    const links = Object.values(metafile.inputs).flatMap((i) => i.imports)
    const tables = links.filter((l) => /tokens\/data\/(o200k|cl100k)_base\.ts$/.test(l.path))
    expect(tables.map((l) => l.kind).sort()).toEqual(['dynamic-import', 'dynamic-import'])
    expect(inputs(metafile).filter((f) => /gpt-tokenizer/.test(f))).toEqual([])
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

  it('the postgres entry holds the store, and only it names pg', async () => {
    const postgres = await build({
      entryPoints: [entry('postgres.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: root,
      external: ['pg'],
    })
    const graph = inputs(postgres.metafile)
    expect(graph.some((f) => f.endsWith('src/store/postgres-store.ts'))).toBe(true)
    expect(graph.filter((f) => /ioredis|redis-store/.test(f))).toEqual([])
    const index = await import('../src/index.js')
    expect('postgresStore' in index).toBe(false)
    const sub = await import('../src/postgres.js')
    expect(typeof sub.postgresStore).toBe('function')
  })
})

describe('framework entries', () => {
  const frameworks = {
    'ai-sdk': ['fitMiddleware', 'fitEachStep', 'fitAISDKMessages'],
    langchain: ['fitAgentMessages'],
    'openai-agents': ['fitModelInput', 'fittedSession', 'fitAgentModel'],
    mastra: ['fitInputProcessor'],
  } as const
  /** Each framework's recall tool: new in its entry, never at the root. */
  const recallTools = {
    'ai-sdk': 'recallToolForAISDK',
    langchain: 'recallToolForLangChain',
    'openai-agents': 'recallToolForOpenAIAgents',
    mastra: 'recallToolForMastra',
  } as const

  /** Helpers new in a framework's entry, never at the root. */
  const entryOnly: Record<string, readonly string[]> = { langchain: ['toLangChainMessages'] }

  for (const [name, exported] of Object.entries(frameworks)) {
    it(`context-window/${name} exports its adapters and its recall tool, which the root entry does not`, async () => {
      const sub = (await import(pathToFileURL(entry(`${name}.ts`)).href)) as Record<string, unknown>
      const root = (await import('../src/index.js')) as Record<string, unknown>
      const recallTool = recallTools[name as keyof typeof recallTools]
      const own = entryOnly[name] ?? []
      expect(Object.keys(sub).sort()).toEqual([...exported, recallTool, ...own].sort())
      for (const key of own) expect(root).not.toHaveProperty(key)
      for (const key of exported) {
        expect(typeof sub[key]).toBe('function')
        expect(root).not.toHaveProperty(key)
      }
      expect(typeof sub[recallTool]).toBe('function')
      expect(root).not.toHaveProperty(recallTool)
    })

    it(`context-window/${name} bundles for a neutral platform with no node: built-in`, async () => {
      const { metafile } = await bundle(entry(`${name}.ts`), 'neutral')
      expect(inputs(metafile).filter((f) => f.startsWith('node:'))).toEqual([])
    })
  }

  it('the root entry does not hold the Gemma encoder; its own entry does, with no node: built-in', async () => {
    const rootGraph = inputs((await bundle(entry('index.ts'), 'neutral')).metafile)
    expect(rootGraph.filter((f) => /merge-bpe|gemini-tokenizer/.test(f))).toEqual([])
    const own = inputs((await bundle(entry('gemini-tokenizer.ts'), 'neutral')).metafile)
    expect(own.some((f) => f.endsWith('src/tokens/merge-bpe.ts'))).toBe(true)
    expect(own.filter((f) => f.startsWith('node:'))).toEqual([])
  })

  it('every entry is in the package exports and the build', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; import: string }>
    }
    for (const name of [
      ...Object.keys(frameworks),
      'redis',
      'postgres',
      'gemini-tokenizer',
      'store-conformance',
    ]) {
      expect(pkg.exports[`./${name}`]?.import).toBe(`./dist/${name}.js`)
      expect(pkg.exports[`./${name}`]?.types).toBe(`./dist/${name}.d.ts`)
    }
  })
})

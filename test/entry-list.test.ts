/**
 * The entries are declared once, in package.json `exports`; every other place that lists
 * them is generated from it (`vitest.config.ts`, `scripts/bundle-node.ts`, through
 * `scripts/entries.ts`) or held to it here (`tsconfig.json` paths, `src/node/*`, each
 * export's conditions).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ENTRIES, SUBPATHS } from '../scripts/entries.js'
import config from '../vitest.config.js'

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')
const pkg = JSON.parse(read('package.json'))
const specifier = (name: string) => (name === 'index' ? 'context-window' : `context-window/${name}`)

describe('the entry list', () => {
  it('is read from package.json: the root and each subpath, in its order', () => {
    expect(ENTRIES[0]).toBe('index')
    expect(ENTRIES.length).toBeGreaterThan(1)
    expect(SUBPATHS).toEqual(ENTRIES.slice(1))
    expect(Object.keys(pkg.exports)).toEqual([
      ...ENTRIES.map((e) => (e === 'index' ? '.' : `./${e}`)),
      './package.json',
    ])
  })

  it('gives every entry the same conditions, each pointing at its own built files', () => {
    for (const name of ENTRIES) {
      const key = name === 'index' ? '.' : `./${name}`
      expect(pkg.exports[key], key).toEqual({
        types: `./dist/${name}.d.ts`,
        node: `./dist/node/${name}.js`,
        'module-sync': `./dist/${name}.js`,
        import: `./dist/${name}.js`,
        require: `./dist/${name}.js`,
        default: `./dist/${name}.js`,
      })
      expect(existsSync(new URL(`../src/${name}.ts`, import.meta.url)), name).toBe(true)
    }
  })

  it('tsconfig.json maps each entry, and nothing else, to its Node source (which loads the encodings as the Node build does)', () => {
    const paths = JSON.parse(read('tsconfig.json')).compilerOptions.paths
    expect(paths).toEqual(
      Object.fromEntries(ENTRIES.map((e) => [specifier(e), [`./src/node/${e}.ts`]])),
    )
  })

  it('src/node/ holds one Node face per entry, each handing on its entry', () => {
    const faces = readdirSync(new URL('../src/node/', import.meta.url))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => f.slice(0, -3))
    expect(faces.sort()).toEqual([...ENTRIES].sort())
    for (const name of ENTRIES)
      expect(read(`src/node/${name}.ts`), name).toContain(`export * from '../${name}.js'`)
  })

  it('vitest resolves each entry by name to its source', () => {
    const alias = config.resolve?.alias
    const finds = Array.isArray(alias) ? alias.map((a) => [a.find, a.replacement]) : []
    expect(finds.map(([find]) => find)).toEqual([...SUBPATHS.map(specifier), 'context-window'])
    for (const [find, replacement] of finds) {
      const name =
        find === 'context-window' ? 'index' : String(find).slice('context-window/'.length)
      expect(String(replacement).endsWith(`/src/${name}.ts`), String(find)).toBe(true)
    }
  })

  it('the Node bundle builds every entry', () => {
    expect(read('scripts/bundle-node.ts')).toMatch(/const entries = ENTRIES\n/)
  })
})

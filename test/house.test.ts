import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { circles, houseFigures, importsOf, layerOf, srcLayerOf } from '../scripts/house-figures.js'

const at = (path: string) => new URL(`../${path}`, import.meta.url).pathname
const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? sourceFiles(`${dir}/${d.name}`)
      : d.name.endsWith('.ts') && !d.name.endsWith('.test.ts')
        ? [`${dir}/${d.name}`]
        : [],
  )

describe('the shape of src/', () => {
  it('has no import circle, and no import inside providers/ runs up its layers', async () => {
    const figures = await houseFigures()
    expect(figures.circles).toEqual([])
    expect(figures.upArrows).toEqual([])
    expect(figures.srcUpArrows).toEqual([])
    // A new folder of src/, or a new file in providers/, is placed on a layer before it counts.
    expect(figures.unlayered).toEqual([])
  })

  it('names how tokenLimited cuts in its definition, its JSON schema and the CLI flag only', async () => {
    const { optionFiles } = await houseFigures()
    const files = (name: string) => optionFiles.find((o) => o.name === name)?.files
    expect(files('dropFrom')).toEqual([
      'src/cli/fit-options.ts',
      'src/context/options/option-schemas.ts',
      'src/strategies/token-limited.ts',
    ])
    // A name counts in code or as a one-word string (a key list, a check's option name), not
    // inside a longer string: an import path through compress/, CSS in the HTML report.
    expect(files('compress')).not.toContain('src/index.ts')
    expect(files('compress')).toContain('src/compress/summarizing-options.ts')
    expect(files('background')).not.toContain('src/report/html.ts')
    expect(files('leaveLastN')).toContain('src/cli/fit-options.ts')
    // Every option a check knows is counted: the fit's, the context's and each strategy's.
    for (const name of ['budget', 'stable', 'initialMessages', 'maxTurns', 'summarizer'])
      expect(files(name)?.length, name).toBeGreaterThan(0)
  })

  it('places every folder of src/ on a layer, and none that SRC_LAYERS does not name', () => {
    const src = at('src')
    const folders = readdirSync(src, { withFileTypes: true }).filter((d) => d.isDirectory())
    expect(folders.length).toBeGreaterThan(10)
    for (const d of folders) expect(srcLayerOf(`${src}/${d.name}/x.ts`), d.name).toBeDefined()
    expect(srcLayerOf(at('src/no-such-folder/x.ts'))).toBeUndefined()
    // recall/'s parts sit below what reads them (transforms, the core, the adapters); the tool
    // handed to each framework reads the adapters, so it sits above them.
    const layer = (p: string) => srcLayerOf(at(`src/${p}`)) ?? Number.NaN
    expect(layer('recall/recall-index.ts')).toBeLessThan(layer('transforms/truncate-messages.ts'))
    expect(layer('recall/numbering.ts')).toBeLessThan(layer('integrations/ai-sdk.ts'))
    expect(layer('recall/definition.ts')).toBeLessThan(layer('context/recall.ts'))
    expect(layer('recall/frameworks.ts')).toBeGreaterThan(layer('integrations/ai-sdk.ts'))
    expect(layer('recall/index.ts')).toBe(layer('index.ts'))
  })

  it('has one place that makes a plan: the view prepared and the strategy asked', () => {
    const makers = (pattern: RegExp) =>
      sourceFiles(at('src'))
        .filter((f) => pattern.test(readFileSync(f, 'utf8')))
        .map((f) => f.slice(at('src').length + 1))
    // Strategies that wrap another ask it too (pins, the ledger, summarizing's fallback): only
    // a setup's strategy is asked by the core.
    expect(makers(/\bsetup\.strategy\.select\(/)).toEqual(['context/context-plan.ts'])
    expect(makers(/(?<![.\w]|function )prepare\(/)).toEqual(['context/context-plan.ts'])
  })

  it('finds a circle of any length, and none in a chain', () => {
    const loop = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ])
    expect(circles(loop)).toEqual([['a', 'b', 'c']])
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([])
  })

  it('reads type-only, re-exporting and multi-line imports as arrows, not comments or strings', () => {
    const file = at('src/providers/x.ts')
    const text = [
      "import type { A } from './a.js'",
      "export { B } from './b.js'",
      'import {',
      '  C,',
      "} from './c.js'",
      "// import { D } from './d.js'",
      'const s = "import { E } from \'./e.js\'"',
      "import 'node:fs'",
    ].join('\n')
    expect(importsOf(file, text)).toEqual(['a', 'b', 'c'].map((n) => at(`src/providers/${n}.ts`)))
  })

  it('places the names below the engine, and an API folder between kit and tables', () => {
    const layer = (p: string) => layerOf(at(`src/providers/${p}`))
    expect(layer('provider.ts')).toBeLessThan(layer('codec-kit.ts') ?? 0)
    expect(layer('gemini/codec.ts')).toBeGreaterThan(layer('types.ts') ?? 0)
    expect(layer('gemini/index.ts')).toBeLessThan(layer('table.ts') ?? 0)
    expect(layer('table.ts')).toBeLessThan(layer('validate.ts') ?? 0)
    expect(layer('index.ts')).toBe(7)
    expect(layerOf(at('src/index.ts'))).toBeUndefined()
    // Across src/: the entries above everything they hand on, errors.ts below everything but
    // the credential filter its messages go through (on the filter's face's layer, its parts below).
    expect(srcLayerOf(at('src/index.ts'))).toBeGreaterThan(srcLayerOf(at('src/cli/main.ts')) ?? 0)
    expect(srcLayerOf(at('src/errors.ts'))).toBe(srcLayerOf(at('src/messages/credentials.ts')))
    expect(srcLayerOf(at('src/errors.ts'))).toBeLessThan(
      srcLayerOf(at('src/options-check.ts')) ?? 0,
    )
    expect(srcLayerOf(at('src/messages/credential-values.ts'))).toBeLessThan(
      srcLayerOf(at('src/errors.ts')) ?? 0,
    )
    expect(srcLayerOf(at('src/native/context-management.ts'))).toBeGreaterThan(
      srcLayerOf(at('src/context/fit.ts')) ?? 0,
    )
  })
})

/**
 * Size of what a browser app ships for `fit` + `tokenLimited` + the OpenAI chat codec: an
 * esbuild browser bundle (minified), its entry chunk gzipped. The encodings' rank tables
 * (gpt-tokenizer's `bpeRanks`, several hundred KB gzipped each) are data and left out.
 * `npm run size`. Options: `--dist` bundles the built package (`npm run build` first) instead
 * of the source (the same modules, so the same size); `--json` prints one JSON line;
 * `--max KB` exits 1 above that size.
 */
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build, type Plugin } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const asJson = args.includes('--json')
const maxAt = args.indexOf('--max')
const max = maxAt >= 0 ? Number(args[maxAt + 1]) : undefined
const fromDist = args.includes('--dist')

const usage = `
import { fit, tokenLimited, fromOpenAIChat, toOpenAIChat } from 'context-window'
export function prepare(messages, budget) {
  const result = fit(fromOpenAIChat(messages), { model: 'gpt-4o', budget, strategy: tokenLimited() })
  return toOpenAIChat(result.messages)
}
`

const encodingData: Plugin = {
  name: 'encoding-data',
  setup(b) {
    b.onResolve({ filter: /\/bpeRanks\// }, (a) => ({ path: a.path, external: true }))
  },
}

export async function measure(
  dist = false,
): Promise<{ bytes: number; gzip: number; inputs: [string, number][] }> {
  const result = await build({
    stdin: { contents: usage, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'error',
    absWorkingDir: root,
    alias: {
      'context-window': fileURLToPath(
        new URL(dist ? '../dist/index.js' : '../src/index.ts', import.meta.url),
      ),
    },
    plugins: [encodingData],
  })
  const out = result.outputFiles[0]
  if (!out) throw new Error('esbuild wrote nothing')
  const byInput = new Map<string, number>()
  for (const o of Object.values(result.metafile.outputs))
    for (const [file, { bytesInOutput }] of Object.entries(o.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? 'context-window'
      byInput.set(pkg, (byInput.get(pkg) ?? 0) + bytesInOutput)
    }
  return {
    bytes: out.contents.length,
    gzip: gzipSync(out.contents, { level: 9 }).length,
    inputs: [...byInput].sort((a, b) => b[1] - a[1]),
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const m = await measure(fromDist)
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  if (asJson)
    console.log(
      JSON.stringify({ minified: m.bytes, gzip: m.gzip, inputs: Object.fromEntries(m.inputs) }),
    )
  else {
    console.log(`browser bundle of fit + tokenLimited + OpenAI chat codec (encoding data excluded)`)
    console.log(`  minified ${kb(m.bytes)}, gzipped ${kb(m.gzip)}`)
    for (const [pkg, n] of m.inputs) console.log(`  ${pkg.padEnd(16)} ${kb(n)} minified`)
  }
  if (max !== undefined && m.gzip > max * 1024) {
    console.error(`size: ${kb(m.gzip)} gzipped is over the ${max} KB limit`)
    process.exit(1)
  }
}

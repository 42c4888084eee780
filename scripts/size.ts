/**
 * Size of what a browser app loads at start for `fit` + `tokenLimited` + the OpenAI chat
 * codec: an esbuild browser bundle (minified, split), the entry chunk and every chunk it
 * imports statically, each gzipped. Nothing is left out: the encodings' rank tables are
 * chunks of their own, reached only through `loadEncoding`'s dynamic import, and their
 * size is printed apart (what an app that counts exactly fetches once).
 * `npm run size`. Options: `--dist` bundles the built package (`npm run build` first) instead
 * of the source (the same modules, so the same size); `--json` prints one JSON line;
 * `--max KB` exits 1 above that size.
 */
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

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

export async function measure(dist = false): Promise<{
  bytes: number
  gzip: number
  inputs: [string, number][]
  /** Chunks loaded only on demand (the encodings' tables): gzipped bytes. */
  onDemand: number
}> {
  const result = await build({
    stdin: { contents: usage, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    splitting: true,
    outdir: 'size-out',
    metafile: true,
    logLevel: 'error',
    absWorkingDir: root,
    alias: {
      'context-window': fileURLToPath(
        new URL(dist ? '../dist/index.js' : '../src/index.ts', import.meta.url),
      ),
    },
  })
  const outputs = result.metafile.outputs
  const entry = Object.keys(outputs).find((f) => outputs[f]?.entryPoint === '<stdin>')
  if (!entry) throw new Error('esbuild wrote no entry chunk')
  // The entry and what it imports statically, transitively: what loads at start.
  const atStart = new Set([entry])
  for (const file of atStart)
    for (const i of outputs[file]?.imports ?? [])
      if (i.kind === 'import-statement' && !i.external) atStart.add(i.path)
  const contents = new Map(
    result.outputFiles.map((f) => [relative(root, f.path).replaceAll('\\', '/'), f.contents]),
  )
  let bytes = 0
  let gzip = 0
  let onDemand = 0
  const byInput = new Map<string, number>()
  for (const [file, out] of Object.entries(outputs)) {
    const data = contents.get(file)
    if (!data || !file.endsWith('.js')) continue
    const gz = gzipSync(data, { level: 9 }).length
    if (!atStart.has(file)) {
      onDemand += gz
      continue
    }
    bytes += data.length
    gzip += gz
    for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? 'context-window'
      byInput.set(pkg, (byInput.get(pkg) ?? 0) + bytesInOutput)
    }
  }
  return { bytes, gzip, inputs: [...byInput].sort((a, b) => b[1] - a[1]), onDemand }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const m = await measure(fromDist)
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  if (asJson)
    console.log(
      JSON.stringify({
        minified: m.bytes,
        gzip: m.gzip,
        onDemandGzip: m.onDemand,
        inputs: Object.fromEntries(m.inputs),
      }),
    )
  else {
    console.log('browser bundle of fit + tokenLimited + OpenAI chat codec, all loaded at start')
    console.log(`  minified ${kb(m.bytes)}, gzipped ${kb(m.gzip)}`)
    console.log(`  on demand (loadEncoding's tables): ${kb(m.onDemand)} gzipped`)
    for (const [pkg, n] of m.inputs) console.log(`  ${pkg.padEnd(16)} ${kb(n)} minified`)
  }
  if (max !== undefined && m.gzip > max * 1024) {
    console.error(`size: ${kb(m.gzip)} gzipped is over the ${max} KB limit`)
    process.exit(1)
  }
}

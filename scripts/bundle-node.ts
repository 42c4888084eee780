/**
 * The Node entries (`dist/node/*.js`, picked by the `node` export condition) as one esbuild
 * bundle split across them: a Node process then loads a few files where the compiled
 * modules are some two hundred (zod's included), which is most of an import's cost. Every
 * other package stays external; syntax minified (with source maps), names and lines kept
 * for readable stack traces. The rank tables stay the modules `tsc` wrote
 * (`dist/tokens/data/`), loaded on demand. Run by `npm run build` after `tsc`.
 */
import { readdirSync, rmSync } from 'node:fs'
import { build, type Plugin } from 'esbuild'
import { ENTRIES } from './entries.js'

// Every entry package.json exports (each has its Node face under src/node/).
const entries = ENTRIES

const external: Plugin = {
  name: 'external',
  setup(b) {
    // Packages other than zod (a dependency only this package's code uses) stay imports.
    b.onResolve({ filter: /^[^./]/ }, (a) =>
      /^zod(\/|$)/.test(a.path) ? undefined : { path: a.path, external: true },
    )
    // The tables: the modules beside the unbundled code, not copies in the bundle.
    b.onResolve({ filter: /\/data\/(o200k|cl100k)_base\.js$/ }, (a) => ({
      path: `../tokens/data/${a.path.split('/').at(-1)}`,
      external: true,
    }))
  },
}

const out = new URL('../dist/node/', import.meta.url)
// Chunks of an earlier build (shared code, and the on-demand ones named after their module):
// their names end in a hash of their contents, so a new build leaves the old ones behind.
for (const f of readdirSync(out))
  if (f.startsWith('chunk-') || /-[A-Z0-9]{8}\.js(?:\.map)?$/.test(f)) rmSync(new URL(f, out))

await build({
  entryPoints: Object.fromEntries(
    entries.map((e) => [e, new URL(`../src/node/${e}.ts`, import.meta.url).pathname]),
  ),
  outdir: out.pathname,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // Syntax minified (most of the parse saving) but names and lines kept: a stack trace from
  // the Node entry reads `at fit (chunk-….js:1234:5)`, not `at pt (chunk-….js:6:3270)`.
  minifySyntax: true,
  minifyWhitespace: false,
  minifyIdentifiers: false,
  // A class that names itself in its body is renamed in a bundle (`class _ChatContext`);
  // kept names make Node print `InvalidInputError: …` and `ChatContext {…}`, not `_…`.
  keepNames: true,
  plugins: [external],
  logLevel: 'warning',
})

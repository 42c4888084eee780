/**
 * The package's entries, read from the one place they are declared: `exports` in
 * `package.json`. `vitest.config.ts` (aliases) and `scripts/bundle-node.ts` (the Node bundle)
 * are generated from this list; `tsconfig.json` paths and `src/node/*` cannot be, and
 * `test/entry-list.test.ts` holds them, and each export's conditions, to it.
 */
import { readFileSync } from 'node:fs'

const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const exports = pkg && typeof pkg === 'object' && 'exports' in pkg ? pkg.exports : undefined
if (!exports || typeof exports !== 'object') throw new Error('package.json has no exports')

/** Every entry by its source name under `src/`: `index` for the root, then each subpath's name. */
export const ENTRIES: readonly string[] = Object.keys(exports)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? 'index' : key.slice(2)))

/** The subpath entries (`context-window/<name>`), the root left out. */
export const SUBPATHS: readonly string[] = ENTRIES.filter((name) => name !== 'index')

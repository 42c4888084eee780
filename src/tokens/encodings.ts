import { EncodingNotLoadedError, InvalidOptionError } from '../errors.js'
import { describeValue } from '../options-check.js'

export type EncodingName = 'o200k_base' | 'cl100k_base'

export const ENCODINGS: readonly EncodingName[] = ['o200k_base', 'cl100k_base']

/**
 * The rank tables are loaded when first needed, never at import: an app that only estimates
 * (Claude, Gemini) or brings its own counter loads none. A table arrives either from the
 * synchronous loader an entry for a runtime with one installs (Node: `context-window` under
 * the `node` export condition), or from `loadEncoding`, a dynamic import every bundler
 * splits into a chunk of its own. Once loaded, counting is synchronous.
 */
const loaded = new Map<EncodingName, (text: string) => number>()

/** Gives an encoding's counter synchronously, or undefined when it cannot. */
export type EncodingLoader = (name: EncodingName) => ((text: string) => number) | undefined
const syncLoaders: EncodingLoader[] = []

function checkName(name: unknown): EncodingName {
  if (!ENCODINGS.includes(name as EncodingName))
    throw new InvalidOptionError(
      'encoding',
      `expected one of ${ENCODINGS.join(', ')}, got ${describeValue(name)}`,
    )
  return name as EncodingName
}

/**
 * Loads an encoding's rank table (default `o200k_base`); exact counts with it are
 * synchronous once the promise resolves. Needed where no synchronous loader exists (a
 * browser, a worker, Deno, a bundle for any of them); harmless elsewhere.
 */
export async function loadEncoding(name: EncodingName = 'o200k_base'): Promise<void> {
  checkName(name)
  if (loaded.has(name)) return
  // The byte-pair code comes with the table: a browser app that never counts exactly loads neither.
  const [{ default: table }, { encodingCounter }] = await Promise.all([
    name === 'o200k_base' ? import('./data/o200k_base.js') : import('./data/cl100k_base.js'),
    import('./bpe.js'),
  ])
  if (!loaded.has(name)) loaded.set(name, encodingCounter(name, table))
}

/**
 * Adds a synchronous loader (an entry's job, where the runtime offers one). The newest is
 * asked first; one that cannot find the table returns undefined and the next is asked.
 */
export function addEncodingLoader(loader: EncodingLoader): void {
  syncLoaders.unshift(loader)
}

function encoding(name: EncodingName): (text: string) => number {
  let count = loaded.get(name)
  for (let i = 0; !count && i < syncLoaders.length; i++) count = syncLoaders[i]?.(name)
  if (!count) throw new EncodingNotLoadedError(name)
  loaded.set(name, count)
  return count
}

/** Counts text in `name`, loading its table on the first count. */
export function textCounter(name: EncodingName): (text: string) => number {
  let count: ((text: string) => number) | undefined
  return (text) => {
    if (text.length === 0) return 0
    count ??= encoding(name)
    return count(text)
  }
}

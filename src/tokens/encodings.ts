import { EncodingNotLoadedError, InvalidOptionError } from '../errors.js'
import { bpeCounter, PATTERNS, readRankTable } from './bpe.js'

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
const syncLoaders: ((name: EncodingName) => string | undefined)[] = []

function install(name: EncodingName, table: string): (text: string) => number {
  let count = loaded.get(name)
  if (!count) {
    count = bpeCounter(readRankTable(table), PATTERNS[name])
    loaded.set(name, count)
  }
  return count
}

function checkName(name: unknown): EncodingName {
  if (!ENCODINGS.includes(name as EncodingName))
    throw new InvalidOptionError(
      'encoding',
      `expected one of ${ENCODINGS.join(', ')}, got ${JSON.stringify(name)}`,
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
  const table =
    name === 'o200k_base'
      ? (await import('./data/o200k_base.js')).default
      : (await import('./data/cl100k_base.js')).default
  install(name, table)
}

/**
 * Adds a synchronous loader (an entry's job, where the runtime offers one). The newest is
 * asked first; one that cannot find the table returns undefined and the next is asked.
 */
export function addEncodingLoader(loader: (name: EncodingName) => string | undefined): void {
  syncLoaders.unshift(loader)
}

function encoding(name: EncodingName): (text: string) => number {
  const count = loaded.get(name)
  if (count) return count
  let table: string | undefined
  for (const loader of syncLoaders) {
    table = loader(name)
    if (table !== undefined) break
  }
  if (table === undefined) throw new EncodingNotLoadedError(name)
  return install(name, table)
}

/**
 * BPE on one pre-tokenizer piece is quadratic in its length, and a piece is a run of one
 * kind of character (letters, white space, punctuation): 100,000 spaces, 40,000 U+3000 or a
 * pasted blob would stall the caller for seconds. Any run longer than this many UTF-8 bytes
 * is counted in pieces of at most this length, found in one linear pass. A cut can save at
 * most one token near it (40,000 random mixed-case, mixed-script texts never saved more), so
 * each cut adds one: the sum stays an upper bound, and text without such runs is counted exactly.
 */
export const MAX_RUN = 48

const astral = new Map<number, number>()

const LETTER = 0
const DIGIT = 1
const SPACE = 2
const OTHER = 3

let bmpClasses: Uint8Array | undefined
/** Character classes of the Basic Multilingual Plane, computed once on first need. */
function bmp(): Uint8Array {
  if (!bmpClasses) {
    bmpClasses = new Uint8Array(0x10000)
    for (let c = 0; c < 0x10000; c++) bmpClasses[c] = classify(String.fromCharCode(c))
  }
  return bmpClasses
}

function classify(ch: string): number {
  if (/[\p{L}\p{M}]/u.test(ch)) return LETTER
  if (/\p{N}/u.test(ch)) return DIGIT
  if (/\s/u.test(ch)) return SPACE
  return OTHER
}

const ASCII = new Uint8Array(128)
for (let c = 0; c < 128; c++) ASCII[c] = classify(String.fromCharCode(c))

/** Calls `count` on slices of `text` in which no run of one class is longer than `MAX_RUN` UTF-8 bytes. */
export function countInRuns(text: string, count: (slice: string) => number): number {
  if (text.length <= MAX_RUN / 4) return count(text)
  let total = 0
  let segment = 0
  /** UTF-8 bytes of the current run: BPE works on bytes. */
  let runBytes = 0
  let runClass = -1
  const n = text.length
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i)
    let width = 1
    let bytes = 3
    let cls: number
    if (c < 128) {
      cls = ASCII[c] as number
      bytes = 1
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        width = 2
        bytes = 4
        const cp = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000
        let known = astral.get(cp)
        if (known === undefined) {
          known = classify(text.slice(i, i + 2))
          if (astral.size < 4096) astral.set(cp, known)
        }
        cls = known
      } else cls = OTHER
    } else {
      cls = bmp()[c] as number
      if (c < 0x800) bytes = 2
    }
    if (cls !== runClass) {
      runClass = cls
      runBytes = bytes
    } else if (cls !== DIGIT && runBytes + bytes > MAX_RUN) {
      // Digits are pieces of at most three already.
      // A cut can move the pre-tokenizer's piece boundaries near it: one token covers what that can save.
      total += count(text.slice(segment, i)) + 1
      segment = i
      runBytes = bytes
    } else runBytes += bytes
    i += width
  }
  return total + count(text.slice(segment))
}

/** Counts text in `name`, loading its table on the first count. */
export function textCounter(name: EncodingName): (text: string) => number {
  let count: ((text: string) => number) | undefined
  return (text) => {
    if (text.length === 0) return 0
    count ??= encoding(name)
    return countInRuns(text, count)
  }
}

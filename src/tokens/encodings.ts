import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base'

export type EncodingName = 'o200k_base' | 'cl100k_base'

type CountFn = (text: string, options?: { disallowedSpecial?: Set<string> }) => number

/**
 * The encodings are plain ESM imports, so every bundler and runtime resolves them (no
 * `require`, no `node:` module). Counting is synchronous, so they are imported statically:
 * their rank tables are read when this module loads; the BPE state is built on first use.
 */
const encodings: Record<EncodingName, CountFn> = { o200k_base: o200k, cl100k_base: cl100k }

function load(name: EncodingName): CountFn {
  return encodings[name]
}

/** Text inside a message is text: `<|endoftext|>` typed by a user is counted, not refused. */
const NO_SPECIAL = { disallowedSpecial: new Set<string>() }

/**
 * A run this long with no white space is one pre-tokenizer piece, and BPE on one piece is
 * quadratic: a pasted 100 kB blob would stall the caller for seconds. Such runs are counted
 * in chunks; splitting only removes merges, so the sum stays an upper bound.
 */
const LONG_RUN = /\S{2000,}/g
const CHUNK = 500

export function textCounter(name: EncodingName): (text: string) => number {
  const count = load(name)
  return (text) => {
    if (text.length === 0) return 0
    if (text.length < 2000) return count(text, NO_SPECIAL)
    LONG_RUN.lastIndex = 0
    if (!LONG_RUN.test(text)) return count(text, NO_SPECIAL)
    LONG_RUN.lastIndex = 0
    let total = 0
    let last = 0
    for (const match of text.matchAll(LONG_RUN)) {
      const at = match.index ?? 0
      if (at > last) total += count(text.slice(last, at), NO_SPECIAL)
      const run = match[0]
      for (let k = 0; k < run.length; k += CHUNK)
        total += count(run.slice(k, k + CHUNK), NO_SPECIAL)
      last = at + run.length
    }
    if (last < text.length) total += count(text.slice(last), NO_SPECIAL)
    return total
  }
}

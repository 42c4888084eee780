/**
 * Byte-pair token counting for OpenAI's encodings from a compact rank table (see
 * scripts/encodings.ts for its form). Loading a table is a base64 decode and one hashing
 * pass, a few milliseconds, where building JavaScript maps of 200,000 strings takes hundreds.
 *
 * Counting follows the published algorithm: the text is cut by the encoding's pre-tokenizer
 * pattern; a piece that is itself a token counts 1; otherwise its bytes start as one part
 * each, and the adjacent pair whose bytes form the token of lowest rank is merged (the
 * leftmost on a tie) until no pair is a token. The count is the number of parts left.
 * Browsers load this module with the tables (`loadEncoding`), Node with its loader.
 */
import { PATTERNS } from './patterns.js'
import { countInRuns } from './runs.js'

export { PATTERNS } from './patterns.js'

export interface RankTable {
  /** Token bytes, in rank order. */
  bytes: Uint8Array
  /** Where rank r's bytes start; `offsets[r + 1]` is where they end. */
  offsets: Uint32Array
  /** Open addressing: rank + 1 in the slot its bytes hash to (or a later one), 0 when empty. */
  slots: Int32Array
  mask: number
}

const NONE = 0x7fffffff

const B64 = new Uint8Array(128)
for (const [i, c] of [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
].entries())
  B64[c.charCodeAt(0)] = i

/**
 * The table's base64, decoded four characters at a time. Not `base64ToBytes`
 * (messages/base64.ts, lenient, a bit at a time): this one is about twice as fast on a 2 MB
 * table, and it lives in the chunk loaded on demand with the tables, where sharing that
 * function would split it into a chunk of its own loaded at start (80 bytes more gzipped).
 */
function fromBase64(text: string): Uint8Array {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--
  const out = new Uint8Array(Math.floor((end * 3) / 4))
  let o = 0
  let i = 0
  for (; i + 4 <= end; i += 4) {
    const v =
      ((B64[text.charCodeAt(i)] as number) << 18) |
      ((B64[text.charCodeAt(i + 1)] as number) << 12) |
      ((B64[text.charCodeAt(i + 2)] as number) << 6) |
      (B64[text.charCodeAt(i + 3)] as number)
    out[o++] = v >> 16
    out[o++] = (v >> 8) & 255
    out[o++] = v & 255
  }
  if (end - i >= 2) {
    const v =
      ((B64[text.charCodeAt(i)] as number) << 18) |
      ((B64[text.charCodeAt(i + 1)] as number) << 12) |
      (end - i === 3 ? (B64[text.charCodeAt(i + 2)] as number) << 6 : 0)
    out[o++] = v >> 16
    if (end - i === 3) out[o++] = (v >> 8) & 255
  }
  return out
}

function hash(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5
  for (let i = from; i < to; i++) h = Math.imul(h ^ (b[i] as number), 0x01000193)
  return h >>> 0
}

/** Reads a table written by scripts/encodings.ts. */
export function readRankTable(base64: string): RankTable {
  const raw = fromBase64(base64)
  const count = new DataView(raw.buffer).getUint32(0, true)
  const bytes = raw.subarray(4 + count)
  const offsets = new Uint32Array(count + 1)
  for (let r = 0; r < count; r++) offsets[r + 1] = (offsets[r] as number) + (raw[4 + r] as number)
  let size = 1
  while (size < count * 2) size *= 2
  const mask = size - 1
  const slots = new Int32Array(size)
  for (let r = 0; r < count; r++) {
    const from = offsets[r] as number
    const to = offsets[r + 1] as number
    if (to === from) continue
    let s = hash(bytes, from, to) & mask
    while (slots[s] !== 0) s = (s + 1) & mask
    slots[s] = r + 1
  }
  return { bytes, offsets, slots, mask }
}

/** The rank of `b[from, to)` as one token, or NONE. */
function rankOf(t: RankTable, b: Uint8Array, from: number, to: number): number {
  const len = to - from
  const { bytes, offsets, slots, mask } = t
  let s = hash(b, from, to) & mask
  for (;;) {
    const r = (slots[s] as number) - 1
    if (r < 0) return NONE
    const start = offsets[r] as number
    if ((offsets[r + 1] as number) - start === len) {
      let i = 0
      while (i < len && bytes[start + i] === b[from + i]) i++
      if (i === len) return r
    }
    s = (s + 1) & mask
  }
}

/** Tokens in `b[0, len)`, one pre-tokenizer piece. */
function countPiece(t: RankTable, b: Uint8Array, len: number): number {
  if (len <= 1 || rankOf(t, b, 0, len) !== NONE) return len === 0 ? 0 : 1
  // Part k spans b[start[k], start[k + 1]); pair[k] is the rank of parts k and k + 1 joined.
  const start: number[] = []
  const pair: number[] = []
  for (let i = 0; i <= len; i++) start.push(i)
  for (let i = 0; i + 1 < len; i++) pair.push(rankOf(t, b, i, i + 2))
  let parts = len
  for (;;) {
    let min = NONE
    let at = -1
    for (let k = 0; k < parts - 1; k++) {
      const r = pair[k] as number
      if (r < min) {
        min = r
        at = k
      }
    }
    if (at < 0) return parts
    start.splice(at + 1, 1)
    pair.splice(at + 1, 1)
    parts--
    pair.length = parts - 1
    pair[at] = at + 2 <= parts ? rankOf(t, b, start[at] as number, start[at + 2] as number) : NONE
    if (at > 0) pair[at - 1] = rankOf(t, b, start[at - 1] as number, start[at + 1] as number)
  }
}

/** Pieces counted once are remembered, up to this many (then forgotten all at once). */
const CACHE_LIMIT = 100_000

/** A counter of tokens in a text for one encoding; special-token text counts as text. */
export function bpeCounter(table: RankTable, pattern: string): (text: string) => number {
  const split = new RegExp(pattern, 'gu')
  const utf8 = new TextEncoder()
  let scratch = new Uint8Array(256)
  const cache = new Map<string, number>()
  return (text) => {
    let n = 0
    for (const [piece] of text.matchAll(split)) {
      let c = cache.get(piece)
      if (c === undefined) {
        if (scratch.length < piece.length * 3) scratch = new Uint8Array(piece.length * 3)
        const { written } = utf8.encodeInto(piece, scratch)
        c = countPiece(table, scratch, written)
        if (cache.size >= CACHE_LIMIT) cache.clear()
        cache.set(piece, c)
      }
      n += c
    }
    return n
  }
}

/**
 * The counter of an encoding from its table as scripts/encodings.ts writes it, with long
 * runs counted in slices (`countInRuns`).
 */
export function encodingCounter(
  name: keyof typeof PATTERNS,
  table: string,
): (text: string) => number {
  const count = bpeCounter(readRankTable(table), PATTERNS[name])
  return (text) => countInRuns(text, count)
}

/**
 * The words recall matches on, read in one pass over the text: lower case, runs of letters,
 * digits, `_`, `.` and `-`, trimmed of those three at their ends, each run whole (two code
 * units or more) and each of its parts between them (a part of four or more ending in `s`
 * without it). The same bag as
 * `text.toLowerCase().match(/[\p{L}\p{N}_.-]+/gu)` split so, without a regular expression,
 * an array of matches or a string per part that is a whole run too.
 */

/** Whether a BMP code unit is a letter or a digit: 0 not known yet, 1 yes, 2 no. */
const bmp = new Uint8Array(0x10000)
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u

function isSeparator(c: number): boolean {
  return c === 95 || c === 46 || c === 45 // _ . -
}

/** ASCII by kind: 0 no word character, 1 a letter or digit, 2 a separator (`_`, `.`, `-`). */
const ASCII = new Uint8Array(128)
for (let c = 0; c < 128; c++)
  ASCII[c] =
    (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90)
      ? 1
      : isSeparator(c)
        ? 2
        : 0

/** Code units of the letter or digit at `i` of `s` (2 for an astral one), or 0 when it is none. */
function letterWidth(s: string, i: number, c: number): number {
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1)
    if (d >= 0xdc00 && d <= 0xdfff) return LETTER_OR_DIGIT.test(s.slice(i, i + 2)) ? 2 : 0
    return 0
  }
  let known = bmp[c] as number
  if (known === 0) {
    known = LETTER_OR_DIGIT.test(String.fromCharCode(c)) ? 1 : 2
    bmp[c] = known
  }
  return known === 1 ? 1 : 0
}

/** FNV-1a's start: a range's hash is `step` over its code units from it. */
const HASH0 = 0x811c9dc5
function step(h: number, c: number): number {
  return Math.imul(h ^ c, 0x01000193)
}

/** The hash of `[a, b)` of `s`, as `eachWordRange` gives it. */
export function hashOf(s: string, a: number, b: number): number {
  let h = HASH0
  for (let i = a; i < b; i++) h = step(h, s.charCodeAt(i))
  return h
}

/**
 * The parts of the run being read: for each, start, end, hash and hash without the last code
 * unit (typed, and reused: a list emptied per run costs more than the run).
 */
let parts = new Int32Array(64)

function pushPart(count: number, p: number, q: number, h: number, h1: number): number {
  if (count + 4 > parts.length) {
    const grown = new Int32Array(parts.length * 2)
    grown.set(parts)
    parts = grown
  }
  parts[count] = p
  parts[count + 1] = q
  parts[count + 2] = h
  parts[count + 3] = h1
  return count + 4
}

/**
 * Calls `visit(a, b, h)` with each word of `lowered` (a text already in lower case) as the
 * code units `[a, b)` it spans and their hash (`hashOf`): a word may come more than once (the
 * caller keeps a bag). No string is made, and each code unit is read once.
 */
export function eachWordRange(
  lowered: string,
  visit: (a: number, b: number, h: number) => void,
): void {
  const s = lowered
  const n = s.length
  let i = 0
  while (i < n) {
    const c0 = s.charCodeAt(i)
    if (c0 < 128 ? ASCII[c0] === 0 : letterWidth(s, i, c0) === 0) {
      i++
      continue
    }
    // One run of word characters: the whole (its first letter or digit to its last) and its
    // parts between separators, each hashed as it is read.
    let a = -1
    let b = -1
    // The whole's hash is the first part's until a separator follows it inside the run.
    let joined = false
    let whole = HASH0
    let wholeAtB = HASH0
    let p = -1
    let part = HASH0
    let beforeLast = HASH0
    let end = i
    let count = 0
    for (;;) {
      const c = end < n ? s.charCodeAt(end) : -1
      let w = 0
      if (c >= 0 && c < 128) {
        const kind = ASCII[c] as number
        if (kind === 1) {
          // A letter or digit of ASCII, the common case.
          if (a < 0) a = end
          if (p < 0) {
            p = end
            part = HASH0
          }
          beforeLast = part
          part = Math.imul(part ^ c, 0x01000193)
          end++
          b = end
          if (joined) {
            whole = Math.imul(whole ^ c, 0x01000193)
            wholeAtB = whole
          }
          continue
        }
        if (kind === 2) {
          // A separator: the part before it ends; the whole goes on through it.
          if (p >= 0 && end - p >= 2) count = pushPart(count, p, end, part, beforeLast)
          p = -1
          if (a >= 0) {
            if (!joined) {
              joined = true
              whole = part
              wholeAtB = part
            }
            whole = Math.imul(whole ^ c, 0x01000193)
          }
          end++
          continue
        }
      } else if (c >= 128) w = letterWidth(s, end, c)
      if (w === 0) {
        // The run ends.
        if (p >= 0 && end - p >= 2) count = pushPart(count, p, end, part, beforeLast)
        break
      }
      // A letter or digit beyond ASCII (one or two code units).
      if (a < 0) a = end
      if (p < 0) {
        p = end
        part = HASH0
      }
      for (let k = 0; k < w; k++) {
        const u = s.charCodeAt(end + k)
        beforeLast = part
        part = step(part, u)
        if (joined) whole = step(whole, u)
      }
      end += w
      b = end
      if (joined) wholeAtB = whole
    }
    if (!joined) wholeAtB = part
    i = end
    if (b - a >= 2) {
      visit(a, b, wholeAtB)
      for (let k = 0; k < count; k += 4) {
        const pa = parts[k] as number
        const pb = parts[k + 1] as number
        // A part of four or more ending in `s` counts without it.
        if (pb - pa > 3 && s.charCodeAt(pb - 1) === 115) visit(pa, pb - 1, parts[k + 3] as number)
        else if (pa !== a || pb !== b) visit(pa, pb, parts[k + 2] as number)
      }
    }
  }
}

/**
 * Calls `add` with each word of `text` (a word may come more than once: the caller keeps a
 * bag). `text` is lowered here.
 */
export function eachWord(text: string, add: (word: string) => void): void {
  const s = text.toLowerCase()
  eachWordRange(s, (a, b) => add(s.slice(a, b)))
}

/** The words of `text`, as a set. */
export function wordsOf(text: string): Set<string> {
  const out = new Set<string>()
  eachWord(text, (w) => out.add(w))
  return out
}

/** Words a query asks about: common function words say nothing of which message. */
const STOP = new Set(
  'the a an of to in on for and or is are was were be by with what which who when where how did do does my your at it its this that from as get'.split(
    ' ',
  ),
)

/** Characters of a query read for its words (a pasted document says no more past them). */
export const QUERY_CHARS = 10_000
/** Distinct words a query is searched for, the first ones it names. */
export const QUERY_WORDS = 64

/** What a query asks: its distinct words, and its terms (the words of each of its parts). */
export interface QueryTerms {
  /** Distinct words, in the order the query first names them (at most `QUERY_WORDS`). */
  words: string[]
  /** Each part of the query (split at spaces, commas, semicolons): its words, distinct terms only. */
  terms: string[][]
}

/**
 * The words a query is searched for: its first `QUERY_CHARS` characters, split into terms at
 * spaces, commas and semicolons (an identifier's parts stay one term), function words left
 * out; a term named twice counts once, and only the first `QUERY_WORDS` distinct words are
 * used, so a query of any length costs at most that many words' postings.
 */
export function queryTerms(query: string): QueryTerms {
  const words: string[] = []
  const known = new Set<string>()
  const seen = new Set<string>()
  const terms: string[][] = []
  for (const part of query.slice(0, QUERY_CHARS).split(/[\s,;]+/)) {
    const term: string[] = []
    for (const w of wordsOf(part)) {
      if (STOP.has(w)) continue
      if (!known.has(w)) {
        if (words.length >= QUERY_WORDS) continue
        known.add(w)
        words.push(w)
      }
      term.push(w)
    }
    if (term.length === 0) continue
    const key = term.join(' ')
    if (seen.has(key)) continue
    seen.add(key)
    terms.push(term)
  }
  return { words, terms }
}

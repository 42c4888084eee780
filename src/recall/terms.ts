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

/** Code units of the word character at `i` of `s` (2 for an astral one), or 0 when it is none. */
function wordWidth(s: string, i: number): number {
  const c = s.charCodeAt(i)
  if (c < 128)
    return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || isSeparator(c)
      ? 1
      : 0
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

/**
 * Calls `add` with each word of `text` (a word may come more than once: the caller keeps a
 * bag). `text` is lowered here.
 */
export function eachWord(text: string, add: (word: string) => void): void {
  const s = text.toLowerCase()
  const n = s.length
  let i = 0
  while (i < n) {
    let w = wordWidth(s, i)
    if (w === 0) {
      i++
      continue
    }
    let end = i
    while (w > 0) {
      end += w
      w = end < n ? wordWidth(s, end) : 0
    }
    // The run is [i, end): trimmed of separators at both ends.
    let a = i
    let b = end
    i = end
    while (a < b && isSeparator(s.charCodeAt(a))) a++
    while (b > a && isSeparator(s.charCodeAt(b - 1))) b--
    if (b - a < 2) continue
    const whole = s.slice(a, b)
    add(whole)
    let p = a
    while (p < b) {
      let q = p
      while (q < b && !isSeparator(s.charCodeAt(q))) q++
      if (q - p >= 2) {
        const plural = q - p > 3 && s.charCodeAt(q - 1) === 115 // s
        add(p === a && q === b && !plural ? whole : s.slice(p, plural ? q - 1 : q))
      }
      p = q
      while (p < b && isSeparator(s.charCodeAt(p))) p++
    }
  }
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

/**
 * The words recall matches on, read in one pass over a folded text (`fold`: lower case, and
 * compatibility forms such as full-width letters made plain). Two kinds of runs:
 *
 * - Runs of letters, marks, digits, `_`, `.` and `-`, trimmed of those three at their ends:
 *   each run whole (two code units or more) and each of its parts between them (a part of
 *   four or more ending in `s` without it). The same bag as
 *   `fold(text).match(/[\p{L}\p{M}\p{N}_.-]+/gu)` split so, without a regular expression, an
 *   array of matches or a string per part that is a whole run too.
 * - Runs of the scripts written without spaces between words (Han, Hiragana, Katakana,
 *   Hangul, Thai, Lao, Khmer, Myanmar): each pair of neighbouring characters, or the one
 *   character of a run of one. A word of such a text, asked for, is its pairs: found wherever
 *   the text holds it, whatever surrounds it.
 */

/** What a character is to the reader. */
const WORD = 1
const SEPARATOR = 2
const PAIRED = 3
const OTHER = 4

/** Each BMP code unit's kind, 0 when not known yet (found once, by the regular expressions). */
const kinds = new Uint8Array(0x10000)
for (let c = 0; c < 128; c++)
  kinds[c] =
    (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90)
      ? WORD
      : c === 95 || c === 46 || c === 45 // _ . -
        ? SEPARATOR
        : OTHER
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u
const PAIRED_CHAR =
  /^[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]$/u
const astralKinds = new Map<number, number>()

function kindOf(ch: string): number {
  return WORD_CHAR.test(ch) ? (PAIRED_CHAR.test(ch) ? PAIRED : WORD) : OTHER
}

/** Code units of the character `kindAt` read last (2 for an astral one). */
let width = 1

/** The kind of the character at `i` of `s` (`c` its first code unit); its width in `width`. */
function kindAt(s: string, i: number, c: number): number {
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1)
    if (d >= 0xdc00 && d <= 0xdfff) {
      width = 2
      const point = (c - 0xd800) * 0x400 + (d - 0xdc00)
      let k = astralKinds.get(point)
      if (k === undefined) {
        k = kindOf(s.slice(i, i + 2))
        astralKinds.set(point, k)
      }
      return k
    }
  }
  width = 1
  let k = kinds[c] as number
  if (k === 0) {
    k = kindOf(String.fromCharCode(c))
    kinds[c] = k
  }
  return k
}

const NOT_ASCII = /[\u0080-\uffff]/

/**
 * `text` as recall reads it: lower case; beyond ASCII also in its compatibility form (NFKC:
 * full-width and half-width forms, ligatures and composed accents read as their plain
 * letters), and a final sigma as a sigma.
 */
export function fold(text: string): string {
  if (!NOT_ASCII.test(text)) return text.toLowerCase()
  return text.normalize('NFKC').toLowerCase().replaceAll('ς', 'σ')
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

type Visit = (a: number, b: number, h: number) => void

/**
 * Calls `visit(a, b, h)` with each word of `folded` (a text `fold` gave) as the code units
 * `[a, b)` it spans and their hash (`hashOf`): a word may come more than once (the caller
 * keeps a bag). No string is made, and each code unit is read once (a pair's twice).
 */
export function eachWordRange(folded: string, visit: Visit): void {
  const s = folded
  const n = s.length
  let i = 0
  while (i < n) {
    const c = s.charCodeAt(i)
    if (c < 128) {
      if (kinds[c] !== WORD) {
        i++
        continue
      }
      // The common case first: a run of ASCII letters and digits that ends at an ASCII
      // character of no word (a space, a quote), read here. Any other run is read again whole.
      let h = HASH0
      let h1 = HASH0
      let j = i
      let d = c
      do {
        h1 = h
        h = Math.imul(h ^ d, 0x01000193)
        j++
        d = j < n ? s.charCodeAt(j) : 32
      } while (d < 128 && kinds[d] === WORD)
      if (d < 128 && kinds[d] === OTHER) {
        if (j - i >= 2) {
          visit(i, j, h)
          // A word of four or more ending in `s` counts without it too.
          if (j - i > 3 && s.charCodeAt(j - 1) === 115) visit(i, j - 1, h1)
        }
        i = j + 1
      } else i = readRun(s, i, visit)
      continue
    }
    const k = kindAt(s, i, c)
    if (k === WORD) i = readRun(s, i, visit)
    else if (k === PAIRED) i = readPairs(s, i, width, visit)
    else i += width
  }
}

/**
 * Reads the run of word characters from `start` (a letter, mark or digit): the whole (its
 * first letter or digit to its last) and its parts between separators, each hashed as it is
 * read. Returns where the run ends.
 */
function readRun(s: string, start: number, visit: Visit): number {
  const n = s.length
  const a = start
  let b = start
  // The whole's hash is the first part's until a separator follows it inside the run.
  let joined = false
  let whole = HASH0
  let wholeAtB = HASH0
  let p = start
  let part = HASH0
  let beforeLast = HASH0
  let end = start
  let count = 0
  for (;;) {
    const c = end < n ? s.charCodeAt(end) : -1
    if (c >= 0 && c < 128) {
      const kind = kinds[c] as number
      if (kind === WORD) {
        // A letter or digit of ASCII, the common case.
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
      if (kind === SEPARATOR) {
        // A separator: the part before it ends; the whole goes on through it.
        if (p >= 0 && end - p >= 2) count = pushPart(count, p, end, part, beforeLast)
        p = -1
        if (!joined) {
          joined = true
          whole = part
          wholeAtB = part
        }
        whole = Math.imul(whole ^ c, 0x01000193)
        end++
        continue
      }
    } else if (c >= 128 && kindAt(s, end, c) === WORD) {
      // A letter, mark or digit beyond ASCII (one or two code units).
      const w = width
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
      continue
    }
    // The run ends (at the text's end, a character of no word, or one of a paired script).
    if (p >= 0 && end - p >= 2) count = pushPart(count, p, end, part, beforeLast)
    break
  }
  if (!joined) wholeAtB = part
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
  return end
}

/**
 * Reads the run of a paired script from `start` (its first character `w` code units wide):
 * each pair of neighbouring characters, or the character alone when the run has one.
 */
function readPairs(s: string, start: number, w: number, visit: Visit): number {
  const n = s.length
  let prev = start
  let end = start + w
  let pairs = 0
  while (end < n) {
    const c = s.charCodeAt(end)
    if (c < 128 || kindAt(s, end, c) !== PAIRED) break
    const next = end + width
    visit(prev, next, hashOf(s, prev, next))
    pairs++
    prev = end
    end = next
  }
  if (pairs === 0) visit(start, end, hashOf(s, start, end))
  return end
}

/**
 * Calls `add` with each word of `text` (a word may come more than once: the caller keeps a
 * bag). `text` is folded here.
 */
export function eachWord(text: string, add: (word: string) => void): void {
  const s = fold(text)
  eachWordRange(s, (a, b) => add(s.slice(a, b)))
}

/** The words of `text`, as a set. */
export function wordsOf(text: string): Set<string> {
  const out = new Set<string>()
  eachWord(text, (w) => out.add(w))
  return out
}

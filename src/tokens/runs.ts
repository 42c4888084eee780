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

/**
 * The facts written in one text: each pattern (URLs, emails, paths, dates, amounts,
 * quantities, identifiers) run only where it can match, blobs and data URLs read as nothing.
 */
import type { Fact, FactKind } from './fact.js'

/** Per message, so one pasted blob cannot flood the ledger. */
export const MAX_PER_MESSAGE = 400

/** Longest identifier listed: a longer token is skipped whole, never cut to a prefix. */
export const MAX_ID = 200

// Patterns start and end where a word does, by Unicode letters, marks and digits (`\b` knows
// only ASCII: it would cut `Ñandú-42` to `ndú-42`).
const URL_RE = /(?<![\p{L}\p{N}\p{M}_])https?:\/\/[^\s<>"'`)\]}]+/gu
const EMAIL_RE =
  /(?<![\p{L}\p{N}\p{M}_.+-])[\w.+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+(?![\p{L}\p{N}\p{M}_-]|\.[\p{L}\p{N}])/gu
const PATH_RE =
  /(?:^|[\s"'`(=])((?:~|\.{1,2})?\/?(?:[\w.-]{1,80}\/){1,20}[\w-]{1,80}\.[A-Za-z0-9]{1,8}|[A-Za-z]:\\(?:[\w .-]{1,80}\\){0,20}[\w .-]{1,80}|\/(?:[\w.-]{1,80}\/){1,20}[\w.-]{1,80})(?=$|[\s"'`),:;!?]|\.(?:\s|$))/g
const DATE_RE =
  /(?<![\p{L}\p{N}\p{M}_])(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?|\d{1,2}\/\d{1,2}\/\d{2,4}|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]{0,6}\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4}|\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]{0,6}\.? \d{4})(?![\p{L}\p{N}\p{M}_])/gu
// Digit runs are bounded: an unbounded `\b\d[\d,]*` that then fails rescans the rest of a
// `1,2,3,…` run from every digit (quadratic on a CSV tool result). A run longer than the bound
// is no amount at all (`(?!\d|,\d)`), never its first digits.
const MONEY_RE =
  /(?:[$€£¥₹]\s?\d[\d,]{0,23}(?!\d|,\d)(?:\.\d+)?(?:\s?(?:k|m|bn|million|billion)(?![\p{L}\p{N}\p{M}_]))?|(?<![\p{L}\p{N}\p{M}_])\d[\d,]{0,23}(?:\.\d+)?\s?(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|INR|CNY|dollars|euros|pounds))(?![\p{L}\p{N}\p{M}_])/gu
const QUANTITY_RE =
  /(?<![\p{L}\p{N}\p{M}_])\d[\d,]{0,23}(?:\.\d+)?\s?(?:%|ms|s|sec|seconds|min|minutes|h|hours|days|weeks|months|years|kg|g|mg|lb|lbs|oz|km|m|cm|mm|mi|miles|ft|in|GB|MB|KB|TB|GiB|MiB|KiB|bytes|tokens|px|°C|°F|nights|bags|passengers|seats|items)(?![\p{L}\p{N}\p{M}_])/gu
/**
 * Tokens that may be identifiers: runs of letters, digits, marks and `_.:-`, whole (an ARN or
 * URN keeps its `/` too). Unbounded, so a long token is seen whole and skipped, not cut.
 */
const ID_RE =
  /(?<![\p{L}\p{N}\p{M}_.:-])(?:arn|urn|URN):[\p{L}\p{N}\p{M}_.:/-]+|[\p{L}\p{N}\p{M}_.:-]+/gu
/** `data:image/png;base64,...`: content inlined, not a link, and nothing in it is a fact. */
const DATA_URL_RE =
  /(?<![\p{L}\p{N}\p{M}_])data:(?:[\w.+-]{1,100}\/[\w.+-]{1,100})?(?:;[\w.+-]{1,100}(?:=[\w.+-]{0,100})?){0,20},[^\s"'`<>]*/giu
/** A run of base64 (either alphabet) or hex characters, judged whole by `isBlob`. */
const BLOB_RE = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{40,}={0,2}/g
/** Hex groups side by side (`de ad be ef`, `00000010  4865 6c6c`): a dump, not identifiers. */
const HEX_GROUP = '[0-9a-fA-F]{2,8}:?(?![\\p{L}\\p{N}\\p{M}_:])'
const HEX_DUMP_RE = new RegExp(
  `(?<![\\p{L}\\p{N}\\p{M}_])${HEX_GROUP}(?:[ \\t]{1,4}${HEX_GROUP}){3,}`,
  'gu',
)

/**
 * Encoded bytes, not something a conversation names: base64 of 40 characters or more (padded
 * to a multiple of 4 with `=`, or mixing capitals, small letters and digits as often as random
 * text does, which a camelCase name or a path of them does not), or more than 64 hex digits in
 * a row (a hash is at most 64: a git commit or a SHA-256 in prose is an identifier). A random
 * 40-character token in prose reads as base64 too; under a key naming an identifier
 * (`commit_sha`, `cursor_id`), a JSON value is an identifier whatever it looks like.
 */
export function isBlob(run: string): boolean {
  if (run.length < 40 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(run)) return false
  if (/[0-9a-fA-F]{65}/.test(run)) return true
  let runs = 1
  let separators = 0
  for (let k = 0; k < run.length; k++) {
    const c = run.charCodeAt(k)
    if (c === 45 || c === 95 || c === 47) separators++
    if (k > 0 && charClass(c) !== charClass(run.charCodeAt(k - 1))) runs++
  }
  if (run.endsWith('=') && run.length % 4 === 0) return true
  // Runs of one class (capitals, small letters, digits, other): about 0.65 a character in
  // random base64, under 0.35 in names made of words, about 0.45 in a path of camelCase names
  // (which has a separator every 10 characters or so, base64 one in 32 on average).
  const ratio = runs / run.length
  return (
    /[A-Z]/.test(run) &&
    /[a-z]/.test(run) &&
    /\d/.test(run) &&
    (ratio >= 0.5 || (ratio >= 0.4 && separators / run.length <= 0.1))
  )
}

function charClass(c: number): number {
  if (c >= 65 && c <= 90) return 0
  if (c >= 97 && c <= 122) return 1
  if (c >= 48 && c <= 57) return 2
  return 3
}

// Made once here: in a function body the bundler writes such a pattern as `new RegExp(...)`,
// made again at every call.
const ANY_DIGIT = /\p{Nd}/u
const ANY_LETTER = /\p{L}/u
const SHORT_CODE = /^\p{Lu}{1,3}\p{Nd}+$/u

export function looksLikeId(token: string): boolean {
  if (token.length < 3 || token.length > MAX_ID) return false
  if (!ANY_DIGIT.test(token) || !ANY_LETTER.test(token)) return false
  if (/^\d+(?:st|nd|rd|th|am|pm|k|m|s|h|x|px|ms|kb|mb|gb|d)$/i.test(token)) return false
  // A version or a decimal with a unit is not an identifier of something.
  if (/^v?\d+(?:\.\d+)+$/i.test(token)) return false
  return token.length >= 4 || SHORT_CODE.test(token)
}

/**
 * A character every fact holds one of: a digit (dates, amounts, quantities, and identifiers,
 * which need one), `@` (an email), `/` or `\\` (a URL, a path). A text without any (a city, a
 * cabin class, a name in a tool result) has no fact to read.
 */
const FACT_CHAR = /[\p{Nd}@/\\]/u

/** One text being read: the facts found so far and what each character is already part of. */
class Reading {
  readonly start: number
  // What each character is part of: 1 a data URL, 2 a blob (data URLs too), 4 a fact or a hex
  // dump. Matches of one pattern do not overlap, so marking and testing them stays linear.
  readonly mask: Uint8Array
  constructor(
    readonly text: string,
    readonly out: Fact[],
    readonly label: string | undefined,
  ) {
    this.start = out.length
    this.mask = new Uint8Array(text.length)
  }
  add(kind: FactKind, value: string): void {
    if (this.out.length - this.start < MAX_PER_MESSAGE)
      this.out.push(this.label ? { kind, value, label: this.label } : { kind, value })
  }
  marked(from: number, to: number, bits: number): boolean {
    const mask = this.mask
    for (let k = from; k < to; k++) if ((mask[k] as number) & bits) return true
    return false
  }
  mark(from: number, to: number, bit: number): void {
    const mask = this.mask
    for (let k = from; k < to; k++) mask[k] = (mask[k] as number) | bit
  }
  scan(re: RegExp, bit: number, keep: (m: string) => boolean): void {
    for (const m of this.text.matchAll(re))
      if (keep(m[0] as string))
        this.mark(m.index ?? 0, (m.index ?? 0) + (m[0] as string).length, bit)
  }
  claim(re: RegExp, kind: FactKind, group = 0, clean?: (v: string) => string): void {
    for (const m of this.text.matchAll(re)) {
      const raw = m[group] as string | undefined
      if (!raw) continue
      const at = (m.index ?? 0) + (group ? (m[0] as string).indexOf(raw) : 0)
      // A URL is whole even when it carries base64; nothing else is read inside a blob.
      if (this.marked(at, at + raw.length, kind === 'url' ? 1 : 2)) continue
      this.mark(at, at + raw.length, 4)
      this.add(kind, clean ? clean(raw) : raw)
    }
  }
}

/** Whether a run holds a decimal digit of any script, by its codes where it is ASCII. */
function holdsDigit(run: string): boolean {
  let ascii = true
  for (let k = 0; k < run.length; k++) {
    const c = run.charCodeAt(k)
    if (c >= 48 && c <= 57) return true
    if (c > 127) ascii = false
  }
  return !ascii && ANY_DIGIT.test(run)
}

const always = () => true
const hasHexLetter = (m: string) => /[a-fA-F]/.test(m)
const urlEnd = (v: string) => v.replace(/[.,;:!?]+$/, '')
const moneyEnd = (v: string) => v.replace(/,+$/, '')

/**
 * Collects facts from one text, in order of appearance. Every value is a piece of the text as
 * written, never cut out of a longer token.
 */
export function fromText(text: string, out: Fact[], label?: string, whole = false): void {
  if (!whole && !FACT_CHAR.test(text)) return
  const r = new Reading(text, out, label)
  // A pattern is run only on a text holding what every match of it holds (`://` for a URL, an
  // ASCII digit for a date or an amount): one that cannot match would mark and add nothing.
  const digits = whole || /\d/.test(text)
  if (whole || (text.includes(':') && /data:/i.test(text))) r.scan(DATA_URL_RE, 3, always)
  if (whole || text.length >= 40) r.scan(BLOB_RE, 2, isBlob)
  if (whole || text.includes('://')) r.claim(URL_RE, 'url', 0, urlEnd)
  if (whole || text.includes('@')) r.claim(EMAIL_RE, 'email')
  if (whole || text.includes('/') || text.includes('\\')) r.claim(PATH_RE, 'path', 1)
  if (digits) {
    r.claim(DATE_RE, 'date')
    r.claim(MONEY_RE, 'amount', 0, moneyEnd)
    r.claim(QUANTITY_RE, 'quantity')
  }
  r.scan(HEX_DUMP_RE, 4, hasHexLetter)
  // Identifiers outside what the patterns above took (no id inside a URL, a date or a blob).
  for (const m of text.matchAll(ID_RE)) {
    // Without the `.`, `:` and `-` around it (a sentence's full stop), by a loop: a pattern
    // anchored at the end would rescan a long run of them from each one.
    const run = m[0] as string
    // An identifier holds a digit (`looksLikeId`): most words hold none.
    if (!whole && !holdsDigit(run)) continue
    let from = 0
    let to = run.length
    while (from < to && '.:-'.includes(run[from] as string)) from++
    while (to > from && '.:-'.includes(run[to - 1] as string)) to--
    const token = run.slice(from, to)
    const at = (m.index ?? 0) + from
    if (looksLikeId(token) && !isBlob(token) && !r.marked(at, at + token.length, 6))
      r.add('id', token)
  }
}

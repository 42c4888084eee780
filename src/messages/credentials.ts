/**
 * The one credential filter: text the library writes into a request (ledger facts, facts
 * standing for tool results, summaries, error messages) goes through it, so no password,
 * key or token is repeated to a model. Two kinds of evidence: token formats (gitleaks' rules,
 * generated into credential-rules.ts, and a few looser forms), and structure (a value after a
 * credential's name, an Authorization or Cookie header, URL userinfo, a PEM block, a long
 * base64 blob). Every scan is linear in the text: regexes without nested quantifiers, and
 * hand-written scans that never go back over text already read. The parts, by job: names
 * (credential-keys.ts), token formats (credential-tokens.ts), values after a name
 * (credential-values.ts), command lines and configuration (credential-commands.ts), and
 * what each needs to find anything (credential-prefilter.ts: a text it says no to is read
 * no further); this module puts their spans together and redacts.
 */
import { attributeSpans, commandSpans, urlTokenSpans } from './credential-commands.js'
import { isCredentialKey, isIdKey, saysWhoOrHow } from './credential-keys.js'
import { credentialTriggers, type Prefilter, prefilterOf } from './credential-prefilter.js'
import {
  HIDING,
  INVISIBLE,
  newlineAt,
  regexSpans,
  type Span,
  tokenLike,
} from './credential-text.js'
import { LOOSE_TOKENS, tokenRules, tokenSpans } from './credential-tokens.js'
import { keyValueSpans } from './credential-values.js'

export { isCredentialKey, isIdKey, saysWhoOrHow, tokenRules }

/** `Bearer x` / `Basic x` anywhere, when x looks like a token (not `Basic usage`). */
const SCHEME_TOKEN = /\b(?:[Bb]earer|Basic)[ \t]+([\w.~+/=-]{8,})/g

/** `curl -u user:password`. */
const CURL_USER = /(?<![\w-])(?:-u|--user)(?:=|[ \t]+)["']?([^\s"':]+:[^\s"']+)/g

/**
 * A run of standard base64 long enough to be a key's body line (PEM lines are 64). Tried only
 * where a run starts (a match can start nowhere else), so a word is not read again from each
 * of its letters.
 */
const BASE64_RUN = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{64,}={0,2}/g

/** `scheme://user:password@host`: the userinfo (a lone user only when token-long). */
function userinfoSpans(text: string, out: Span[]): void {
  for (let i = text.indexOf('://'); i >= 0; i = text.indexOf('://', i)) {
    const start = i + 3
    let j = start
    let colon = false
    // To the last `@` before the host (a password may hold one: `user:p@ss@host`).
    let at = -1
    while (j < text.length) {
      const c = text[j] as string
      if ('/?#<>"\'`\\'.includes(c) || c === ' ' || c === '\t' || c === '\n' || c === '\r') break
      if (c === ':') colon = true
      if (c === '@') at = j
      j++
    }
    if (at > start && (colon || at - start >= 16)) out.push([start, at])
    i = Math.max(j, start)
  }
}

/**
 * Armored blocks: `-----BEGIN ...-----` through its END line. Any label: a private key's
 * label varies (RSA, EC, OPENSSH, ENCRYPTED, PGP ... BLOCK) and a body cannot be told apart.
 * Unterminated (a text cut short): the header and the base64 lines that follow it.
 */
function armorSpans(text: string, out: Span[]): void {
  // The next END line at or after a position, searched again only past the last one found
  // (so many BEGIN lines and no END stay linear).
  let nextEnd = -2
  const endFrom = (from: number) => {
    if (nextEnd === -1 || (nextEnd >= from && nextEnd !== -2)) return nextEnd
    nextEnd = text.indexOf('-----END', from)
    return nextEnd
  }
  for (let b = text.indexOf('-----BEGIN '); b >= 0; b = text.indexOf('-----BEGIN ', b)) {
    const labelEnd = text.indexOf('-----', b + 11)
    if (labelEnd < 0 || labelEnd - b > 120) {
      b += 11
      continue
    }
    let end = endFrom(labelEnd + 5)
    if (end >= 0) {
      const close = text.indexOf('-----', end + 8)
      end = close >= 0 && close - end < 120 ? close + 5 : end + 8
    } else {
      end = labelEnd + 5
      let i = end
      for (;;) {
        const nl = newlineAt(text, i)
        if (!nl) break
        let j = i + nl
        while (j < text.length && !newlineAt(text, j)) j++
        const line = text.slice(i + nl, j)
        if (!/^(?:[A-Za-z0-9+/=]*|[\w-]+: .*)$/.test(line)) break
        end = j
        i = j
      }
    }
    out.push([b, end])
    b = end
  }
}

/** A base64 run with the mixed alphabet of random bytes (not a word, a path, or hex). */
function base64Blob(v: string): boolean {
  if (!/[a-z]/.test(v) || !/[A-Z]/.test(v) || !/\d/.test(v)) return false
  let slashes = 0
  for (let i = 0; i < v.length; i++) if (v.charCodeAt(i) === 47) slashes++
  if (slashes * 16 > v.length) return false // a path has a slash every few characters
  // A path's word (`spreadsheets/d/1Hw2…/edit`) is not random bytes.
  return slashes === 0 || !/(?:^|\/)[a-z]{3,}(?:\/|$)/.test(v)
}

function merge(spans: Span[]): Span[] {
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const out: Span[] = []
  for (const [s, e] of spans) {
    const last = out[out.length - 1]
    if (last && s <= last[1]) last[1] = Math.max(last[1], e)
    else if (e > s) out.push([s, e])
  }
  return out
}

/**
 * A header or field written as a name/value pair (`{"name": "X-Api-Key", "value": "x"}`, HAR
 * files, Postman collections), in either order, quotes escaped or not: the value when the
 * name is a credential's.
 */
const PAIR =
  /\\*"(?:name|key|header|field)\\*"\s*:\s*\\*"([^"\\]{1,100})\\*"\s*,\s*\\*"value\\*"\s*:\s*\\*"((?:[^"\\]|\\[^"])*)|\\*"value\\*"\s*:\s*\\*"((?:[^"\\]|\\[^"])*)\\*"\s*,\s*\\*"(?:name|key|header|field)\\*"\s*:\s*\\*"([^"\\]{1,100})/g

function pairSpans(text: string, out: Span[]): void {
  if (!text.includes('value')) return
  for (const m of text.matchAll(PAIR)) {
    const name = m[1] ?? m[4]
    const value = m[2] ?? m[3]
    if (name === undefined || value === undefined || value === '' || !isCredentialKey(name))
      continue
    const at =
      (m.index ?? 0) + (m[2] !== undefined ? m[0].length - value.length : m[0].indexOf(value))
    out.push([at, at + value.length])
  }
}

/** The prefilter, built on the first text long enough to hold a credential. */
let prefilter: Prefilter | undefined

/**
 * Spans as `credentialSpans` gives them, `may` saying which texts the scans read (all of
 * them when undefined).
 */
export function credentialSpansGated(
  text: string,
  may: Prefilter | undefined,
): Array<[number, number]> {
  if (text.length < 4 || (may && !may(text))) return []
  const out: Span[] = spansOf(text)
  // A credential hidden behind JSON's escapes (`https:\/\/user:pw@`, `\u0073k-…`, or a body
  // quoted twice) or split by invisible characters (a zero-width space) is plain to a reader:
  // its spans, read unescaped and without them, map back.
  if (HIDING.test(text) || INVISIBLE.test(text)) {
    const { plain, at } = unescaped(text)
    if (plain !== text)
      for (const [s, e] of spansOf(plain)) out.push([at[s] as number, at[e] as number])
  }
  return merge(text.includes('[') ? keepingMarks(text, out) : out)
}

/**
 * Spans `[start, end)` (UTF-16 offsets, sorted, non-overlapping, merged) of `text` that are
 * credentials: gitleaks' token formats, and by structure a value after a credential key in
 * any form (JSON, escaped JSON in a string, YAML, env, query string, XML, prose `is`), an
 * Authorization/Cookie header's value, URL userinfo, `curl -u`, armored blocks, JWTs and
 * long base64 runs. Linear in the length of the text. A prefilter reads the text once first
 * (`credentialTriggers`): a text none of whose triggers it holds is read no further.
 */
export function credentialSpans(text: string): Array<[number, number]> {
  if (text.length < 4) return []
  prefilter ??= prefilterOf(credentialTriggers())
  return credentialSpansGated(text, prefilter)
}

/**
 * Whether `text` is plainly free of credentials, by the prefilter alone: `credentialSpans`
 * finds none in it, and no name in it (a JSON key, a header's name) is a credential's, since
 * the prefilter admits every text holding one as written.
 */
export function credentialFree(text: string): boolean {
  if (text.length < 4) return true // too short for a credential, or for a key and its value
  prefilter ??= prefilterOf(credentialTriggers())
  return !prefilter(text)
}

/**
 * `text` with JSON's escapes (`\/`, `\uXXXX`, and the backslashes that escape them) read and
 * invisible characters left out, and for each index of the result (and its end) the index of
 * `text` it came from. Linear.
 */
function unescaped(text: string): { plain: string; at: number[] } {
  let plain = ''
  const at: number[] = []
  let i = 0
  while (i < text.length) {
    if (INVISIBLE.test(text[i] as string)) {
      i++
      continue
    }
    let j = i
    while (text[j] === '\\') j++
    const hex = /^u[0-9a-fA-F]{4}/.exec(text.slice(j, j + 5))
    if (j > i && hex) {
      at.push(i)
      plain += String.fromCharCode(Number.parseInt(text.slice(j + 1, j + 5), 16))
      i = j + 5
    } else if (j > i && text[j] === '/') {
      at.push(i)
      plain += '/'
      i = j + 1
    } else {
      // A run of backslashes escaping nothing read here is copied whole (never scanned again).
      for (const end = Math.max(j, i + 1); i < end; i++) {
        at.push(i)
        plain += text[i]
      }
    }
  }
  at.push(text.length)
  return { plain, at }
}

/** Where each URL's scheme and host run (`https://host`, past any userinfo): never hidden. */
function urlHeads(text: string): Span[] {
  const heads: Span[] = []
  for (let i = text.indexOf('://'); i >= 0; i = text.indexOf('://', i + 3)) {
    let s = i
    while (s > 0 && /[A-Za-z0-9+.-]/.test(text[s - 1] as string)) s--
    if (s === i) continue
    let j = i + 3
    let hostStart = j
    while (j < text.length && !/[\s/?#"'`<>\\]/.test(text[j] as string)) {
      if (text[j] === '@') hostStart = j + 1
      j++
    }
    // The host and port (`;`, `,` or anything else outside a host's letters ends it).
    let h = hostStart
    while (h < j && /[A-Za-z0-9.:[\]%_-]/.test(text[h] as string)) h++
    // A path's leading plain words stay too (`/services/`, `/api/webhooks/`, `/webhookb2/`).
    let words = 0
    while (words < 3 && text[h] === '/') {
      const next = /^\/[a-z][a-z-]{1,30}[a-z0-9]\//.exec(text.slice(h, h + 34))
      if (!next) break
      h += next[0].length - 1
      words++
    }
    if (text[h] === '/') h++
    heads.push([s, i + 3])
    if (h > hostStart) heads.push([hostStart, h])
  }
  return heads
}

/**
 * Spans with every URL's scheme and host left out of them: a secret in a URL is hidden, the
 * place it was sent to stays readable (`https://hooks.slack.com/[credential]`).
 */
function keepingUrlHeads(text: string, spans: Span[]): Span[] {
  if (!text.includes('://')) return spans
  return cutOut(text, spans, urlHeads(text), '/:@.')
}

/** Marks already written (the filter's, a summarizer's): redacting again leaves them as they are. */
const MARKS = ['[credential]', '[redacted]']

function keepingMarks(text: string, spans: Span[]): Span[] {
  const marks: Span[] = []
  for (const mark of MARKS)
    for (let i = text.indexOf(mark); i >= 0; i = text.indexOf(mark, i + mark.length))
      marks.push([i, i + mark.length])
  return marks.length === 0 ? spans : cutOut(text, spans, marks, ' ')
}

/** `spans` with the ranges `keep` taken out of them; where one is cut, `trim` trimmed off its cut ends. */
function cutOut(text: string, spans: Span[], keep: Span[], trim: string): Span[] {
  if (keep.length === 0) return spans
  const heads = keep
  const out: Span[] = []
  for (const span of spans) {
    let pieces: Span[] = [span]
    for (const [hs, he] of heads) {
      const next: Span[] = []
      for (const [s, e] of pieces) {
        if (e <= hs || s >= he) next.push([s, e])
        else {
          if (s < hs) next.push([s, hs])
          if (e > he) next.push([he, e])
        }
      }
      pieces = next
    }
    for (const [s, e] of pieces) {
      // Where a span was cut, what is left is trimmed of the URL's separators.
      let a = s
      let b = e
      if (a !== span[0]) while (a < b && trim.includes(text[a] as string)) a++
      if (b !== span[1]) while (b > a && trim.includes(text[b - 1] as string)) b--
      if (b > a) out.push([a, b])
    }
  }
  return out
}

/** Whether the base64 run at `start` is the value of an id's key (`"message_id": "AAMk…"`). */
function underIdKey(text: string, start: number): boolean {
  const before = text.slice(Math.max(0, start - 80), start)
  const m = /([A-Za-z_$][\w$.-]*)\\*["']?[ \t]*[:=][ \t]*\\*["']?[^\s"'\\]*$/.exec(before)
  return m !== null && isIdKey(m[1] as string)
}

function spansOf(text: string): Span[] {
  const out: Span[] = []
  tokenSpans(text, out)
  regexSpans(LOOSE_TOKENS, text, out)
  regexSpans(SCHEME_TOKEN, text, out, tokenLike)
  regexSpans(CURL_USER, text, out)
  for (const m of text.matchAll(BASE64_RUN))
    if (
      base64Blob(m[0]) &&
      !publishedIdAt(text, m.index ?? 0, m[0].length) &&
      !underIdKey(text, m.index ?? 0)
    )
      out.push([m.index ?? 0, (m.index ?? 0) + m[0].length])
  keyValueSpans(text, out)
  userinfoSpans(text, out)
  armorSpans(text, out)
  pairSpans(text, out)
  commandSpans(text, out)
  attributeSpans(text, out)
  urlTokenSpans(text, out)
  return keepingUrlHeads(text, out)
}

/**
 * Identifiers whose published form looks random: Google Drive and Sheets file ids (`1` and 43
 * base64url characters), YouTube list ids (`PL…`, `UU…`), Microsoft Graph / Exchange item ids
 * (`AAMk…`, `AAQk…`).
 */
const PUBLISHED_ID =
  /^(?:1[A-Za-z0-9_-]{32,43}|(?:PL|UU|LL|FL|OL|RD)[A-Za-z0-9_-]{16,40}|AA[MQ]k[A-Za-z0-9+/=_-]{20,})$/

/** Whether the token around `[at, at + length)` (base64url and `=`) is a published id's form. */
function publishedIdAt(text: string, at: number, length: number): boolean {
  let s = at
  let e = at + length
  while (s > 0 && s > at - 256 && /[A-Za-z0-9+/=_-]/.test(text[s - 1] as string)) s--
  while (e < text.length && e < at + length + 256 && /[A-Za-z0-9+/=_-]/.test(text[e] as string)) e++
  return PUBLISHED_ID.test(text.slice(s, e))
}

/** Shannon entropy per character. */
function entropy(v: string): number {
  const counts = new Map<string, number>()
  for (const c of v) counts.set(c, (counts.get(c) ?? 0) + 1)
  let h = 0
  for (const n of counts.values()) h -= (n / v.length) * Math.log2(n / v.length)
  return h
}

/**
 * Whether a value (one extracted fact: an id, a URL) is or holds a credential: it has a
 * credential span, or as a whole it is a random-looking token (32+ characters of the base64
 * or base64url alphabet mixing cases and digits, at least 4.2 bits a character: a key's body
 * line, an API key; not a git commit id, a UUID or a word).
 */
export function isCredential(value: string): boolean {
  if (credentialSpans(value).length > 0) return true
  const v = value.trim()
  return (
    !PUBLISHED_ID.test(v) &&
    v.length >= 32 &&
    v.length <= 8192 &&
    /^[A-Za-z0-9+/_-]+={0,2}$/.test(v) &&
    base64Blob(v) &&
    entropy(v) >= 4.2
  )
}

/** What every credential in derived text is replaced by. */
export const CREDENTIAL_MARK = '[credential]'

/** `text` with each credential span (found now, or given when already found) replaced by the mark. */
export function redactCredentials(
  text: string,
  spans: readonly (readonly [number, number])[] = credentialSpans(text),
): string {
  if (spans.length === 0) return text
  let out = ''
  let at = 0
  for (const [s, e] of spans) {
    out += `${text.slice(at, s)}${CREDENTIAL_MARK}`
    at = e
  }
  return out + text.slice(at)
}

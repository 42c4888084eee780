/**
 * Values written after a credential's name: `password=x`, `"token": "x"`, `--password x`,
 * `ENV API_KEY x`, a YAML list under `recovery_codes:`, an object under `credentials`, a
 * connection string part by part. Each scan reads forward only.
 */
import { isCredentialKey, keyWords, saysWhoOrHow } from './credential-keys.js'
import {
  isBlank,
  isQuote,
  NOT_A_VALUE,
  newlineAt,
  PROSE,
  quoteAt,
  type Span,
  startsLine,
  tokenLike,
} from './credential-text.js'

/** Parts of every credential's name: a cheap test before splitting a key into words. */
const HINTS =
  'pass|pwd|secret|token|cred|auth|key|cookie|sess|cvv|cvc|ssn|pin|otp|sig|string|mnemonic|phrase|seed|recover|backup|mfa|totp|2fa'

const KEY_HINT = new RegExp(HINTS, 'i')

/** Where a hint stands: the scan visits only the identifiers holding one (prose is one regex pass). */
const HINT_AT = new RegExp(HINTS, 'gi')

const KEY_CHAR = /[\w$.-]/

const KEY_START = /[A-Za-z_$]/

/**
 * The identifier around a hint at `[at, hintEnd)`, possibly dotted or dashed
 * (`spring.datasource.password`): read back at most 128 characters, from its first letter.
 */
function keyAround(text: string, at: number, hintEnd: number): [number, number] {
  let start = at
  while (start > 0 && at - start < 128 && KEY_CHAR.test(text[start - 1] as string)) start--
  while (start < at && !KEY_START.test(text[start] as string)) start++
  let end = hintEnd
  for (;;) {
    const c = text[end]
    if (c === undefined) break
    if (c === '.' ? !KEY_START.test(text[end + 1] ?? '') : !/[\w$-]/.test(c)) break
    end++
  }
  // A dot the key may not start on (`a..b`) or end on is not part of it.
  while (start < at && text[start] === '.') start++
  return [start, end]
}

const OPERATOR =
  /(?:[ \t]*(?::[ \t]*)?(?:string|String|str)\b)?[ \t]*(:{1,3}=|=>|\?=|\.=|\+=|\|\||[:=>,]|(?:is|are|was)(?=[ \t]))/y

const SCHEME = /(?:Bearer|Basic|Token|Digest|Bot|OAuth|Negotiate|NTLM|ApiKey)[ \t]+/iy

/** Where an unquoted value after `key` ends. */
function unquotedEnd(text: string, start: number, lineValue: boolean, query: boolean): number {
  let j = start
  for (; j < text.length; j++) {
    const c = text[j] as string
    if (c === '\n' || c === '\r') break
    if (c === '\\' && (text[j + 1] === 'n' || text[j + 1] === 'r' || isQuote(text[j + 1]))) break
    if (lineValue) {
      if (c === '"' || c === "'") break
      continue
    }
    if (c === ' ' || c === '\t' || isQuote(c) || ',;&)]}<>\\'.includes(c)) break
    if (query && c === '#') break
  }
  return j
}

/** Where a bracketed value (`{...}`, `[...]`) at `start` closes, or the end of the text. */
function bracketEnd(text: string, start: number, limit = text.length): number {
  let depth = 0
  const last = Math.min(limit, text.length)
  for (let j = start; j < last; j++) {
    const c = text[j]
    if (c === '{' || c === '[') depth++
    else if ((c === '}' || c === ']') && --depth === 0) return j + 1
  }
  return last
}

/** An object under a credential's key is read this far at most (a credential block is small). */
const OBJECT_CHARS = 8192

/** The object read last, and where it ended. */
const objectsRead = { text: '', end: 0 }

/**
 * The value after a credential key ending at `keyEnd`, if an operator follows it:
 * `key: v`, `key=v`, `"key": "v"`, `\"key\":\"v\"`, `<key>v</key>`, `key is v`.
 * Returns its span and where the scan goes on.
 */
function valueAfter(
  text: string,
  keyStart: number,
  keyEnd: number,
  key: string,
  out: Span[],
): Span | undefined {
  const before = text[keyStart - 1]
  let p = keyEnd
  const closing = quoteAt(text, p)
  if (closing) p = closing[0]
  OPERATOR.lastIndex = p
  const op = OPERATOR.exec(text)
  if (!op) return undefined
  const operator = op[1] as string
  if (operator === '>' && before !== '<') return undefined
  if (operator === ',' && !closing) return undefined
  const prose = /^[a-z]/.test(operator)
  p = OPERATOR.lastIndex
  if (operator === '>') while (p < text.length && /\s/.test(text[p] as string)) p++
  else while (isBlank(text[p])) p++
  // A YAML list under the key (`recovery_codes:` then `  - code` lines): each item.
  if (operator === ':' && newlineAt(text, p)) {
    listItems(text, p, out)
    return undefined
  }
  const opening = quoteAt(text, p)
  const words = keyWords(key)
  const head = words[words.length - 1] ?? ''
  const header = /^(?:auth|authorization|cookie|cookies)$/.test(head)
  // A phrase is secret whole (`passphrase: correct horse battery staple`); so is a line's
  // value after a key that starts it (YAML, .env, INI: `password: two words`).
  const phrase = PHRASE_HEAD.test(head)
  // A connection string is read part by part (`Server=h;Password=x`, `postgres://u:x@h/db`):
  // its server and database stay.
  const listed = head === 'string'
  const ownLine =
    (operator === ':' || (operator === '=' && isBlank(text[p - 1]))) && startsLine(text, keyStart)
  if (opening) {
    const [start, quote] = opening
    let end: number
    if (quote.length === 1) {
      end = start
      while (end < text.length && text[end] !== quote && text[end] !== '\n') {
        if (text[end] === '\\') end++
        end++
      }
    } else {
      end = text.indexOf(quote, start)
      if (end < 0) end = unquotedEnd(text, start, true, false)
    }
    end = Math.min(end, text.length)
    const quoted = text.slice(start, end)
    if (listed && LISTED.test(quoted)) return undefined
    return end > start && !NOT_A_VALUE.test(quoted) ? [start, end] : undefined
  }
  if (header) {
    SCHEME.lastIndex = p
    if (SCHEME.exec(text)) p = SCHEME.lastIndex
  }
  if (text.startsWith('${', p) || text.startsWith('{{', p)) return undefined // a placeholder
  // An object is read key by key (`auth: {user: x, pass: y}`: `y`, and `v` of `{value: v}`),
  // so a user name or a key name is never taken for the secret; a list of objects too.
  if (text[p] === '{' || (text[p] === '[' && /^\[\s*[[{]/.test(text.slice(p, p + 64)))) {
    // Read once: an object inside one already read was read with it.
    if (p >= objectsRead.end || text !== objectsRead.text) {
      const end = bracketEnd(text, p, p + OBJECT_CHARS)
      objectSpans(text, p, end, out)
      objectsRead.text = text
      objectsRead.end = end
    }
    return undefined
  }
  let end: number
  if (text[p] === '[') end = bracketEnd(text, p)
  else {
    const line = (header && !prose) || phrase || ownLine
    end = unquotedEnd(text, p, line, before === '?' || before === '&')
    if (ownLine && !phrase) {
      const comment = text.slice(p, end).search(/[ \t]#/)
      if (comment >= 0) end = p + comment
    }
    // A sentence's full stop is not the value's (`the password is x.`); an assignment's is.
    while (end > p && ((text[end - 1] === '.' && operator !== '=') || isBlank(text[end - 1]))) end--
  }
  const value = text.slice(p, end)
  if (NOT_A_VALUE.test(value) || (prose && PROSE.test(value))) return undefined
  if (listed && LISTED.test(value)) return undefined
  if (operator === '>' && value.startsWith('<')) return undefined
  return [p, end]
}

/** A scalar under a key inside an object, quoted or not. */
const INNER =
  /\\*["']?([A-Za-z_$][\w$-]*)\\*["']?[ \t]*[:=][ \t]*(\\*"(?:[^"\\\n]|\\[^"\n])*\\*"|'[^'\n]*'|[^\s,;{}[\]"']+)/g

/**
 * The values of an object under a credential's key (`credentials: {"value": x}`), each key
 * read on its own: those naming who or how (`user`, `type`) are kept; nested keys are
 * read again by the key scan.
 */
function objectSpans(text: string, start: number, end: number, out: Span[]): void {
  const inner = text.slice(start, end)
  for (const m of inner.matchAll(INNER)) {
    const key = m[1] as string
    if (saysWhoOrHow(key)) continue
    let v = m[2] as string
    let at = start + (m.index ?? 0) + m[0].length - v.length
    const q = /^\\*["']/.exec(v)
    if (q) {
      at += q[0].length
      v = v.slice(q[0].length, v.length - q[0].length)
    }
    if (v !== '' && !NOT_A_VALUE.test(v)) out.push([at, at + v.length])
  }
}

/** The items of a YAML list starting on the line after `at` (`  - item`), each a span. */
function listItems(text: string, at: number, out: Span[]): void {
  let i = at
  for (let n = 0; n < 256; n++) {
    const nl = newlineAt(text, i)
    if (!nl) return
    const item =
      /^[ \t]+- [ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'#\\][^\n\\#]*?))[ \t]*(?=$|\r|\n|\\n| #)/.exec(
        text.slice(i + nl, i + nl + 512),
      )
    if (!item) return
    const v = (item[1] ?? item[2] ?? item[3]) as string
    const start = i + nl + item[0].length - v.length - (item[3] === undefined ? 1 : 0)
    if (v !== '' && !NOT_A_VALUE.test(v)) out.push([start, start + v.length])
    i = i + nl + item[0].length
    while (i < text.length && !newlineAt(text, i)) i++
  }
}

/** A value made of `name=value;` parts or a URL. */
const LISTED = /=[^;]*;|:\/\//

/** Heads of keys whose value is a phrase, secret whole (`passphrase`, `mnemonic`, `seed_words`). */
const PHRASE_HEAD = /(?:phrase|mnemonic|words|codes)$/

/** Whether a text reads as a `.netrc` (`machine h login u password x`): once per text. */
let netrcText: string | undefined

let netrcIs = false

function netrc(text: string): boolean {
  if (text !== netrcText) {
    netrcText = text
    netrcIs = /machine[ \t]+\S|\bdefault[ \t]+login\b/.test(text)
  }
  return netrcIs
}

/** A value given apart from its name by blanks: quoted, or up to the next blank or separator. */
const APART = /[ \t]+("[^"\n]*"|'[^'\n]*'|[^\s"'|;&<>()]+)/y

/**
 * A credential's name and its value apart by blanks, where the form says so: a flag
 * (`--password x`, `-storepass x`, `--db-password "a b"`), a Dockerfile `ENV DB_PASSWORD x`,
 * a `.netrc` entry (`machine h login u password x`), `aws configure set
 * aws_secret_access_key x`, and a written-out name (`DB_PASSWORD`, `clientSecret`) followed
 * by a token-like value.
 */
function valueApart(text: string, keyStart: number, keyEnd: number, key: string): Span | undefined {
  if (!isBlank(text[keyEnd])) return undefined
  APART.lastIndex = keyEnd
  const m = APART.exec(text)
  if (!m) return undefined
  let value = m[1] as string
  let start = APART.lastIndex - value.length
  if (value.startsWith('-') || NOT_A_VALUE.test(value) || PROSE.test(value)) return undefined
  const dash = text[keyStart - 1] === '-'
  const flag =
    dash &&
    !key.startsWith('no-') &&
    (text[keyStart - 2] === '-' || !/[\w-]/.test(text[keyStart - 2] ?? ''))
  let docker = false
  if (!flag) {
    // The line so far (a newline, or `\n` written out in a JSON string), read back a little.
    const near = text.slice(Math.max(0, keyStart - 64), keyStart)
    const lead = near.slice(Math.max(near.lastIndexOf('\n'), near.lastIndexOf('\\n') + 1) + 1)
    docker = /^[ \t]*(?:ENV|ARG)[ \t]+$/.test(lead)
    const written = /_|[A-Z]/.test(key.slice(1)) // DB_PASSWORD, clientSecret, not `password`
    const ok =
      docker ||
      (/^(?:password|passwd|account)$/i.test(key) && netrc(text)) ||
      /\bconfigure[ \t]+set[ \t]+$/.test(lead) ||
      (written && tokenLike(value))
    if (!ok) return undefined
  }
  if (isQuote(value[0]) && value.length > 1) {
    value = value.slice(1, -1)
    start++
  } else if (docker) {
    // `ENV KEY value with blanks`: the rest of the line.
    let eol = start
    while (eol < text.length && !newlineAt(text, eol)) eol++
    value = text.slice(start, eol).trimEnd()
  }
  return [start, start + value.length]
}

export function keyValueSpans(text: string, out: Span[]): void {
  HINT_AT.lastIndex = 0
  objectsRead.text = ''
  objectsRead.end = 0
  for (let h = HINT_AT.exec(text); h; h = HINT_AT.exec(text)) {
    const [at, end] = keyAround(text, h.index, h.index + h[0].length)
    HINT_AT.lastIndex = Math.max(end, h.index + 1)
    if (!KEY_START.test(text[at] ?? '')) continue
    const m = { index: at, 0: text.slice(at, end) }
    let key = m[0]
    if (!KEY_HINT.test(key.slice(-64))) continue
    // `https://user:password@host`: the userinfo's own reading (the host and path kept).
    if (text.endsWith('://', m.index)) continue
    // `Uid=app;Pwd=x`: in a connection string `Pwd` is the password, not a directory.
    if (/^pwd$/i.test(key) && text[m.index - 1] === ';') key = 'password'
    else if (!isCredentialKey(key)) {
      // Two words in prose: `api key: x`, `connection string = x`.
      const prev =
        text[m.index - 1] === ' '
          ? /[A-Za-z]+$/.exec(text.slice(Math.max(0, m.index - 33), m.index - 1))
          : null
      if (!prev || !isCredentialKey(`${prev[0]}_${key}`)) continue
      key = `${prev[0]}_${key}`
    }
    const span =
      valueAfter(text, m.index, end, key, out) ??
      (key === m[0] ? valueApart(text, m.index, end, key) : undefined)
    if (span) {
      out.push(span)
      // The value is read: keys inside it are part of it (and reading on stays linear).
      if (span[1] > HINT_AT.lastIndex) HINT_AT.lastIndex = span[1]
    }
  }
}

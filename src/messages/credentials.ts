/**
 * The one credential filter: text the library writes into a request (ledger facts, facts
 * standing for tool results, summaries, error messages) goes through it, so no password,
 * key or token is repeated to a model. Two kinds of evidence: token formats (gitleaks' rules,
 * generated into credential-rules.ts, and a few looser forms), and structure (a value after a
 * credential's name, an Authorization or Cookie header, URL userinfo, a PEM block, a long
 * base64 blob). Every scan is linear in the text: regexes without nested quantifiers, and
 * hand-written scans that never go back over text already read.
 */
import { SERVICE_WORDS, TOKEN_RULES } from './credential-rules.js'

// ---------------------------------------------------------------------------------------
// Keys

/** Words that name a credential on their own (`password`, `SECRET`, `x-api-key`'s nothing). */
const CREDENTIAL_WORDS = new Set(
  'password passwords passwd passphrase passcode secret secrets token credential credentials creds authorization auth oauth cookie cookies session sessionid sessid jsessionid phpsessid cvv cvv2 cvc ssn pin otp signature sig mnemonic storepass keypass srcstorepass deststorepass srckeypass destkeypass'.split(
    ' ',
  ),
)
/** Run-together words ending so are credentials (`accesstoken`, `clientsecret`, `dbpassword`). */
const CREDENTIAL_SUFFIX =
  /(?:password|passwd|passphrase|secret|token|cookie|credentials?|signature|sessionid)$/
/** Words qualifying `key` into a credential's name (`api_key`, `private_key`, not `sort_key`). */
const KEY_QUALIFIERS = new Set(
  'api private secret access signing encryption decryption master client app license licence auth service account subscription consumer webhook session shared ssh gpg pgp root admin hmac jwt aes cipher crypto wallet storage deploy'.split(
    ' ',
  ),
)
/** Words before `token` that make it a counter or a cursor (`max_tokens`, `next_page_token`). */
const NOT_CREDENTIAL_TOKEN = new Set(
  'next page continuation pagination sync cursor max min num total input output prompt completion count start end first last special pad eos bos unk sep mask cls stop'.split(
    ' ',
  ),
)
/** Words before plural `tokens` that keep it a credential (`access_tokens`, not `max_tokens`). */
const CREDENTIAL_TOKENS = new Set('access refresh api auth bearer session id oauth csrf'.split(' '))
/** `pass` is a credential after these (`db_pass`), and alone; not `boarding_pass`. */
const PASS_OWNERS = new Set(
  'db user admin root smtp ftp proxy mysql redis ldap mail wifi login app'.split(' '),
)
/** Words after a credential's name that do not change what it holds (`password_confirm`). */
const MODIFIERS = new Set(
  'value val confirm confirmation hash hashed plain plaintext raw b64 base64 b58 hex pem der enc encrypted encoded code str text header old new current'.split(
    ' ',
  ),
)
/** Words after `key` that name its form (`client-key-data`, `secret_key_base`). */
const KEY_MODIFIERS = new Set('data base bytes material'.split(' '))
/** Words before `_id` that make the id itself a credential (`session_id`, Vault's `secret_id`). */
const ID_OWNERS = new Set('session secret token password'.split(' '))
/** Words before `phrase`/`words` that make them a secret (`seed_phrase`, `recovery_words`). */
const PHRASE_OWNERS = new Set('pass seed recovery secret mnemonic wallet backup'.split(' '))
/** Words before `codes` that make one-time codes (`recovery_codes`, `backup_codes`). */
const CODE_OWNERS = new Set('recovery backup mfa totp otp 2fa twofa'.split(' '))

let services: ReadonlySet<string> | undefined
/** gitleaks' service names (`stripe`, `github`): `<service>_key` names a credential. */
const serviceWords = () => {
  services ??= new Set(SERVICE_WORDS.split(' '))
  return services
}

/** A key's words, lowercase: camelCase, snake_case, kebab-case, dotted, spaced. */
function keyWords(key: string): string[] {
  return key
    .slice(-64)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '')
}

/** Whether the head word `w` (after `prev`) names a credential. */
function credentialWord(w: string, prev: string | undefined): boolean {
  if (w === 'token') return prev === undefined || !NOT_CREDENTIAL_TOKEN.has(prev)
  if (w === 'tokens') return prev !== undefined && CREDENTIAL_TOKENS.has(prev)
  if (CREDENTIAL_WORDS.has(w)) return true
  if (w === 'key' || w === 'keys')
    return prev !== undefined && (KEY_QUALIFIERS.has(prev) || serviceWords().has(prev))
  if (w === 'pass') return prev === undefined || PASS_OWNERS.has(prev)
  if (w === 'pwd') return prev !== undefined // `PWD` alone is the shell's working directory
  if (w === 'phrase' || w === 'words') return prev !== undefined && PHRASE_OWNERS.has(prev)
  if (w === 'word' || w === 'code') return prev === 'pass'
  if (w === 'codes') return prev !== undefined && CODE_OWNERS.has(prev)
  if (w === 'string') return prev === 'connection' || prev === 'conn'
  if (w === 'id') return prev !== undefined && ID_OWNERS.has(prev)
  if (w.endsWith('tokens')) return false
  if (CREDENTIAL_SUFFIX.test(w)) return true
  return /^(?:api|private|secret|access)keys?$/.test(w)
}

/**
 * Whether a key names a credential, in any case or separator style. Its head word decides
 * (the last word, past modifiers like `_confirm` or `_hash`): `client_secret`, `X-Api-Key`,
 * `DB_PASSWORD`, `accessToken`, `session`; not `token_count`, `max_tokens`, `author`,
 * `passenger_id`, `primary_key`. An id is not a credential (`user_id`, `key_id`) unless its
 * owner word is one (`session_id`, `secret_id`); `PWD` alone is a directory, `boarding_pass`
 * a document, `next_page_token` a cursor.
 */
export function isCredentialKey(key: string): boolean {
  const words = keyWords(key)
  let i = words.length - 1
  while (
    i > 0 &&
    (MODIFIERS.has(words[i] as string) ||
      /^\d+$/.test(words[i] as string) ||
      (KEY_MODIFIERS.has(words[i] as string) && words[i - 1] === 'key'))
  )
    i--
  const w = words[i]?.replace(/(?<=[a-z])\d+$/, '') // password2
  return w !== undefined && credentialWord(w, words[i - 1])
}

// ---------------------------------------------------------------------------------------
// Spans

type Span = [number, number]

// ---------------------------------------------------------------------------------------
// Token rules, compiled on first need

/** Each rule's literals (lowercase) and source: read on the first scan, not at import. */
let table: [string[], string][] | undefined
/** Every literal, longest first, as one case-insensitive alternation. */
let gate: RegExp | undefined
/** Each literal found so far and the rules of every literal inside it (itself included). */
const inside = new Map<string, number[]>()
/** The rules compiled so far, by index. */
const compiled: RegExp[] = []

/** A source's leading literal characters (after `\b`), when no quantifier follows them. */
const LEAD = /^(?:\\b)?((?:[\w=~-]|\\[./])+)(?![?*+{])/

/**
 * The rule table, a rule a line: its literals (left empty: its source's leading literal
 * characters), a tab, its source.
 */
function tokenRuleTable(): [string[], string][] {
  table ??= TOKEN_RULES.split('\n').map((line) => {
    const [literals, source = ''] = line.split('\t')
    const lead = LEAD.exec(source)?.[1]?.replaceAll('\\', '').toLowerCase()
    return [(literals || lead || '').split(' '), source]
  })
  return table
}

/** How many token rules are compiled so far, and the table as read (for tests). */
export const tokenRules = () => ({
  compiled: compiled.filter(Boolean).length,
  table: tokenRuleTable(),
})

/**
 * Spans of gitleaks' token formats. Only the rules one of whose literals the text holds (in
 * any case) run, each compiled the first time it does: every match of a rule holds one of its
 * literals (the generator reads them off the rule's source; credentials.test.ts checks them
 * on gitleaks' samples), so the gate drops no match. One pass finds the literals: at each
 * place the longest one there, which stands for those inside it too (the gate steps one
 * character on, so overlapping ones are seen).
 */
function tokenSpans(text: string, out: Span[]): void {
  const rules = tokenRuleTable()
  gate ??= new RegExp(
    [...new Set(rules.flatMap(([l]) => l))]
      .sort((a, b) => b.length - a.length)
      .join('|')
      .replace(/[.*+?^${}()[\]\\/]/g, '\\$&'),
    'gi',
  )
  const run = new Set<number>()
  gate.lastIndex = 0
  for (let m = gate.exec(text); m; m = gate.exec(text)) {
    const found = m[0].toLowerCase()
    let ks = inside.get(found)
    if (!ks) {
      ks = []
      for (const [k, [literals]] of rules.entries())
        if (literals.some((l) => found.includes(l))) ks.push(k)
      inside.set(found, ks)
    }
    for (const k of ks) run.add(k)
    gate.lastIndex = m.index + 1
  }
  for (const k of run) {
    compiled[k] ??= new RegExp(rules[k]?.[1] as string, 'g')
    regexSpans(compiled[k], text, out)
  }
}

// ---------------------------------------------------------------------------------------
// Spans of other forms

/**
 * Forms the library's earlier filter caught, looser than gitleaks' exact lengths, and
 * services' newer formats gitleaks' rules do not know yet (Tailscale, Vercel, Shopify's longer
 * keys, Cloudflare, Databricks, Groq, Linear, GitHub's app tokens with a JWT body, Slack hooks).
 */
const LOOSE_TOKENS =
  /\bsk-[\w-]{8,}|\b[sr]k_(?:live|test)_\w+|\bgh[pousr]_[\w-]{20,}(?:\.[\w-]+){0,2}|\bxox[abprs]-[\w-]+|\bAKIA[0-9A-Z]{16}|\bAIza[\w-]{30,}|\beyJ[\w-]+\.[\w-]+\.[\w-]*|tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{10,}|\bv(?:cp|ci|ca|cr|ck)_[A-Za-z0-9]{24,}|\bshp(?:ss|at|ca|pa)_[A-Za-z0-9]{20,}|\bcf(?:at|ut|k)_[A-Za-z0-9]{32,}|\bdapi[A-Za-z0-9]{32}(?:-\d+)?|\bgsk_[A-Za-z0-9]{40,}|\blin_(?:api|oauth)_[A-Za-z0-9]{32,}|hooks\.slack\.com\/(?:services|workflows|triggers)\/[\w/+-]{8,}/g

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

/** Whether a value looks like a token rather than a word (`Basic dXNlcjpw`, not `Basic usage`). */
function tokenLike(v: string): boolean {
  return /\d|[+/=]/.test(v) || /[A-Z]/.test(v.slice(1))
}

/** Values that say nothing: empty, null, booleans, masks, placeholders (`${DB_PASSWORD}`). */
const NOT_A_VALUE =
  /^(?:|null|nil|none|true|false|undefined|\*+|\.\.\.|\$\{[^}]*\}|\{\{[^}]*\}\}|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|basic|bearer|digest|token|oauth2?|negotiate|ntlm|kerberos|apikey|api_key|jwt|hmac|password|anonymous|prompt|required|optional)$/i
/** Words after `is` in prose that are not the credential (`the token is expired`). */
const PROSE =
  /^(?:not|the|a|an|required|missing|invalid|incorrect|expired|wrong|correct|valid|set|unset|empty|too|still|now|being|also|only|in|on|at|for|used|needed|stored|saved|sent|shown|hidden|different|same|of|to|and|or|that|this|your|my|our|their|it|being|revoked|rotated|case)$/i

const OPERATOR =
  /(?:[ \t]*(?::[ \t]*)?(?:string|String|str)\b)?[ \t]*(:{1,3}=|=>|\?=|\.=|\+=|\|\||[:=>,]|(?:is|are|was)(?=[ \t]))/y
const SCHEME = /(?:Bearer|Basic|Token|Digest|Bot|OAuth|Negotiate|NTLM|ApiKey)[ \t]+/iy

const isQuote = (c: string | undefined) => c === '"' || c === "'" || c === '`'
const isBlank = (c: string | undefined) => c === ' ' || c === '\t'

/** Past a quote at `i`, escaped or not (`"`, `\"`, `\\\"`): [end, the quote as written]. */
function quoteAt(text: string, i: number): [number, string] | undefined {
  let j = i
  while (text[j] === '\\' && j - i < 4) j++
  return isQuote(text[j]) ? [j + 1, text.slice(i, j + 1)] : undefined
}

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

/** Keys inside a credential's object that say who or how, not the secret (`user`, `type`). */
const NOT_SECRET_KEYS =
  /^(?:user|username|user_name|login|email|mail|name|type|kind|scheme|method|mode|provider|issuer|audience|aud|scope|scopes|url|uri|host|hostname|port|endpoint|region|domain|realm|tenant|account|database|db|protocol|path|format|version|alg|algorithm|enabled|expires|expiry|expires_at|expires_in|created|created_at|updated_at|header|prefix)$/i

/** Whether a key inside a credential's object says who or how (`user`, `type`), not the secret. */
export const saysWhoOrHow = (key: string): boolean => NOT_SECRET_KEYS.test(key)

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

/** Whether the key at `at` starts its line (past indentation, a list dash, `export`, `set`). */
function startsLine(text: string, at: number): boolean {
  let i = at
  while (i > 0 && isBlank(text[i - 1])) i--
  if (i === 0 || newlineBefore(text, i)) return true
  const lead = /(?:^|\n|\\n)[ \t]*(?:-|export|set|ENV|ARG)[ \t]+$/.exec(
    text.slice(Math.max(0, at - 16), at),
  )
  return lead !== null
}

/** Whether a line ends just before `i` (a newline, or `\n` written out in a JSON string). */
function newlineBefore(text: string, i: number): boolean {
  const c = text[i - 1]
  return c === '\n' || c === '\r' || (c === 'n' && text[i - 2] === '\\' && text[i - 3] !== '\\')
}

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

function keyValueSpans(text: string, out: Span[]): void {
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

/** A line separator at `i` (a newline, or `\n` written out inside a JSON string): its length. */
function newlineAt(text: string, i: number): number {
  if (text[i] === '\r') return text[i + 1] === '\n' ? 2 : 1
  if (text[i] === '\n') return 1
  if (text[i] === '\\' && (text[i + 1] === 'n' || text[i + 1] === 'r')) return 2
  return 0
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

/** Whole matches of a global regex, or the span of its group 1 when it has one. */
function regexSpans(re: RegExp, text: string, out: Span[], keep?: (v: string) => boolean): void {
  for (const m of text.matchAll(re)) {
    const v = m[1] ?? m[0]
    if (v === '' || (keep && !keep(v))) continue
    const start = (m.index ?? 0) + m[0].length - (m[1] === undefined ? m[0].length : v.length)
    out.push([start, start + v.length])
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
 * Spans `[start, end)` (UTF-16 offsets, sorted, non-overlapping, merged) of `text` that are
 * credentials: gitleaks' token formats, and by structure a value after a credential key in
 * any form (JSON, escaped JSON in a string, YAML, env, query string, XML, prose `is`), an
 * Authorization/Cookie header's value, URL userinfo, `curl -u`, armored blocks, JWTs and
 * long base64 runs. Linear in the length of the text.
 */
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

export function credentialSpans(text: string): Array<[number, number]> {
  if (text.length < 4) return []
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

/** An escape the unescaped reading resolves (most JSON text has none: it is read once). */
const HIDING = /\\(?:u[0-9a-fA-F]{4}|\/)/

/** Format characters a reader does not see (zero-width, joiners, bidi marks, soft hyphen). */
const INVISIBLE = /[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/

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

// ---------------------------------------------------------------------------------------
// Command lines and configuration written with blanks

/**
 * Short flags that take a password, by command (`mysql -pX`, `sshpass -p X`, `redis-cli -a X`,
 * `ldapsearch -w X`, `sqlcmd -P X`, `smbclient -U user%X`, `lftp -u user,X`, `7z -pX`): a
 * flag means a password only after its own command, on the same line or pipeline stage.
 */
const COMMAND_FLAGS: readonly [RegExp, RegExp][] = [
  [/(?:mysql\w*|mariadb(?:-\w+)?)\b/, /(?<=[ \t])-p([^\s-]\S*)/g],
  [/sshpass\b/, /(?<=[ \t])-p[ \t]*(\S+)/g],
  // A registry login's `-p` (`docker run -p 8080:80` publishes a port).
  [
    /(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane)\b[^\n]*?\blogin\b/,
    /(?<=[ \t])-p[ \t]+([^\s-]\S*)/g,
  ],
  [/(?:\baz|twine|mongo\w*|cqlsh)\b/, /(?<=[ \t])-p[ \t]+([^\s-]\S*)/g],
  [/mosquitto_\w+\b/, /(?<=[ \t])-P[ \t]+(\S+)/g],
  [/influx\b/, /(?<=[ \t])-password[ \t]+(\S+)/g],
  // `sqlplus user/password@db`.
  [/sqlplus\b/, /(?<=[ \t])[\w.$#-]+\/([^\s@/]+)(?=@)/g],
  [/redis-cli\b/, /(?<=[ \t])-a[ \t]+(\S+)/g],
  [/ldap\w+\b/, /(?<=[ \t])-w[ \t]+(\S+)/g],
  [/(?:sqlcmd|\bbcp|osql|isql|ipmitool)\b/, /(?<=[ \t])-P[ \t]*(\S+)/g],
  [/(?:smbclient|rpcclient|smbmap|\bnet)\b/, /(?<=[ \t])-U[ \t]+[^\s%]+%(\S+)/g],
  [/lftp\b/, /(?<=[ \t])-u[ \t]+[^\s,]+,(\S+)/g],
  [/\b(?:7z|7za|rar|unrar)\b/, /(?<=[ \t])-p([^\s-]\S*)/g],
  [/\b(?:zip|unzip)\b/, /(?<=[ \t])-P[ \t]+(\S+)/g],
  [/ssh-keygen\b/, /(?<=[ \t])-[NP][ \t]+("[^"]*"|'[^']*'|\S+)/g],
  [/snmp\w+\b/, /(?<=[ \t])-[AX][ \t]+(\S+)/g],
  [/openssl\b/, /(?<=[ \t])-(?:passin|passout|pass|k)[ \t]+(?:pass:)?(\S+)/g],
  [/vault[ \t]+login\b/, /\blogin[ \t]+(?:-\S+[ \t]+)*([^\s=-]\S{7,})/g],
  [/wpa_passphrase\b/, /\bwpa_passphrase[ \t]+(?:"[^"]*"|\S+)[ \t]+("[^"]*"|\S+)/g],
  [/nmcli\b/, /\b(?:password|wifi-sec\.psk|psk)[ \t]+("[^"]*"|\S+)/g],
]

/** A pipeline stage: the text between line ends, `|`, `;` and `&&`. */
const STAGE = /[^\n|;&]+/g

/** `user name password` in an ftp session's script (a heredoc after `ftp -n`). */
const FTP_USER = /(?:^|\n|\\n)[ \t]*user[ \t]+\S+[ \t]+([^\s\\]+)/g
/** A `.pgpass` line: `host:port:database:user:password`. */
const PGPASS = /(?:^|\n|\\n)[^\s:]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:([^\s\\]+)(?=$|\r?\n|\\n)/g

function commandSpans(text: string, out: Span[]): void {
  if (/\bftp\b/.test(text)) regexSpans(FTP_USER, text, out)
  if (text.includes(':')) regexSpans(PGPASS, text, out)
  if (!/[ \t]-\w|login|wpa_|sqlplus|nmcli/.test(text)) return
  for (const stage of text.matchAll(STAGE)) {
    const line = stage[0]
    if (line.length < 6) continue
    for (const [command, flag] of COMMAND_FLAGS) {
      const c = command.exec(line)
      if (!c) continue
      const from = c.index + c[0].length
      for (const m of line.slice(from).matchAll(flag)) {
        let v = m[1] as string
        let at = (stage.index ?? 0) + from + (m.index ?? 0) + m[0].length - v.length
        if (isQuote(v[0]) && v.length > 1) {
          v = v.slice(1, -1)
          at++
        }
        if (v !== '' && !NOT_A_VALUE.test(v)) out.push([at, at + v.length])
      }
    }
    htpasswdSpans(line, stage.index ?? 0, out)
  }
}

/** `htpasswd -b file user password`, `htpasswd -nb user password`. */
function htpasswdSpans(line: string, offset: number, out: Span[]): void {
  const c = /\bhtpasswd\b/.exec(line)
  if (!c) return
  let flags = ''
  const words: [string, number][] = []
  for (const w of line.slice(c.index + c[0].length).matchAll(/\S+/g)) {
    if (w[0].startsWith('-')) flags += w[0].slice(1)
    else words.push([w[0], c.index + c[0].length + (w.index ?? 0)])
  }
  if (!flags.includes('b')) return
  const word = words[flags.includes('n') ? 1 : 2]
  if (word) out.push([offset + word[1], offset + word[1] + word[0].length])
}

/** `<add key="ClientSecret" value="x"/>` (.NET appSettings), either order, either quote. */
const ATTRIBUTE_PAIR =
  /\b(?:key|name)[ \t]*=[ \t]*(\\*["'])([^"'\\\n]{1,100})\1[ \t\r\n]+value[ \t]*=[ \t]*(\\*["'])([^"'\\\n]*)\3|\bvalue[ \t]*=[ \t]*(\\*["'])([^"'\\\n]*)\5[ \t\r\n]+(?:key|name)[ \t]*=[ \t]*(\\*["'])([^"'\\\n]{1,100})\7/g

function attributeSpans(text: string, out: Span[]): void {
  if (!text.includes('value')) return
  for (const m of text.matchAll(ATTRIBUTE_PAIR)) {
    const name = m[2] ?? m[8]
    const value = m[4] ?? m[6]
    if (name === undefined || value === undefined || value === '' || !isCredentialKey(name))
      continue
    if (NOT_A_VALUE.test(value)) continue
    const at =
      (m.index ?? 0) +
      (m[4] !== undefined
        ? m[0].length - (m[3] as string).length - value.length
        : m[0].indexOf(value, m[0].indexOf('=') + 1))
    out.push([at, at + value.length])
  }
}

/**
 * Secrets carried in a URL's path or by a service's own form: Discord webhooks, Telegram bot
 * tokens, Azure AD client secrets.
 */
const URL_TOKENS =
  /\bdiscord(?:app)?\.com\/api\/webhooks\/\d+\/([\w-]{20,})|\bapi\.telegram\.org\/(?:file\/)?bot(\d{5,}:[\w-]{20,})|(?<![\w~.-])([A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![\w~.-])/g

function urlTokenSpans(text: string, out: Span[]): void {
  if (!text.includes('webhooks') && !text.includes('telegram') && !text.includes('Q~')) return
  for (const m of text.matchAll(URL_TOKENS)) {
    const v = (m[1] ?? m[2] ?? m[3]) as string
    const at = (m.index ?? 0) + m[0].length - v.length
    out.push([at, at + v.length])
  }
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

/**
 * Whether a key names an identifier (`message_id`, `playlistId`, `spreadsheet_ids`, `uuid`):
 * an id is not a credential unless its owner word is one (`session_id`, `secret_id`).
 */
export function isIdKey(key: string): boolean {
  const words = keyWords(key)
  const head = words[words.length - 1]
  return (
    head !== undefined &&
    /^(?:id|ids|uuid|guid|sha|oid|ref|etag)$/.test(head) &&
    !isCredentialKey(key)
  )
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

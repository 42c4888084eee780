/**
 * What the credential filter's scans share: a span of text, a regex's spans, and the small
 * readings of quotes, blanks and line ends every hand-written scan makes.
 */
export type Span = [number, number]

/** Whether a value looks like a token rather than a word (`Basic dXNlcjpw`, not `Basic usage`). */
export function tokenLike(v: string): boolean {
  return /\d|[+/=]/.test(v) || /[A-Z]/.test(v.slice(1))
}

/** Values that say nothing: empty, null, booleans, masks, placeholders (`${DB_PASSWORD}`). */
export const NOT_A_VALUE =
  /^(?:|null|nil|none|true|false|undefined|\*+|\.\.\.|\$\{[^}]*\}|\{\{[^}]*\}\}|\$[A-Za-z_]\w*|%[A-Za-z_]\w*%|basic|bearer|digest|token|oauth2?|negotiate|ntlm|kerberos|apikey|api_key|jwt|hmac|password|anonymous|prompt|required|optional)$/i

/** Words after `is` in prose that are not the credential (`the token is expired`). */
export const PROSE =
  /^(?:not|the|a|an|required|missing|invalid|incorrect|expired|wrong|correct|valid|set|unset|empty|too|still|now|being|also|only|in|on|at|for|used|needed|stored|saved|sent|shown|hidden|different|same|of|to|and|or|that|this|your|my|our|their|it|being|revoked|rotated|case)$/i

export const isQuote = (c: string | undefined) => c === '"' || c === "'" || c === '`'

export const isBlank = (c: string | undefined) => c === ' ' || c === '\t'

/** Past a quote at `i`, escaped or not (`"`, `\"`, `\\\"`): [end, the quote as written]. */
export function quoteAt(text: string, i: number): [number, string] | undefined {
  let j = i
  while (text[j] === '\\' && j - i < 4) j++
  return isQuote(text[j]) ? [j + 1, text.slice(i, j + 1)] : undefined
}

/** Whether the key at `at` starts its line (past indentation, a list dash, `export`, `set`). */
export function startsLine(text: string, at: number): boolean {
  let i = at
  while (i > 0 && isBlank(text[i - 1])) i--
  if (i === 0 || newlineBefore(text, i)) return true
  const lead = /(?:^|\n|\\n)[ \t]*(?:-|export|set|ENV|ARG)[ \t]+$/.exec(
    text.slice(Math.max(0, at - 16), at),
  )
  return lead !== null
}

/** Whether a line ends just before `i` (a newline, or `\n` written out in a JSON string). */
export function newlineBefore(text: string, i: number): boolean {
  const c = text[i - 1]
  return c === '\n' || c === '\r' || (c === 'n' && text[i - 2] === '\\' && text[i - 3] !== '\\')
}

/** A line separator at `i` (a newline, or `\n` written out inside a JSON string): its length. */
export function newlineAt(text: string, i: number): number {
  if (text[i] === '\r') return text[i + 1] === '\n' ? 2 : 1
  if (text[i] === '\n') return 1
  if (text[i] === '\\' && (text[i + 1] === 'n' || text[i + 1] === 'r')) return 2
  return 0
}

/** Whole matches of a global regex, or the span of its group 1 when it has one. */
export function regexSpans(
  re: RegExp,
  text: string,
  out: Span[],
  keep?: (v: string) => boolean,
): void {
  for (const m of text.matchAll(re)) {
    const v = m[1] ?? m[0]
    if (v === '' || (keep && !keep(v))) continue
    const start = (m.index ?? 0) + m[0].length - (m[1] === undefined ? m[0].length : v.length)
    out.push([start, start + v.length])
  }
}

/** An escape the unescaped reading resolves (most JSON text has none: it is read once). */
export const HIDING = /\\(?:u[0-9a-fA-F]{4}|\/)/

/** Format characters a reader does not see (zero-width, joiners, bidi marks, soft hyphen). */
export const INVISIBLE_CHARS =
  '\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\ufeff'

export const INVISIBLE = new RegExp(`[${INVISIBLE_CHARS}]`)

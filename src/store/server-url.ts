import { InvalidOptionError } from '../errors.js'
import { credentialSpans } from '../messages/credentials.js'

/** What a server URL must look like, for `checkServerUrl`. */
export interface UrlShape {
  /** Accepted schemes, with the colon: `redis:`. */
  schemes: string[]
  /** The form shown in the error. */
  form: string
  /** Whether the path must be a database number (Redis). */
  numericDb?: boolean
}

/**
 * Checks a server URL before the client library sees it, and returns what hides its password
 * in any text. Node's URL errors keep the whole input (`error.input`), and ioredis turns a
 * URL it cannot read into a socket path that it then prints: either would carry the password
 * into a log, so a bad URL is an `InvalidOptionError` that shows the URL with the password
 * replaced by `***`.
 */
export function checkServerUrl(url: string, shape: UrlShape): (text: string) => string {
  // The userinfo password, and whatever the one credential filter finds (`?password=`,
  // `?auth=`, tokens), longest first so a shorter one never leaves part of a longer.
  const secrets = [
    ...new Set([...passwordsIn(url), ...credentialSpans(url).map(([a, b]) => url.slice(a, b))]),
  ].sort((a, b) => b.length - a.length)
  const hide = (text: string) => {
    let out = text
    for (const s of secrets) out = out.split(s).join('***')
    return out
  }
  const refuse = (why: string): never => {
    throw new InvalidOptionError(
      'url',
      `${why}: expected ${shape.form}, got ${JSON.stringify(hide(redacted(url)))}`,
    )
  }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return refuse('not a URL')
  }
  if (!shape.schemes.includes(parsed.protocol))
    refuse(`the scheme ${JSON.stringify(parsed.protocol)} is not ${shape.schemes.join(' or ')}`)
  if (!parsed.hostname) refuse('no host')
  try {
    decodeURIComponent(parsed.username)
    decodeURIComponent(parsed.password)
  } catch {
    refuse('the user or password has a malformed %-escape')
  }
  const db = parsed.pathname.replace(/^\//, '')
  if (shape.numericDb && db !== '' && !/^\d+$/.test(db)) refuse('the database is not a number')
  return hide
}

/** The password of a URL-looking string, as written and decoded, found without `new URL`. */
function passwordsIn(url: string): string[] {
  // Everything up to the last `@` is the user and password: a password may hold `@` or `/`.
  const auth = /^[^:/]*:\/\/(.*)@/.exec(url)?.[1]
  if (!auth) return []
  const colon = auth.indexOf(':')
  const raw = colon < 0 ? auth : auth.slice(colon + 1)
  let decoded = raw
  try {
    decoded = decodeURIComponent(raw)
  } catch {}
  return [...new Set([raw, decoded])]
    .filter((s) => s.length > 0)
    .sort((a, b) => b.length - a.length)
}

/** The URL with whatever sits between `//` and the last `@` reduced to the user name. */
function redacted(url: string): string {
  return url.replace(/^([^:/]*:\/\/)(.*)@/, (_, scheme: string, auth: string) => {
    const user = auth.split(':')[0] ?? ''
    return `${scheme}${user}${auth.includes(':') ? ':***' : ''}@`
  })
}

import { InvalidOptionError } from './errors.js'
import { redactCredentials } from './messages/credentials.js'

/** Edit distance (insert, delete, substitute, swap two neighbours), case-insensitive. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase()
  const t = b.toLowerCase()
  const rows: number[][] = []
  for (let i = 0; i <= s.length; i++) {
    const row = new Array<number>(t.length + 1).fill(0)
    row[0] = i
    rows.push(row)
  }
  const first = rows[0] ?? []
  for (let j = 0; j <= t.length; j++) first[j] = j
  for (let i = 1; i <= s.length; i++) {
    const row = rows[i] ?? []
    const up = rows[i - 1] ?? []
    for (let j = 1; j <= t.length; j++) {
      const same = s[i - 1] === t[j - 1] ? 0 : 1
      let d = Math.min((up[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (up[j - 1] ?? 0) + same)
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        d = Math.min(d, (rows[i - 2]?.[j - 2] ?? 0) + 1)
      row[j] = d
    }
  }
  return rows[s.length]?.[t.length] ?? 0
}

/** The known name closest to `name`, when it is close enough to be a misspelling. */
export function closest(name: string, known: readonly string[]): string | undefined {
  // Long input is not a misspelling of a short option name: no quadratic work on it.
  if (name.length > 64) return undefined
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const k of known) {
    const d = distance(name, k)
    if (d < bestDistance) {
      best = k
      bestDistance = d
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3))
    ? best
    : undefined
}

/** An `InvalidOptionError` for `key`, suggesting the closest of `known`. */
export function unknownOption(
  key: string,
  known: readonly string[],
  where: string,
): InvalidOptionError {
  const near = closest(key, known)
  // The key as given, but never a credential pasted as one.
  return new InvalidOptionError(
    redactCredentials(key),
    `not an option of ${where}${near ? `; did you mean ${JSON.stringify(near)}?` : ''}`,
  )
}

/**
 * The refusal of a strategy that answers only asynchronously (it returns a promise, or says
 * `async: true`) where a synchronous answer is asked for, naming the call to use instead.
 */
export function asynchronousStrategy(name: string, use = 'fitAsync'): InvalidOptionError {
  return new InvalidOptionError('strategy', `${name} is asynchronous: use ${use}`)
}

/** Refuses any own key of `options` not in `known` (JavaScript callers, JSON configs). */
export function checkKeys(options: unknown, known: readonly string[], where: string): void {
  if (options === null || typeof options !== 'object') return
  for (const key of Object.keys(options))
    if (!known.includes(key)) throw unknownOption(key, known, where)
}

/** An object whose fields can be read (arrays included; `null` is not one): the one guard codecs and stores read unknown values with. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null
}

/**
 * A value named for an error message without reading into it: a value that contains itself,
 * is nested thousands deep or is a big integer is named by its kind, never serialized.
 */
export function describeValue(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'a list'
  switch (typeof v) {
    case 'string': {
      // An error names what it was given, never a credential in it (a key passed as a model id).
      const shown = redactCredentials(v)
      return shown.length > 80
        ? `${JSON.stringify(shown.slice(0, 60))}… (${v.length} characters)`
        : JSON.stringify(shown)
    }
    case 'number':
    case 'boolean':
    case 'undefined':
      return String(v)
    case 'object':
      return 'an object'
    default:
      return `a ${typeof v}`
  }
}

/**
 * The check at the top of a function taking an options object: `undefined` is no options
 * (unless `required`);
 * anything that is not an object (null, a number, a list) is refused, and so is any own key
 * not in `known`, naming the closest. `name` is the argument's name in the error.
 */
export function requireOptions(
  options: unknown,
  where: string,
  known?: readonly string[],
  { name = 'options', required = false }: { name?: string; required?: boolean } = {},
): void {
  if (options === undefined && !required) return
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new InvalidOptionError(name, `${where} expects an object, got ${describeValue(options)}`)
  if (known) checkKeys(options, known, where)
}

/** Refuses an argument that fails its test, naming the function, the argument and what it expects. */
export function requireArgument(
  ok: boolean,
  where: string,
  name: string,
  expected: string,
  value: unknown,
): void {
  if (!ok)
    throw new InvalidOptionError(name, `${where} expects ${expected}, got ${describeValue(value)}`)
}

/**
 * A JSON reader for fact extraction that keeps what `JSON.parse` loses: each number's source
 * text (`12345678901234567890` is not rounded to `12345678901234567000`, `1250.50` keeps its
 * zero) and every entry of an object in order (a duplicate key is one more entry, `__proto__`
 * a key like any other: no object is built, so no prototype can be touched). One pass with an
 * explicit stack, so deep nesting costs no recursion; what `JSON.parse` rejects, it rejects.
 */

/** A number as written. */
export class JsonNumber {
  constructor(readonly raw: string) {}
}

/** An object's entries in source order, duplicates included. */
export class JsonObject {
  readonly entries: [string, JsonValue][] = []
}

/** A container nested deeper than the reader keeps: its source text. */
export class JsonDeep {
  constructor(readonly text: string) {}
}

export type JsonValue = string | boolean | null | JsonNumber | JsonObject | JsonDeep | JsonValue[]

interface Frame {
  /** Where the container opens in the text. */
  start: number
  /** `]` or `}`. */
  close: number
  /** Whether its values are kept (within the depth), or only checked. */
  kept: boolean
  list: JsonValue[] | undefined
  object: JsonObject | undefined
  /** The key the next value of an object goes under. */
  key: string
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const LITERAL = /true|false|null/y

/**
 * The value of a JSON text, or `undefined` when it is not JSON. Containers nested deeper than
 * `maxDepth` (the outermost being at depth 0) are checked but come back as `JsonDeep`, their
 * source text, so the caller's walk is bounded too.
 */
export function readJson(text: string, maxDepth = Number.POSITIVE_INFINITY): JsonValue | undefined {
  const n = text.length
  let i = 0
  const space = () => {
    for (; i < n; i++) {
      const c = text.charCodeAt(i)
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return
    }
  }
  /** The match of a sticky pattern at `i`, read past. */
  const take = (re: RegExp): string | undefined => {
    re.lastIndex = i
    const m = re.exec(text)?.[0]
    if (m !== undefined) i = re.lastIndex
    return m
  }
  const string = (): string | undefined => {
    const from = i
    // Without an escape or a control character, the string is its text between the quotes.
    let plain = true
    for (i++; i < n; i++) {
      const c = text.charCodeAt(i)
      if (c === 92) {
        plain = false
        i++
      } else if (c === 34) break
      else if (c < 32) plain = false
    }
    const closed = i < n
    i++
    if (plain && closed) return text.slice(from + 1, i - 1)
    try {
      // Escapes decoded, control characters refused, as everywhere else.
      return JSON.parse(text.slice(from, i)) as string
    } catch {
      return undefined
    }
  }
  /** `"key":` of an object's entry. */
  const key = (): string | undefined => {
    space()
    if (text.charCodeAt(i) !== 34) return undefined
    const k = string()
    if (k === undefined) return undefined
    space()
    if (text.charCodeAt(i) !== 58) return undefined
    i++
    return k
  }
  const stack: Frame[] = []
  /** A closed container as its parent keeps it. */
  const done = (f: Frame): JsonValue => {
    if (f.kept) return (f.object ?? f.list) as JsonValue
    const parent = stack[stack.length - 1]
    return !parent || parent.kept ? new JsonDeep(text.slice(f.start, i)) : null
  }
  for (;;) {
    space()
    let value: JsonValue
    const c = text.charCodeAt(i)
    if (c === 123 || c === 91) {
      const kept = stack.length <= maxDepth
      const f: Frame = {
        start: i,
        close: c + 2,
        kept,
        list: kept && c === 91 ? [] : undefined,
        object: kept && c === 123 ? new JsonObject() : undefined,
        key: '',
      }
      i++
      space()
      if (text.charCodeAt(i) === f.close) {
        i++
        value = done(f)
      } else {
        stack.push(f)
        if (c === 123) {
          const k = key()
          if (k === undefined) return undefined
          f.key = k
        }
        continue
      }
    } else if (c === 34) {
      const s = string()
      if (s === undefined) return undefined
      value = s
    } else {
      const word = take(LITERAL)
      const raw = word === undefined ? take(NUMBER) : undefined
      if (word === undefined && raw === undefined) return undefined
      value =
        raw === undefined ? (JSON.parse(word as string) as boolean | null) : new JsonNumber(raw)
    }
    // Put the value in its container, then close containers until one has more to read.
    for (;;) {
      const top = stack[stack.length - 1]
      if (!top) {
        space()
        return i === n ? value : undefined
      }
      if (top.object) top.object.entries.push([top.key, value])
      else top.list?.push(value)
      space()
      const d = text.charCodeAt(i)
      if (d === 44) {
        i++
        if (top.close === 125) {
          const k = key()
          if (k === undefined) return undefined
          top.key = k
        }
        break
      }
      if (d !== top.close) return undefined
      i++
      stack.pop()
      value = done(top)
    }
  }
}

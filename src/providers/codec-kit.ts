import { InvalidInputError } from '../errors.js'
import { requireMessages } from '../messages/check.js'
import { copyData } from '../messages/copy.js'
import type { Message, ProviderMetadata } from '../messages/message.js'
import { nestingProblem, shortPath } from '../messages/nesting.js'
import { describeValue, isRecord } from '../options-check.js'

export type Json = Record<string, unknown>

/** A value whose fields can be read: any object, arrays included (`null` is not one). */
export const isJson: (v: unknown) => v is Json = isRecord

/** A list of values not yet read (unlike `Array.isArray`, which lets them be anything). */
export function isList(v: unknown): v is unknown[] {
  return Array.isArray(v)
}

/** The fields of an object, to spread; anything else has none. */
export function fieldsOf(v: unknown): Json {
  return isJson(v) ? v : {}
}

/** A field that holds an object, or undefined when it holds anything else. */
export function jsonField(from: Json, key: string): Json | undefined {
  const v = from[key]
  return isJson(v) ? v : undefined
}

/** A field that holds a string, or undefined when it holds anything else. */
export function stringField(from: Json, key: string): string | undefined {
  const v = from[key]
  return typeof v === 'string' ? v : undefined
}

/** Something the target format could not carry, by output message. */
export interface Loss {
  index: number
  what: string
}

/** A value named for a codec's error: its kind, and a scalar's value (`string "x"`, `number 5`). */
export function describe(v: unknown): string {
  const t = typeof v
  return t === 'string' || t === 'number' || t === 'boolean'
    ? `${t} ${describeValue(v)}`
    : describeValue(v)
}

/** Throws the typed error every decoder throws: message index, field, what is wrong. */
export function fail(index: number, field: string, detail: string): never {
  throw new InvalidInputError(detail, { index, field })
}

/** Reads and writes one format's round-trip metadata on messages, parts and calls. */
export function metadataFor(format: string) {
  return {
    meta: (x: { providerMetadata?: ProviderMetadata | undefined }): Json =>
      x.providerMetadata?.[format] ?? {},
    withMeta: <T extends object>(x: T, data: Json): T =>
      Object.keys(data).length ? { ...x, providerMetadata: { [format]: data } } : x,
  }
}

/** Tool-call arguments kept as a string, back to the object a format wants; what is not JSON stays a string. */
export function parseArguments(
  args: string,
  wrap: (value: unknown) => unknown = (v) => v,
): unknown {
  try {
    return wrap(JSON.parse(args))
  } catch {
    return wrap(args)
  }
}

/**
 * A deep copy of JSON-like data (plain objects, arrays, bytes), so what an encoder
 * returns shares no object with the messages it read: what a codec carries along (items,
 * parts, unknown fields) goes out as a copy, whatever the caller then does with it. Keys
 * such as `__proto__` stay own data properties.
 */
export function detach<T>(value: T): T {
  return copyData(value, false, keepOther)
}

/** Bytes are copied; a class instance (a URL, a Date) is not JSON data: it goes out as it came. */
const keepOther = (value: object): unknown => (value instanceof Uint8Array ? value.slice() : value)

/**
 * Refuses input that nests deeper than any message a provider sends, or contains itself,
 * before a decoder reads it: a typed error naming the message and the field, where reading
 * it would overflow the stack. The message is the first index of a list, or of the list an
 * object holds (`messages`, `input`, `contents`); with `at`, `input` is the message at that index.
 */
export function refuseDeep(input: unknown, at?: number): void {
  const problem = nestingProblem(input)
  if (!problem) return
  let path = problem.path
  let index: number | undefined = at
  if (at !== undefined)
    throw new InvalidInputError(problem.detail, {
      index,
      field: shortPath(path).join('.') || 'message',
    })
  const listKey = Array.isArray(input) ? undefined : path[0]
  if (listKey !== undefined && ['messages', 'input', 'contents'].includes(listKey))
    path = path.slice(1)
  if (Array.isArray(input) || listKey !== path[0]) {
    const k = Number(path[0])
    if (Number.isInteger(k)) {
      index = k
      path = path.slice(1)
    }
  }
  throw new InvalidInputError(problem.detail, {
    ...(index !== undefined && { index }),
    field: shortPath(path).join('.') || 'message',
  })
}

/** The messages an encoder was given are a list of messages, or a typed error names the one that is not. */
export const requireList = requireMessages

/**
 * `decode` of messages that start at `firstIndex` in a history: a typed error names the
 * message by its place in the history.
 */
export function decodedAt<T>(firstIndex: number, decode: () => T): T {
  try {
    return decode()
  } catch (e) {
    if (e instanceof InvalidInputError && e.index !== undefined)
      throw new InvalidInputError(e.detail, { index: firstIndex + e.index, field: e.field })
    throw e
  }
}

/**
 * Tool results that carry no tool name (Anthropic's, Responses call outputs, OpenAI chat tool
 * messages) take it from the call: a turn added alone takes it from the calls before it, as
 * the whole conversation decoded at once does, so both count and clear the same result alike.
 */
export function namedResults(messages: Message[], calls: ReadonlyMap<string, string>): Message[] {
  if (calls.size === 0) return messages
  return messages.map((m) => {
    if (m.role !== 'tool' || m.toolName !== undefined) return m
    const name = calls.get(m.toolCallId)
    return name === undefined ? m : { ...m, toolName: name }
  })
}

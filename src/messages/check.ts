import { InvalidInputError } from '../errors.js'
/**
 * The message schema (`messageSchema` in message.ts) as plain checks: the same messages
 * accepted, and the first problem named by field path and reason in zod's words. `fit` and
 * the summarizer use this so that a bundle of them carries no schema library. Inside `content`
 * it names the part and field at fault, where zod says only "Invalid input".
 */

import { jsonDepth, MAX_NESTING, nestingIssue } from './nesting.js'

export interface MessageIssue {
  /** Field path inside the message, e.g. `['toolCalls', 0, 'id']`; empty for the message itself. */
  path: (string | number)[]
  message: string
}

type Path = (string | number)[]
type Check = (value: unknown, path: Path) => MessageIssue | undefined

/** What zod calls a value's type in "received ...". */
function typeName(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN'
    if (!Number.isFinite(v)) return 'Infinity'
  }
  return typeof v
}

const expected = (what: string, v: unknown, path: Path): MessageIssue => ({
  path,
  message: `Invalid input: expected ${what}, received ${typeName(v)}`,
})

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const string: Check = (v, path) => (typeof v === 'string' ? undefined : expected('string', v, path))

const nonEmptyString: Check = (v, path) =>
  typeof v !== 'string'
    ? expected('string', v, path)
    : v.length < 1
      ? { path, message: 'Too small: expected string to have >=1 characters' }
      : undefined

const boolean: Check = (v, path) =>
  typeof v === 'boolean' ? undefined : expected('boolean', v, path)

const positiveInt: Check = (v, path) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) return expected('number', v, path)
  if (!Number.isInteger(v)) return expected('int', v, path)
  if (v > Number.MAX_SAFE_INTEGER)
    return { path, message: `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}` }
  if (v < Number.MIN_SAFE_INTEGER)
    return { path, message: `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}` }
  if (v <= 0) return { path, message: 'Too small: expected number to be >0' }
  return undefined
}

const oneOf =
  (values: readonly string[]): Check =>
  (v, path) =>
    typeof v === 'string' && values.includes(v)
      ? undefined
      : {
          path,
          message: `Invalid option: expected one of ${values.map((x) => JSON.stringify(x)).join('|')}`,
        }

const optional =
  (check: Check): Check =>
  (v, path) =>
    v === undefined ? undefined : check(v, path)

/** `Record<string, Record<string, unknown>>`, keyed by format name. */
const providerMetadata: Check = (v, path) => {
  if (!isObject(v)) return expected('record', v, path)
  for (const key of Object.getOwnPropertySymbols(v)) {
    if (Object.prototype.propertyIsEnumerable.call(v, key))
      return { path: [...path, String(key)], message: 'Invalid key in record' }
  }
  for (const key of Object.keys(v)) {
    // Never read as data (and zod's record skips it too).
    if (key === '__proto__') continue
    const inner = v[key]
    if (!isObject(inner)) return expected('record', inner, [...path, key])
  }
  return undefined
}

function object(shape: Record<string, Check>): Check {
  const keys = Object.keys(shape)
  return (v, path) => {
    if (!isObject(v)) return expected('object', v, path)
    for (const key of keys) {
      const issue = (shape[key] as Check)(v[key], [...path, key])
      if (issue) return issue
    }
    return undefined
  }
}

function discriminated(key: string, cases: Record<string, Check>): Check {
  const names = Object.keys(cases)
  const message = `Invalid discriminator value. Expected ${names.map((n) => `'${n}'`).join(' | ')}`
  return (v, path) => {
    if (!isObject(v)) return expected('object', v, path)
    const tag = v[key]
    const check = typeof tag === 'string' && Object.hasOwn(cases, tag) ? cases[tag] : undefined
    if (!check) return { path: [...path, key], message }
    return check(v, path)
  }
}

function array(item: Check): Check {
  return (v, path) => {
    if (!Array.isArray(v)) return expected('array', v, path)
    for (let i = 0; i < v.length; i++) {
      const issue = item(v[i], [...path, i])
      if (issue) return issue
    }
    return undefined
  }
}

const meta = { providerMetadata: optional(providerMetadata) }

const part = discriminated('type', {
  text: object({ type: string, text: string, ...meta }),
  image: object({
    type: string,
    url: optional(string),
    data: optional(string),
    mediaType: optional(string),
    detail: optional(oneOf(['auto', 'low', 'high'])),
    width: optional(positiveInt),
    height: optional(positiveInt),
    ...meta,
  }),
  file: object({
    type: string,
    url: optional(string),
    data: optional(string),
    mediaType: optional(string),
    filename: optional(string),
    ...meta,
  }),
})

const parts = array(part)
const content: Check = (v, path) =>
  typeof v === 'string'
    ? undefined
    : Array.isArray(v)
      ? parts(v, path)
      : expected('string or array', v, path)

/** Arguments as JSON text: providers that take them as an object get them parsed, so their depth is bounded as any value's. */
const argumentsText: Check = (v, path) =>
  typeof v !== 'string'
    ? expected('string', v, path)
    : jsonDepth(v) > MAX_NESTING
      ? { path, message: `nested deeper than ${MAX_NESTING} levels` }
      : undefined

const toolCall = object({
  id: nonEmptyString,
  name: string,
  arguments: argumentsText,
  ...meta,
})

const common = { name: optional(string), ...meta, pinned: optional(boolean) }

const message = discriminated('role', {
  system: object({ role: string, content, ...common }),
  user: object({ role: string, content, ...common }),
  assistant: object({
    role: string,
    content: optional(content),
    toolCalls: optional(array(toolCall)),
    thought: optional(string),
    refusal: optional(string),
    ...common,
  }),
  tool: object({
    role: string,
    toolCallId: nonEmptyString,
    toolName: optional(string),
    content,
    isError: optional(boolean),
    ...common,
  }),
})

/** The first problem that keeps `value` from being a `Message`, or undefined when it is one. */
export function messageIssue(value: unknown): MessageIssue | undefined {
  return message(value, []) ?? emptyIssue(value) ?? nestingIssue(value)
}

/**
 * An assistant message may leave out `content` when it calls tools, refuses or only thinks;
 * one that carries none of these has nothing to send. (Empty content, `''` or `[]`, is
 * content: whether a provider takes it is `validate`'s question, and `fit` repairs it.)
 */
export function emptyIssue(value: unknown): MessageIssue | undefined {
  if (!isObject(value) || value.role !== 'assistant') return undefined
  if (
    value.content === undefined &&
    (value.toolCalls === undefined ||
      (Array.isArray(value.toolCalls) && !value.toolCalls.length)) &&
    value.refusal === undefined &&
    value.thought === undefined
  )
    return {
      path: ['content'],
      message: 'an assistant message without content, tool calls, refusal or thought',
    }
  return undefined
}

/**
 * A list of messages, or the typed error that names the first value that is not one (its
 * index and field): what every function taking a list of messages checks first.
 */
export function requireMessages(messages: unknown): void {
  if (!Array.isArray(messages))
    throw new InvalidInputError(
      `expected a list of messages, got ${messages === null ? 'null' : typeof messages}`,
      { field: 'messages' },
    )
  for (let i = 0; i < messages.length; i++) {
    const issue = messageIssue(messages[i])
    if (issue)
      throw new InvalidInputError(issue.message, {
        index: i,
        field: issue.path.join('.') || 'role',
      })
  }
}

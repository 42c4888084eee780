import { InvalidInputError } from '../../errors.js'
import { decode, detectFormat, type Format } from '../../formats/detect.js'
import { messageIssue } from '../../messages/check.js'
import type { Message } from '../../messages/message.js'
import { decodedAt } from '../../providers/codec-kit.js'
import { providerApiOfFormat } from '../../providers/index.js'

/**
 * A message (or several) as an SDK returned it, in this library's shape. With a format,
 * each is decoded in it; without one, a value that already is a `Message` stays as it is
 * and anything else is decoded in the format its shape shows. One SDK message may become
 * several (an Anthropic user turn with tool results, a Gemini response turn).
 */
export function toMessages(
  input: readonly unknown[],
  format: Format | 'auto' | undefined,
  firstIndex: number,
  last: Message | undefined,
  calls: ReadonlyMap<string, string>,
): Message[] {
  if (format === undefined || format === 'auto') {
    if (input.every(isMessage)) return input as Message[]
    const list = input.map(plain)
    const f = list.length === 1 ? detectOne(list[0], firstIndex) : detectFormat(list)
    return decodeList(list, f, firstIndex, last, calls)
  }
  return decodeList(input.map(plain), format, firstIndex, last, calls)
}

function detectOne(m: unknown, index: number): Format {
  try {
    return detectFormat([m])
  } catch (e) {
    if (e instanceof InvalidInputError) throw new InvalidInputError(e.detail, { index })
    throw e
  }
}

const FIELDS = new Set([
  'role',
  'content',
  'name',
  'providerMetadata',
  'toolCalls',
  'thought',
  'refusal',
  'toolCallId',
  'toolName',
  'isError',
])

/** Already this library's `Message`: its schema holds and it has no field of another format. */
function isMessage(m: unknown): boolean {
  return (
    !!m &&
    typeof m === 'object' &&
    Object.keys(m).every((k) => FIELDS.has(k)) &&
    messageIssue(m) === undefined
  )
}

function decodeList(
  list: readonly unknown[],
  format: Format,
  firstIndex: number,
  last: Message | undefined,
  calls: ReadonlyMap<string, string>,
): Message[] {
  // A provider API decodes what is added after the history by its own rule (its folder's
  // `decodeAdded`); the frameworks' formats decode a list alone.
  const api = providerApiOfFormat(format)
  const openCalls = last?.role === 'assistant' ? (last.toolCalls ?? []) : []
  if (api) return api.decodeAdded(list, { firstIndex, openCalls, calls })
  return decodedAt(firstIndex, () => decode(list, format).messages)
}

/** LangChain instances and other class objects, as the JSON they serialize to. */
function plain(m: unknown): unknown {
  if (m && typeof m === 'object' && typeof (m as { toJSON?: unknown }).toJSON === 'function')
    return (m as { toJSON: () => unknown }).toJSON()
  return m
}

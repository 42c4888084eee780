import { InvalidInputError } from '../errors.js'
import { decode, detectFormat, type Format } from '../formats/detect.js'
import { fromGemini } from '../formats/gemini.js'
import { messageIssue } from '../messages/check.js'
import type { Message } from '../messages/message.js'

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
  last?: Message,
  calls?: ReadonlyMap<string, string>,
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
  calls: ReadonlyMap<string, string> | undefined,
): Message[] {
  // Gemini turns added one at a time: a response turn answers the calls of the turn before.
  if (format === 'gemini')
    return fromGemini(list, {
      firstTurn: firstIndex,
      openCalls: last?.role === 'assistant' ? (last.toolCalls ?? []) : [],
    })
  // An Anthropic turn or reply decodes from a message list; the others from their own lists.
  try {
    const messages = decode(format === 'anthropic' ? { messages: list } : list, format).messages
    if (format === 'anthropic')
      return namedResults(turnsFrom(messages, firstIndex), calls ?? callsOf(last))
    return format === 'openai-responses' || format === 'openai-chat'
      ? namedResults(messages, calls ?? callsOf(last))
      : messages
  } catch (e) {
    if (e instanceof InvalidInputError && e.index !== undefined)
      throw new InvalidInputError(e.detail, { index: firstIndex + e.index, field: e.field })
    throw e
  }
}

/**
 * Anthropic turns added one at a time are numbered where they start in the history, as a
 * whole conversation decoded at once numbers them: a tool-result turn and the user turn after
 * it stay two turns (numbered alike, the encoder would send them as one).
 */
function turnsFrom(messages: Message[], firstIndex: number): Message[] {
  if (firstIndex === 0) return messages
  return messages.map((m) => {
    const data = m.providerMetadata?.anthropic
    if (typeof data?.turn !== 'number') return m
    return {
      ...m,
      providerMetadata: {
        ...m.providerMetadata,
        anthropic: { ...data, turn: data.turn + firstIndex },
      },
    }
  })
}

/** LangChain instances and other class objects, as the JSON they serialize to. */
function plain(m: unknown): unknown {
  if (m && typeof m === 'object' && typeof (m as { toJSON?: unknown }).toJSON === 'function')
    return (m as { toJSON: () => unknown }).toJSON()
  return m
}

function callsOf(last: Message | undefined): Map<string, string> {
  const calls = new Map<string, string>()
  for (const c of last?.role === 'assistant' ? (last.toolCalls ?? []) : []) calls.set(c.id, c.name)
  return calls
}

/**
 * Anthropic's tool results (and Responses call outputs, OpenAI chat tool messages) carry no tool name: a turn decoded with the whole conversation
 * takes it from the call; a turn added alone takes it from the calls of the message before,
 * so both count and clear the same result alike.
 */
function namedResults(messages: Message[], calls: ReadonlyMap<string, string>): Message[] {
  if (calls.size === 0) return messages
  return messages.map((m) => {
    if (m.role !== 'tool' || m.toolName !== undefined) return m
    const name = calls.get(m.toolCallId)
    return name === undefined ? m : { ...m, toolName: name }
  })
}

import { InvalidInputError } from '../../errors.js'
import { detectFormat, type Format } from '../../formats/detect.js'
import type { Message } from '../../messages/message.js'
import { checkList, checkMessage } from '../check.js'
import { frozenCopy } from '../copy.js'
import { toMessages } from './foreign.js'

/** A context's initial messages, checked and frozen. */
export function checkedInitial(initial: readonly Message[]): Message[] {
  checkList(initial)
  // Array.from visits the holes of a sparse list (map and forEach skip them).
  return Array.from(initial, (m, i) => {
    checkMessage(m, i)
    return frozenCopy(m)
  })
}

/**
 * Messages as a context takes them in its `format` (none: this library's `Message`),
 * decoded against what it holds: `written` (its own writes to a store, not read back yet)
 * after `history`, so a turn added next answers their calls as it would in memory.
 */
export function decodeAdded(
  input: readonly (Message | object)[],
  format: Format | 'auto' | undefined,
  at: number,
  written: readonly Message[],
  history: readonly Message[],
): readonly Message[] {
  if (format === undefined) return input as readonly Message[]
  const newest = (back: number): Message | undefined =>
    back < written.length
      ? written[written.length - 1 - back]
      : history.at(-1 - (back - written.length))
  return toMessages(
    input,
    format,
    at,
    newest(0),
    openCalls(newest, written.length + history.length),
  )
}

/** Names of the calls the newest results may answer: those of the last assistant message. */
function openCalls(
  newest: (back: number) => Message | undefined,
  total: number,
): Map<string, string> {
  const calls = new Map<string, string>()
  for (let back = 0; back < total; back++) {
    const m = newest(back) as Message
    if (m.role === 'tool') continue
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) calls.set(c.id, c.name)
    break
  }
  return calls
}

/**
 * Checks messages about to be added, each named by its position from `at`; without a
 * format, one in an SDK's own shape is refused with the format to pass.
 */
export function checkAdded(
  messages: readonly Message[],
  at: number,
  format: Format | 'auto' | undefined,
): void {
  // Every index, holes of a sparse list included (forEach would skip them).
  for (let k = 0; k < messages.length; k++)
    if (format === undefined) checkWithHint(messages[k], at + k)
    else checkMessage(messages[k], at + k)
}

/** Each format as a sentence names it, with its article. */
const FORMAT_NAMES: Record<Format, string> = {
  'openai-chat': 'an OpenAI chat',
  'openai-responses': 'an OpenAI Responses',
  anthropic: 'an Anthropic',
  gemini: 'a Gemini',
  'ai-sdk': 'an AI SDK',
  autogen: 'an AutoGen',
  langchain: 'a LangChain',
}

/**
 * `checkMessage` for a context without a `format`: a message in an SDK's own shape (an OpenAI
 * completion message, an Anthropic turn, a Gemini content, a Responses item) is refused with
 * what to pass instead.
 */
export function checkWithHint(m: unknown, index: number): asserts m is Message {
  try {
    checkMessage(m, index)
  } catch (e) {
    if (!(e instanceof InvalidInputError)) throw e
    let format: Format | undefined
    try {
      format = detectFormat([m])
    } catch {
      throw e
    }
    throw new InvalidInputError(
      `${e.detail} (it looks like ${FORMAT_NAMES[format]} message: pass format: '${format}' or 'auto' to the ChatContext)`,
      { index, ...(e.field !== undefined && { field: e.field }) },
    )
  }
}

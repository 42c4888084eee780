/** What repair writes of its own: media moved out of tool results, fresh call ids, and the refusal of a list with no turn to send. */
import { InvalidInputError } from '../errors.js'
import type { ContentPart, Message, ToolCall, ToolMessage } from '../messages/message.js'
import type { ProviderRules } from './types.js'

const MOVED_KINDS = ['Images', 'Files', 'Images and files'] as const

/**
 * The user message that carries the images and files taken out of a run of OpenAI tool
 * results, each group after a line saying which call returned it.
 */
export function movedMedia(moved: readonly { from: ToolMessage; media: ContentPart[] }[]): Message {
  const content: ContentPart[] = []
  for (const { from, media } of moved) {
    const what = media.every((p) => p.type === 'image')
      ? MOVED_KINDS[0]
      : media.every((p) => p.type === 'file')
        ? MOVED_KINDS[1]
        : MOVED_KINDS[2]
    const tool = from.toolName ? `${from.toolName} ` : ''
    content.push({ type: 'text', text: `${what} returned by ${tool}(call ${from.toolCallId}):` })
    content.push(...media)
  }
  return { role: 'user', content }
}

/**
 * Whether `text` is the line `repair` writes before the images and files it moved out of the
 * result of call `callId` (OpenAI chat), so a rewrite of that result can find them.
 */
export function isMovedMediaHeader(text: string, callId: string): boolean {
  return (
    text.endsWith(`(call ${callId}):`) &&
    MOVED_KINDS.some((what) => text.startsWith(`${what} returned by `))
  )
}

/**
 * A request with no message is refused by both providers ("at least one message is
 * required"), and Anthropic refuses one without a user message: when a history of
 * `inputLength` messages comes to that, say so instead of sending it.
 */
export function requireUserTurn(
  messages: readonly Message[],
  provider: ProviderRules,
  inputLength = messages.length,
): void {
  const r = provider.messages
  // An empty history gives an empty list: nothing was asked for yet.
  if (inputLength === 0) return
  // Responses histories follow their own rules (src/providers/openai-responses/rules.ts).
  if (r.needs === 'own') return
  // Anthropic and Gemini both need a user turn: Gemini refuses empty `contents`, and its
  // repair already makes the first turn a user's.
  if (r.needs === 'message') {
    if (messages.length > 0) return
    throw new InvalidInputError(
      'nothing to send: every message is empty or invalid for the provider',
      { field: 'messages' },
    )
  }
  for (const m of messages) if (m.role === 'user') return
  throw new InvalidInputError(
    `no user message to send: ${r.label} needs at least one (add one, or fit for openai)`,
    { field: 'role' },
  )
}

/** An id no call in the list uses yet, in the alphabet every API's call ids take. */
export function freshId(id: string, used: ReadonlySet<string>): string {
  const base = id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call'
  if (!used.has(base) && base !== id) return base
  let n = 2
  while (used.has(`${base}_${n}`)) n++
  return `${base}_${n}`
}

export function distinct(calls: readonly ToolCall[]): boolean {
  if (calls.length < 2) return true
  const seen = new Set<string>()
  for (const c of calls) {
    if (seen.has(c.id)) return false
    seen.add(c.id)
  }
  return true
}

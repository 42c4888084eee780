import type { Message, ToolCall } from '../../messages/message.js'
import { fieldsOf, isJson } from '../codec-kit.js'
import type { Problem } from '../problems.js'
import type { MessageRules } from '../types.js'

/** Metadata key of the Gemini codec (kept here as data: this layer does not import codecs). */
const KEY = 'gemini'

/**
 * A message Gemini would get as a turn without parts (which it rejects): no content, no
 * calls, and no thought part of its own to send (a thought from another format has none).
 */
export function emptyForGemini(m: Message): boolean {
  if (m.role === 'tool' || m.role === 'system') return false
  if (m.role === 'assistant') {
    if (m.toolCalls?.length) return false
    const layout = m.providerMetadata?.[KEY]?.layout
    const thoughtPart = Array.isArray(layout) && layout.some((s) => isJson(s) && s.t === 'thought')
    if (m.thought !== undefined && thoughtPart) return false
  }
  if (m.content === undefined) return true
  return m.content.length === 0
}

/** Messages repair takes out for Gemini, by input index: turns that would have no parts. */
export function geminiRemovals(messages: readonly Message[]): Map<number, 'empty-content'> {
  const out = new Map<number, 'empty-content'>()
  messages.forEach((m, i) => {
    if (emptyForGemini(m)) out.set(i, 'empty-content')
  })
  return out
}

function signed(call: { providerMetadata?: Record<string, Record<string, unknown>> | undefined }) {
  const extra = call.providerMetadata?.[KEY]?.partExtra as
    | { thoughtSignature?: unknown }
    | undefined
  return typeof extra?.thoughtSignature === 'string'
}

/**
 * Gemini's own rules, on top of the shared ones (every call answered by a response right
 * after it, no response without its call): roles are user and model only, so a system
 * message after the start is sent as user text; the history starts with a user turn; and
 * in the current turn each step of calls carries the thought signature it came with
 * (Gemini 3 rejects one without it; where the history has no signatures at all, the model
 * did not sign and nothing is reported). The codec puts each response turn on its own,
 * right after its call turn, and never merges or splits a signed part.
 */
export function geminiRules(messages: readonly Message[], problems: Problem[]): void {
  let i = 0
  while (i < messages.length && messages[i]?.role === 'system') i++
  const first = messages[i]
  if (first && first.role !== 'user') {
    problems.push({
      index: i,
      code: 'first-not-user',
      severity: 'error',
      message: `the first turn after the system instruction must be the user's, not ${first.role === 'assistant' ? 'the model' : `a ${first.role} message`}`,
    })
  }
  for (let k = i; k < messages.length; k++) {
    if (messages[k]?.role === 'system') {
      problems.push({
        index: k,
        code: 'system-not-leading',
        severity: 'warning',
        message: 'Gemini has no system turn: a system message after the start is sent as user text',
      })
    }
  }
  messages.forEach((m, k) => {
    // The shared check counts a thought as content; Gemini can send it only in a thought part.
    if (m.role === 'assistant' && m.thought !== undefined && emptyForGemini(m))
      problems.push({
        index: k,
        code: 'empty-content',
        severity: 'error',
        message: 'a model turn with only a thought from another format has no part to send',
      })
  })
  const anySigned = messages.some((m) => m.role === 'assistant' && m.toolCalls?.some(signed))
  if (!anySigned) return
  // The current turn: everything after the last user message.
  let start = messages.length
  while (start > 0 && messages[start - 1]?.role !== 'user') start--
  for (const [k, m] of messages.entries()) {
    if (k < start || m.role !== 'assistant') continue
    const [call] = m.toolCalls ?? []
    if (call && !signed(call)) {
      problems.push({
        index: k,
        code: 'missing-thought-signature',
        severity: 'warning',
        message: `function call ${call.name} in the current turn has no thought signature (Gemini 3 rejects it)`,
      })
    }
  }
}

/**
 * Calls kept from a Gemini step whose first call went: the thought signature that call
 * carried moves to the first call kept (Gemini 3 asks it of the first call of a step, and
 * rejects a step without it). Other calls are returned as they were.
 */
export function keepStepSignature(original: readonly ToolCall[], kept: ToolCall[]): ToolCall[] {
  const [first] = kept
  if (!first || signed(first)) return kept
  const donor = original.find((c) => signed(c) && !kept.includes(c))
  if (!donor) return kept
  const signature = fieldsOf(donor.providerMetadata?.[KEY]?.partExtra).thoughtSignature
  const data = first.providerMetadata?.[KEY] ?? {}
  const partExtra = {
    ...fieldsOf(data.partExtra),
    thoughtSignature: signature,
  }
  return [
    { ...first, providerMetadata: { ...first.providerMetadata, [KEY]: { ...data, partExtra } } },
    ...kept.slice(1),
  ]
}

/**
 * Gemini's message rules: roles are user and model (a later system message goes as user
 * text), the history opens with a user turn, a turn without parts and an empty text part are
 * refused, reasoning goes back as thought parts of its own, and a step of calls keeps its
 * thought signature.
 */
export const geminiMessages: MessageRules = {
  label: 'Gemini',
  ownReasoning: { key: KEY, slot: 'thought', noun: 'thought part' },
  judgesOwn: emptyForGemini,
  emptyRefused: true,
  // Gemini refuses an empty text part ("empty text parameter") unless it carries a thought
  // signature: then it is the model's own and goes back as it came.
  emptyTextPart: (p) =>
    p.type === 'text' && p.text === '' && p.providerMetadata?.[KEY]?.thoughtSignature === undefined,
  needs: 'user',
  removals: geminiRemovals,
  keepCalls: keepStepSignature,
}

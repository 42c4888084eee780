/** What validation and repair ask of one message: empty, blank, media, calls only, own reasoning, a fault a strategy wrote. */
import type { AssistantMessage, Content, ContentPart, Message } from '../messages/message.js'
import { isJson } from './codec-kit.js'
import type { MessageRules } from './types.js'

/**
 * No content a provider counts: a thought or a refusal is not content (OpenAI chat needs
 * `content` unless there are tool calls; Anthropic sends neither), and where white space is
 * no text (Anthropic) a text of only white space is not either. Without `rules`, the shared
 * reading (OpenAI chat's).
 */
export function isEmpty(m: Message, rules?: MessageRules): boolean {
  if (m.role === 'tool') return false
  if (m.role === 'assistant' && m.toolCalls?.length) return false
  // In the Responses API reasoning is an item of its own; its rules say when it may go. A
  // refusal is sent there too, as a refusal part.
  if (
    m.role === 'assistant' &&
    rules?.reasoningIsContent &&
    (m.thought !== undefined || !!m.refusal)
  )
    return false
  return !hasContent(m.content, rules?.blankIsEmpty === true)
}

function hasContent(content: Content | undefined, blankIsEmpty: boolean): boolean {
  if (content === undefined) return false
  if (typeof content === 'string') return blankIsEmpty ? hasText(content) : content.length > 0
  for (const part of content) {
    if (part.type !== 'text') return true
    if (blankIsEmpty ? hasText(part.text) : part.text.length > 0) return true
  }
  return false
}

const NON_SPACE = /\S/
export function hasText(text: string): boolean {
  return NON_SPACE.test(text)
}

type PartTest = (p: ContentPart) => boolean

/** How many parts of a message `test` picks (none of a string content). */
export function countParts(m: Message, test: PartTest): number {
  if (m.content === undefined || typeof m.content === 'string') return 0
  let n = 0
  for (const p of m.content) if (test(p)) n++
  return n
}

/** The message without the parts `test` picks. */
export function withoutParts(m: Message, test: PartTest): Message {
  if (!Array.isArray(m.content)) return m
  return { ...m, content: m.content.filter((p) => !test(p)) }
}

/** Image and file parts. */
export const isMedia: PartTest = (p) => p.type !== 'text'

/** Anthropic refuses a text block that is empty or only white space, even beside other blocks. */
export const isBlank: PartTest = (p) => p.type === 'text' && !hasText(p.text)

/** Content `[]`, refused by both ("expected an array with minimum length 1"); beside tool calls it is no text, sent as none. */
export function emptyList(m: Message): boolean {
  return Array.isArray(m.content) && m.content.length === 0 && !isCallOnly(m)
}

/** Reasoning the provider can take back: a Responses reasoning item, a Gemini thought part. */
export function ownThought(
  m: AssistantMessage,
  { key, slot }: NonNullable<MessageRules['ownReasoning']>,
): boolean {
  const layout = m.providerMetadata?.[key]?.layout
  return Array.isArray(layout) && layout.some((s) => isJson(s) && s.t === slot)
}

export function withoutThought(m: AssistantMessage): AssistantMessage {
  const { thought: _thought, ...rest } = m
  return rest
}

export function isCallOnly(m: Message): boolean {
  return m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0
}

export function withoutContent(m: AssistantMessage): Message {
  const { content: _content, ...rest } = m
  return rest
}

/**
 * OpenAI chat takes only text and refusal parts in an assistant message (HTTP 400 "Invalid
 * value: 'image_url'. Supported values are: 'text' and 'refusal'"), as does a Responses
 * output message (`output_text` and `refusal`): its image and file parts.
 */
export function assistantMedia(m: Message): number {
  return m.role === 'assistant' ? countParts(m, isMedia) : 0
}

/** What `writtenFault` finds wrong with a message a strategy wrote. */
export type WrittenFault = 'empty' | 'thoughts-only' | 'blank-part'

/**
 * What the provider would refuse in one message a strategy wrote (a rewrite or a message of
 * its own; the view's messages were repaired already): `empty`, no content it sends where it
 * refuses that (OpenAI chat takes an empty user or system message); `thoughts-only`, an
 * assistant turn of reasoning and nothing else it sends (only Gemini takes one, with a thought
 * part of its own; Responses drops a reasoning item with nothing after it); `blank-part`, a
 * text part it refuses beside others (`withoutBlankParts` takes it out). Undefined: none.
 */
export function writtenFault(m: Message, r: MessageRules): WrittenFault | undefined {
  if (m.role === 'tool') return undefined
  const calls = isCallOnly(m)
  if (m.role === 'assistant' && !calls && m.thought !== undefined && !m.refusal) {
    if (!hasContent(m.content, r.blankIsEmpty === true)) {
      if (r.reasoningIsContent) return 'thoughts-only'
      if (!r.judgesOwn || r.judgesOwn(m)) return 'thoughts-only'
      return undefined
    }
  }
  if (m.role === 'assistant' && !calls && r.judgesOwn?.(m)) return 'empty'
  if (emptyList(m) || (isEmpty(m, r) && (r.emptyRefused || m.role === 'assistant'))) return 'empty'
  if (r.emptyTextPart && countParts(m, r.emptyTextPart) > 0) return 'blank-part'
  if (r.blankIsEmpty && countParts(m, isBlank) > 0) return 'blank-part'
  if (
    r.blankIsEmpty &&
    calls &&
    typeof m.content === 'string' &&
    m.content !== '' &&
    !hasText(m.content)
  )
    return 'blank-part'
  return undefined
}

/** The message without the text parts `writtenFault` calls `blank-part` (it keeps other content). */
export function withoutBlankParts(m: Message, r: MessageRules): Message {
  if (m.role === 'assistant' && isCallOnly(m) && typeof m.content === 'string')
    return withoutContent(m)
  return withoutParts(m, (p) => (r.emptyTextPart?.(p) ?? false) || (!!r.blankIsEmpty && isBlank(p)))
}

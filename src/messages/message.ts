import { InvalidInputError } from '../errors.js'
import type { Content, Message } from './schema.js'

export * from './schema.js'

/** The plain text of a message's content: text parts joined, other parts left out. */
export function contentText(content: Content | undefined): string {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) throw notContent(content)
  let out = ''
  for (const part of content) {
    if (typeof part !== 'object' || part === null) throw notContent(part)
    if (part.type === 'text') out += out ? `\n${part.text}` : part.text
  }
  return out
}

/** Everything a reader would call the message's text, tool calls included. */
export function messageText(message: Message): string {
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    throw new InvalidInputError('expected a message', { field: 'message' })
  if (message.role === 'assistant' && message.toolCalls !== undefined) {
    if (
      !Array.isArray(message.toolCalls) ||
      message.toolCalls.some((c) => typeof c !== 'object' || c === null)
    )
      throw new InvalidInputError('expected a list of tool calls', { field: 'toolCalls' })
  }
  const text = contentText(message.content)
  if (message.role !== 'assistant' || !message.toolCalls?.length) return text
  const calls = message.toolCalls.map((c) => `${c.name}(${c.arguments})`).join('\n')
  return text ? `${text}\n${calls}` : calls
}

const notContent = (v: unknown) =>
  new InvalidInputError(
    `expected a string or a list of content parts, got ${v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v}`,
    { field: 'content' },
  )

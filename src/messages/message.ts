import type { Content, Message } from './schema.js'

export * from './schema.js'

/** The plain text of a message's content: text parts joined, other parts left out. */
export function contentText(content: Content | undefined): string {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  let out = ''
  for (const part of content) {
    if (part.type === 'text') out += out ? `\n${part.text}` : part.text
  }
  return out
}

/** Everything a reader would call the message's text, tool calls included. */
export function messageText(message: Message): string {
  const text = contentText(message.content)
  if (message.role !== 'assistant' || !message.toolCalls?.length) return text
  const calls = message.toolCalls.map((c) => `${c.name}(${c.arguments})`).join('\n')
  return text ? `${text}\n${calls}` : calls
}

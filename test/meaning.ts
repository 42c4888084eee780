import type { Message } from '../src/messages/message.js'

/** What a conversation means, whatever its format: roles, text, calls, results. */
export function meaning(messages: readonly Message[]) {
  return messages.map((m) => ({
    role: m.role,
    text:
      typeof m.content === 'string'
        ? m.content
        : (m.content ?? []).map((p) => (p.type === 'text' ? p.text : p.type)).join('|'),
    calls:
      m.role === 'assistant'
        ? (m.toolCalls ?? []).map((c) => [c.id, c.name, JSON.parse(c.arguments)])
        : [],
    result: m.role === 'tool' ? m.toolCallId : undefined,
  }))
}

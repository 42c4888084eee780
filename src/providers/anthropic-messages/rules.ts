import type { Message } from '../../messages/message.js'
import type { Problem } from '../problems.js'
import type { MessageRules } from '../types.js'

/**
 * Anthropic's own rules over the whole list: at least one user message, the first message
 * after the system prompt is the user's, a later system message goes as user text, and two
 * turns of one side in a row are merged (tool results travel inside a user turn).
 */
export function anthropicRules(messages: readonly Message[], problems: Problem[]): void {
  let i = 0
  while (i < messages.length && messages[i]?.role === 'system') i++
  const firstIndex = i
  const first = messages[firstIndex]
  if (!messages.some((m) => m.role === 'user')) {
    problems.push({
      index: Math.min(firstIndex, Math.max(0, messages.length - 1)),
      code: 'no-user-turn',
      severity: 'error',
      message: 'there is no user message: Anthropic needs at least one',
    })
  }
  if (first && first.role !== 'user') {
    problems.push({
      index: firstIndex,
      code: 'first-not-user',
      severity: 'error',
      message: `the first message after the system prompt must be from the user, not ${first.role}`,
    })
  }
  let previousSide: 'user' | 'assistant' | undefined
  for (const [k, m] of messages.entries()) {
    if (k < firstIndex) continue
    if (m.role === 'system') {
      problems.push({
        index: k,
        code: 'system-not-leading',
        severity: 'warning',
        message: 'a system message after the start is sent as user text',
      })
      continue
    }
    // Tool results travel inside a user turn; consecutive results are one turn.
    const side = m.role === 'assistant' ? 'assistant' : 'user'
    const continuesToolTurn =
      m.role === 'tool' || (m.role === 'user' && messages[k - 1]?.role === 'tool')
    if (side === previousSide && !continuesToolTurn) {
      problems.push({
        index: k,
        code: 'consecutive-same-role',
        severity: 'warning',
        message: `two ${side} turns in a row are merged into one`,
      })
    }
    previousSide = side
  }
}

/**
 * Anthropic Messages' message rules: tool_use ids match `^[a-zA-Z0-9_-]+$` and are unique in
 * the request; a text block must hold non-white-space text ("text content blocks must
 * contain non-whitespace text"); no message may be empty; `system` takes only text blocks.
 */
export const anthropicMessages: MessageRules = {
  label: 'Anthropic',
  callId: /^[a-zA-Z0-9_-]+$/,
  systemTextOnly: "Anthropic's system prompt takes only text blocks",
  blankIsEmpty: true,
  emptyRefused: true,
  needs: 'user',
}

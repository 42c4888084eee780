import type { MessageRules } from '../types.js'

/**
 * OpenAI Chat Completions' message rules beyond the shared ones: the assistant sends only text
 * and refusal parts ("Supported values are: 'text' and 'refusal'"), a tool message and a
 * system or developer message take only text. An empty user or system message is accepted.
 */
export const openaiChatMessages: MessageRules = {
  label: 'OpenAI chat',
  assistantMedia: 'error',
  toolResultTextOnly: true,
  systemTextOnly: 'OpenAI chat takes only text in a system or developer message',
  needs: 'message',
}

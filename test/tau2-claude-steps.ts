// The Claude traces as steps between agent calls, for checking counts against Claude's own
// usage (scripts/eval-counting.ts, src/tokens/claude-counting.test.ts).
import type { Message } from '../src/messages/message.js'
import { tau2ClaudeFile } from './tau2-claude.js'

interface RawMessage {
  role: 'assistant' | 'user' | 'tool'
  content: string | null
  tool_calls?: { id: string; name: string; arguments: unknown }[] | null
  id?: string
  usage?: { prompt_tokens: number } | null
  raw_data?: { thinking_blocks?: { thinking: string }[] } | null
}

/**
 * Two consecutive agent calls: the messages of each prompt (the second holds the first's and
 * what came between), and how much the provider's count grew from one to the other.
 */
export interface Step {
  before: Message[]
  after: Message[]
  actual: number
  /** The second call's messages as the conversation holds them: thinking on every turn. */
  held: Message[]
}

function toMessage(m: RawMessage): Message {
  if (m.role === 'tool')
    return { role: 'tool', toolCallId: m.id ?? 'call', content: m.content ?? '' }
  if (m.role === 'user') return { role: 'user', content: m.content ?? '' }
  const calls = (m.tool_calls ?? []).map((c) => ({
    id: c.id,
    name: c.name,
    arguments: JSON.stringify(c.arguments),
  }))
  const thought = (m.raw_data?.thinking_blocks ?? []).map((b) => b.thinking).join('\n')
  return {
    role: 'assistant',
    ...(m.content ? { content: m.content } : {}),
    ...(calls.length > 0 && { toolCalls: calls }),
    ...(thought && { thought }),
  } as Message
}

/** The prompt of the call at `end`: every message before it, thinking kept only after the last user message. */
function prompt(messages: Message[], plain: Message[], end: number): Message[] {
  let lastUser = -1
  for (let i = 0; i < end; i++) if (messages[i]?.role === 'user') lastUser = i
  return messages.slice(0, end).map((m, i) => (i < lastUser ? (plain[i] as Message) : m))
}

let cached: Step[][] | undefined

/**
 * Each conversation as its steps, from one agent call to the next. Claude counts an assistant
 * turn's thinking only while its tool loop runs: once a user message follows, the thinking
 * before it is out of the prompt (a step can shrink it), and so it is here.
 */
export function claudeConversations(): Step[][] {
  cached ??= load()
  return cached
}

function load(): Step[][] {
  const data = tau2ClaudeFile() as unknown as { simulations: { messages: RawMessage[] }[] }
  return data.simulations.map((s) => {
    const messages = s.messages.map(toMessage)
    const plain = messages.map((m) => {
      if (m.role !== 'assistant' || !m.thought) return m
      const { thought: _thought, ...rest } = m
      return rest as Message
    })
    const calls = s.messages.flatMap((m, i) =>
      m.role === 'assistant' && m.usage?.prompt_tokens ? [i] : [],
    )
    const steps: Step[] = []
    for (let k = 1; k < calls.length; k++) {
      const from = calls[k - 1] as number
      const to = calls[k] as number
      steps.push({
        before: prompt(messages, plain, from),
        after: prompt(messages, plain, to),
        held: messages.slice(0, to),
        actual:
          (s.messages[to]?.usage?.prompt_tokens as number) -
          (s.messages[from]?.usage?.prompt_tokens as number),
      })
    }
    return steps
  })
}

import { readFileSync } from 'node:fs'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { describe, expect, it } from 'vitest'
import { detectFormat, unbounded } from '../src/advanced.js'
import {
  ContextOverflowError,
  fit,
  fromOpenAIChat,
  type Message,
  truncateMessages,
} from '../src/index.js'

const example = fromOpenAIChat(
  JSON.parse(readFileSync(new URL('../examples/airline-booking.json', import.meta.url), 'utf8')),
)

/** What surprised a new user: each now does what its name says. */
describe('no surprises', () => {
  it('unbounded never drops: over the budget it throws ContextOverflowError, with the numbers', () => {
    const all = fit(example, { strategy: unbounded() })
    expect(all.kept).toHaveLength(example.length)
    const total = all.tokens.total
    for (const budget of [total - 1, Math.floor(total / 2), 3000]) {
      let error: unknown
      try {
        fit(example, { strategy: unbounded(), budget })
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(ContextOverflowError)
      expect((error as ContextOverflowError).required).toBe(total)
      expect((error as ContextOverflowError).budget).toBe(budget)
    }
    // At exactly its size it fits, and keeps everything.
    expect(fit(example, { strategy: unbounded(), budget: total }).dropped).toEqual([])
  })

  it('maxTokensPerMessage leaves the system prompt whole unless includeSystem asks', () => {
    const system = 'Policy line with rules and numbers 42. '.repeat(200)
    const question = 'Long question about bags. '.repeat(200)
    const history: Message[] = [
      { role: 'system', content: system },
      { role: 'user', content: question },
    ]
    const cut = fit(history, { transforms: [truncateMessages({ maxTokensPerMessage: 50 })] })
    expect(cut.messages[0]?.content).toBe(system)
    expect(String(cut.messages[1]?.content).length).toBeLessThan(question.length)
    expect(cut.changed.map((c) => c.index)).toEqual([1])
    const both = fit(history, {
      transforms: [truncateMessages({ maxTokensPerMessage: 50, includeSystem: true })],
    })
    expect(String(both.messages[0]?.content).length).toBeLessThan(system.length)
  })

  it('detectFormat knows LangChain message instances, not only their JSON', () => {
    const list = [
      new SystemMessage('Be brief.'),
      new HumanMessage('Where is my bag?'),
      new AIMessage({
        content: '',
        tool_calls: [{ id: 'c1', name: 'track', args: { tag: 'A1' } }],
      }),
      new ToolMessage({ content: 'in Denver', tool_call_id: 'c1' }),
    ]
    expect(detectFormat(list)).toBe('langchain')
    expect(detectFormat({ messages: list })).toBe('langchain')
    // Their JSON was known already; plain OpenAI messages are still OpenAI's.
    expect(detectFormat(JSON.parse(JSON.stringify(list)))).toBe('langchain')
    expect(detectFormat([{ role: 'user', content: 'x' }])).toBe('openai-chat')
  })
})

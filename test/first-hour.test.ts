import { readFileSync } from 'node:fs'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { describe, expect, it } from 'vitest'
import { detectFormat, unbounded } from '../src/advanced.js'
import {
  buffered,
  ChatContext,
  ContextOverflowError,
  fit,
  fitAsync,
  fromOpenAIChat,
  InvalidOptionError,
  type Message,
  tokenLimited,
  truncateMessages,
  validate,
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
    const cut = fit(history, {
      strategy: unbounded(),
      transforms: [truncateMessages({ maxTokensPerMessage: 50 })],
    })
    expect(cut.messages[0]?.content).toBe(system)
    expect(String(cut.messages[1]?.content).length).toBeLessThan(question.length)
    expect(cut.changed.map((c) => c.index)).toEqual([1])
    const both = fit(history, {
      strategy: unbounded(),
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

/** The second hour: nothing silently ignored. */
describe('nothing silently kept or ignored', () => {
  it('fit with neither budget nor model refuses, naming both, unless everything is asked for', async () => {
    for (const call of [() => fit(example), () => fit(example, { strategy: tokenLimited() })]) {
      expect(call).toThrow(InvalidOptionError)
      expect(call).toThrow(
        /needs a budget or a model: pass budget .* or model .*strategy: 'unbounded'/,
      )
    }
    await expect(fitAsync(example, {})).rejects.toThrow(/pass budget .* or model/)
    expect(fit(example, { strategy: 'unbounded' }).kept).toHaveLength(example.length)
    expect(fit(example, { strategy: unbounded() }).kept).toHaveLength(example.length)
    // A strategy bounded by its own rule needs no budget.
    expect(fit(example, { strategy: buffered({ size: 6 }) }).kept.length).toBeLessThan(
      example.length,
    )
  })

  it("a strategy's own limit and the budget: the smaller wins, and the result says so", () => {
    const below = fit(example, { strategy: tokenLimited({ limit: 2000 }), budget: 3000 })
    expect(below.budget).toBe(2000)
    expect(below.tokens.total).toBeLessThanOrEqual(2000)
    expect(below.notes?.join('\n')).toMatch(/own limit \(2000\) is below the budget \(3000\)/)
    const above = fit(example, { strategy: tokenLimited({ limit: 4000 }), budget: 3000 })
    expect(above.budget).toBe(3000)
    expect(above.notes?.join('\n')).toMatch(/budget is below tokenLimited's own limit \(4000\)/)
    // One of them alone: no note.
    expect(fit(example, { strategy: tokenLimited({ limit: 2000 }) }).notes).toBeUndefined()
  })

  it('validate keeps warnings apart: a list with a warning only is valid', () => {
    const twoUsers: Message[] = [
      { role: 'user', content: 'Move reservation ZFA04Y.' },
      { role: 'user', content: 'And the bags?' },
    ]
    const checked = validate(twoUsers, { provider: 'anthropic' })
    expect(checked.valid).toBe(true)
    expect(checked.errors).toEqual([])
    expect(checked.warnings.map((p) => p.code)).toEqual(['consecutive-same-role'])
    // Still the list of every problem, as before.
    expect(checked).toHaveLength(1)
    const broken = validate([{ role: 'tool', toolCallId: 'x', content: 'r' }])
    expect(broken.valid).toBe(false)
    expect(broken.errors.map((p) => p.code)).toEqual(['orphan-tool-result'])
  })

  it("the README's first block prints what its comments say", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const said = /console\.log\(result\.fates\[0\]\) \/\/ (\{[^}]*\})/.exec(readme)?.[1]
    expect(said).toBeDefined()
    const history = fromOpenAIChat([
      { role: 'system', content: 'You are an airline agent.' },
      { role: 'user', content: 'Move reservation ZFA04Y to the 9am flight.' },
    ])
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'get_reservation_details', parameters: { type: 'object' } },
      },
    ]
    const result = fit(history, { model: 'gpt-4o', reserve: 1000, tools })
    const shown = `{ fate: '${result.fates[0]?.fate}', tokens: ${result.fates[0]?.tokens}, position: ${result.fates[0]?.position} }`
    expect(said).toBe(shown)
  })

  it('an SDK message in a context without a format: the hint names the format in words', async () => {
    const ctx = new ChatContext({ budget: 1000 })
    const reply = { role: 'assistant', content: null, tool_calls: [] }
    await expect(async () => ctx.addMessage(reply)).rejects.toThrow(
      /looks like an OpenAI chat message: pass format: 'openai-chat'/,
    )
  })
})

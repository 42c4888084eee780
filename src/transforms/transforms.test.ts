import { describe, expect, it } from 'vitest'
import { tauBench } from '../../test/tau-bench.js'
import { fit } from '../context/fit.js'
import type { Message } from '../messages/message.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { errorsOf, validate } from '../providers/validate.js'
import { tokenLimited } from '../strategies/token-limited.js'
import { exactCounter } from '../tokens/counters.js'
import { CLEARED, clearToolResults } from './clear-tool-results.js'
import { dropThoughts } from './drop-thoughts.js'
import { pipe } from './pipe.js'
import { removeToolExchanges } from './remove-tool-exchanges.js'
import { truncateMessages } from './truncate-messages.js'

const sys: Message = { role: 'system', content: 'agent' }
const user = (t: string): Message => ({ role: 'user', content: t })
const exchange = (id: string, tool: string, size: number): Message[] => [
  { role: 'assistant', toolCalls: [{ id, name: tool, arguments: `{"q":"${id}"}` }] },
  { role: 'tool', toolCallId: id, toolName: tool, content: `result ${id} `.repeat(size) },
]
const h: Message[] = [
  sys,
  user('go'),
  ...exchange('a', 'search', 200),
  ...exchange('b', 'memory', 200),
  ...exchange('c', 'search', 200),
  ...exchange('d', 'search', 200),
  user('and?'),
]

describe('clearToolResults (Anthropic context editing, client-side)', () => {
  it('clears the oldest results, keeps the newest `keep` exchanges and excluded tools, stays valid', () => {
    const r = fit(h, {
      strategy: 'unbounded',
      transforms: [clearToolResults({ keep: 1, excludeTools: ['memory'] })],
    })
    const contents = r.messages
      .filter((m) => m.role === 'tool')
      .map((m) => (m.content === CLEARED ? 'cleared' : 'kept'))
    expect(contents).toEqual(['cleared', 'kept', 'cleared', 'kept'])
    expect(errorsOf(validate(r.messages))).toEqual([])
    expect(r.changed.map((c) => c.reason)).toEqual(['cleared', 'cleared'])
    expect(h[3]).toMatchObject({ content: expect.stringMatching(/^result a/) })
  })
  it('does nothing under the trigger, and clears only as much as needed, in batches of clearAtLeast', () => {
    const total = exactCounter().countMessages(h)
    expect(
      fit(h, {
        strategy: 'unbounded',
        transforms: [clearToolResults({ trigger: total + 10, keep: 0 })],
      }).changed,
    ).toEqual([])
    const justOver = fit(h, {
      strategy: 'unbounded',
      transforms: [clearToolResults({ trigger: total - 50, keep: 0 })],
    })
    expect(justOver.changed).toHaveLength(1)
    const batch = fit(h, {
      strategy: 'unbounded',
      transforms: [clearToolResults({ trigger: total - 50, keep: 0, clearAtLeast: 1500 })],
    })
    expect(batch.changed.length).toBeGreaterThan(1)
  })
  it('clearAtLeast: when the old results cannot free that many tokens, nothing is cleared (the prompt cache is kept)', () => {
    const total = exactCounter().countMessages(h)
    const some = fit(h, {
      strategy: 'unbounded',
      transforms: [clearToolResults({ trigger: total - 50, keep: 3 })],
    })
    expect(some.changed).toHaveLength(1)
    const none = fit(h, {
      strategy: 'unbounded',
      transforms: [clearToolResults({ trigger: total - 50, keep: 3, clearAtLeast: 5000 })],
    })
    expect(none.changed).toEqual([])
  })
  it('clearInputs replaces the call arguments too', () => {
    const r = fit(h, {
      strategy: 'unbounded',
      transforms: [clearToolResults({ keep: 3, clearInputs: true })],
    })
    expect(r.messages[2]).toMatchObject({ toolCalls: [{ arguments: '{}' }] })
  })
})

describe('truncateMessages (AutoGen MessageTokenLimiter)', () => {
  it.each(['head', 'tail', 'both'] as const)(
    'cuts long messages to the cap with a marker (%s)',
    (keep) => {
      const r = fit(h, {
        strategy: 'unbounded',
        transforms: [truncateMessages({ maxTokensPerMessage: 100, keep })],
      })
      const c = exactCounter()
      for (const m of r.messages)
        expect(c.countText(String(m.content ?? ''))).toBeLessThanOrEqual(140)
      const cut = String(r.messages[3]?.content)
      expect(cut).toMatch(/\[\.\.\. \d+ characters \(about \d+ tokens\) cut \.\.\.\]/)
      if (keep === 'head') expect(cut.startsWith('result a')).toBe(true)
      expect(r.changed.every((x) => x.reason === 'truncated')).toBe(true)
    },
  )
})

describe('truncateMessages on content parts', () => {
  it('cuts each long text part and leaves images alone', () => {
    const parts: Message[] = [
      sys,
      {
        role: 'user',
        content: [
          { type: 'text', text: 'report '.repeat(500) },
          { type: 'image', url: 'https://example.com/a.png' },
          { type: 'text', text: 'short question?' },
        ],
      },
    ]
    const r = fit(parts, {
      strategy: 'unbounded',
      transforms: [truncateMessages({ maxTokensPerMessage: 50 })],
    })
    const content = r.messages[1]?.content as Exclude<Message['content'], string | undefined>
    expect(content).toHaveLength(3)
    expect(content[0]).toMatchObject({
      text: expect.stringMatching(/characters \(about \d+ tokens\) cut/),
    })
    expect(content[1]).toEqual({ type: 'image', url: 'https://example.com/a.png' })
    expect(content[2]).toEqual({ type: 'text', text: 'short question?' })
    expect(r.changed).toEqual([{ index: 1, position: 1, reason: 'truncated' }])
  })
})

describe('removeToolExchanges and pipe', () => {
  it('removes completed exchanges before the newest', () => {
    const r = fit(h, { strategy: 'unbounded', transforms: [removeToolExchanges()] })
    expect(r.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user'])
    expect(r.fates[2]).toMatchObject({ fate: 'dropped', reason: 'calls-removed' })
  })
  it('pipe runs transforms, then the strategy', () => {
    const r = fit(h, {
      strategy: pipe(dropThoughts(), truncateMessages({ maxTokensPerMessage: 50 }), tokenLimited()),
      budget: 500,
    })
    expect(r.kept).toContain(3)
    expect(r.tokens.total).toBeLessThanOrEqual(500)
  })
  it('on τ-bench every transform keeps the output valid', () => {
    for (const t of tauBench().slice(0, 50)) {
      const m = fromOpenAIChat(t.traj)
      for (const transforms of [
        [clearToolResults({ keep: 1 })],
        [truncateMessages({ maxTokensPerMessage: 60 })],
        [removeToolExchanges()],
      ]) {
        expect(errorsOf(validate(fit(m, { strategy: 'unbounded', transforms }).messages))).toEqual(
          [],
        )
      }
    }
  })
})

import { describe, expect, it } from 'vitest'
import { openAIChatViolations } from '../../test/oracle/openai.js'
import { type Message, messageText } from '../messages/message.js'
import { toOpenAIChat } from '../providers/openai-chat/codec.js'
import { tokenLimited } from '../strategies/token-limited.js'
import type { Strategy, View } from '../strategies/types.js'
import type { TokenCounter } from '../tokens/counter.js'
import { exactCounter } from '../tokens/counters.js'
import { ChatContext } from './chat/chat-context.js'
import { fit } from './fit.js'

const call = (id: string): Message => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id, name: 'lookup', arguments: '{"q":"x"}' }],
})
const result = (id: string, text: string): Message => ({
  role: 'tool',
  toolCallId: id,
  content: text,
})

/** A history with every unit kind: preamble, messages, exchanges, a system message mid-way. */
function history(): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You help with bookings.' }]
  for (let k = 0; k < 12; k++) {
    out.push({ role: 'user', content: `Question ${k} 🧭 about HAT${k}` })
    if (k % 3 === 0) out.push(call(`c.${k}`), result(`c.${k}`, `found ${k}`))
    if (k === 5) out.push({ role: 'system', content: 'Be brief.' })
    out.push({ role: 'assistant', content: `Answer ${k}` })
  }
  return out
}

/** What a strategy written against the view's arrays sees, and what the methods say. */
function probe(seen: { arrays?: unknown; methods?: unknown }): Strategy {
  const base = tokenLimited()
  return {
    ...base,
    select(view: View) {
      const n = view.unitCount
      seen.methods = {
        units: Array.from({ length: n }, (_, u) => ({
          kind: view.kind(u),
          start: view.start(u),
          end: view.end(u),
          complete: true,
        })),
        tokens: view.messages.map((_, i) => view.messageTokens(i)),
        unitTokens: Array.from({ length: n }, (_, u) => view.unitSize(u)),
        unitPrefix: Array.from({ length: n + 1 }, (_, k) => view.rangeTokens(0, k)),
      }
      seen.arrays = {
        units: view.units,
        tokens: view.tokens,
        unitTokens: view.unitTokens,
        unitPrefix: view.unitPrefix,
      }
      return base.select(view)
    },
  }
}

describe('View', () => {
  it('its arrays, made on first read, say what its methods say', () => {
    const seen: { arrays?: unknown; methods?: unknown } = {}
    fit(history(), { strategy: probe(seen), budget: 100_000 })
    expect(seen.arrays).toEqual(seen.methods)
    const { units } = seen.methods as { units: { kind: string }[] }
    expect(new Set(units.map((u) => u.kind))).toEqual(new Set(['system', 'message', 'exchange']))
  })

  it('units tile the messages in order, and the sums add up, in fit and in ChatContext', () => {
    for (const run of ['fit', 'context'] as const) {
      const seen: { arrays?: unknown; methods?: unknown } = {}
      const h = history()
      if (run === 'fit') fit(h, { strategy: probe(seen), budget: 100_000 })
      else new ChatContext({ strategy: probe(seen), budget: 100_000, initialMessages: h }).fit()
      const m = seen.methods as {
        units: { start: number; end: number }[]
        tokens: number[]
        unitPrefix: number[]
      }
      let at = 0
      for (const u of m.units) {
        expect(u.start).toBe(at)
        expect(u.end).toBeGreaterThan(u.start)
        at = u.end
      }
      expect(at).toBe(m.tokens.length)
      const total = m.tokens.reduce((a, b) => a + b, 0)
      expect(m.unitPrefix.at(-1)).toBe(total)
      expect(m.unitPrefix[0]).toBe(0)
    }
  })

  it('names a unit or message outside the view in a RangeError', () => {
    let view: View | undefined
    const base = tokenLimited()
    fit(history(), {
      budget: 100_000,
      strategy: {
        ...base,
        select(v: View) {
          view = v
          return base.select(v)
        },
      },
    })
    const v = view as View
    for (const bad of [-1, v.unitCount, v.unitCount + 5]) {
      expect(() => v.start(bad)).toThrow(RangeError)
      expect(() => v.end(bad)).toThrow(RangeError)
      expect(() => v.kind(bad)).toThrow(RangeError)
      expect(() => v.unitSize(bad)).toThrow(RangeError)
    }
    expect(() => v.messageTokens(v.messages.length)).toThrow(RangeError)
    expect(Number.isNaN(v.rangeTokens(0, v.unitCount + 1))).toBe(true)
  })
})

describe('counts a counter gives are kept as given', () => {
  const base = exactCounter()
  const history = (): Message[] => [
    { role: 'system', content: 'Be brief.' },
    ...Array.from(
      { length: 12 },
      (_, k): Message => ({
        role: k % 2 ? 'assistant' : 'user',
        content: `turn ${k} ${'x'.repeat(k)}`,
      }),
    ),
  ]
  const sum = (ms: readonly Message[], c: TokenCounter) =>
    ms.reduce((n, m) => n + c.countMessage(m), 0)

  it('fractional counts: fit and ChatContext send the same messages, within the budget', () => {
    const counter: TokenCounter = {
      ...base,
      countMessage: (m) => 1.5 + messageText(m).length / 4,
    }
    const h = history()
    let fitted = 0
    for (let budget = 12; budget <= 80; budget++) {
      const outcome = (run: () => Message[]) => {
        try {
          return run()
        } catch (e) {
          return (e as Error).name
        }
      }
      const viaFit = outcome(() => fit(h, { budget, counter }).messages)
      const ctx = new ChatContext({ budget, counter, initialMessages: h })
      expect(outcome(() => ctx.getMessagesSync())).toEqual(viaFit)
      if (typeof viaFit === 'string') continue
      fitted++
      expect(sum(viaFit, counter) + counter.replyPriming).toBeLessThanOrEqual(budget)
    }
    expect(fitted).toBeGreaterThan(40)
  })

  it('a count past 2^31 is not wrapped: that message is dropped by both', () => {
    const huge = 'a message the counter calls huge'
    const counter: TokenCounter = {
      ...base,
      countMessage: (m) => (messageText(m) === huge ? 2 ** 31 + 5 : base.countMessage(m)),
    }
    const h = history()
    h.splice(3, 0, { role: 'user', content: huge }, { role: 'assistant', content: 'ok' })
    const viaFit = fit(h, { budget: 500, counter })
    const ctx = new ChatContext({ budget: 500, counter, initialMessages: h })
    expect(ctx.getMessagesSync()).toEqual(viaFit.messages)
    expect(viaFit.messages.some((m) => messageText(m) === huge)).toBe(false)
    expect(viaFit.fates[3]?.tokens).toBe(2 ** 31 + 5)
  })
})

describe('a strategy that reads the arrays, in a context that grows', () => {
  it('sees arrays equal to the methods after every append (exchanges completed result by result), and the same array objects from turn to turn', () => {
    const seen: { arrays?: unknown; methods?: unknown } = {}
    const ctx = new ChatContext({ strategy: probe(seen), budget: 100_000 })
    const prefixes = new Set<unknown>()
    const turn = (m: Message) => {
      ctx.addMessage(m)
      ctx.getMessagesSync()
      expect(seen.arrays).toEqual(seen.methods)
      prefixes.add((seen.arrays as { unitPrefix: unknown }).unitPrefix)
    }
    turn({ role: 'system', content: 'You help with bookings.' })
    for (let k = 0; k < 8; k++) {
      turn({ role: 'user', content: `Question ${k}` })
      turn({
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: `a.${k}`, name: 'lookup', arguments: '{}' },
          { id: `b.${k}`, name: 'lookup', arguments: '{}' },
        ],
      })
      turn(result(`a.${k}`, `first ${k}`))
      turn(result(`b.${k}`, `second ${k} ${'y'.repeat(k * 20)}`))
      turn({ role: 'assistant', content: `Answer ${k}` })
    }
    expect(prefixes.size).toBe(1)
  })
})

describe('a message appended while a fit is under way', () => {
  const base: Message[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'find flights' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'c1', name: 'search', arguments: '{}' },
        { id: 'c2', name: 'search', arguments: '{}' },
      ],
    },
    result('c1', 'r1'),
  ]

  it('never breaks the fit under way, whichever microtask it lands in, for sync and async strategies', async () => {
    const inner = tokenLimited()
    const awaiting: Strategy = {
      ...inner,
      name: 'awaiting',
      async: true,
      select: async (v: View) => inner.select(v),
    }
    const lengths = new Set<number>()
    for (const strategy of [inner, awaiting])
      for (const call of ['fitAsync', 'getMessages'] as const)
        for (let ticks = 0; ticks < 8; ticks++) {
          const ctx = new ChatContext({ budget: 2000, strategy, initialMessages: base })
          const running = call === 'fitAsync' ? ctx.fitAsync() : ctx.getMessages()
          const adding = (async () => {
            for (let i = 0; i < ticks; i++) await null
            ctx.addMessage(result('c2', 'r2'))
          })()
          const out = await running
          await adding
          const messages = 'messages' in out ? out.messages : out
          // What was sent is the history before the append or after it, whole either way.
          lengths.add(messages.length)
          expect(openAIChatViolations(toOpenAIChat(messages))).toEqual([])
          const calls = messages[2]?.role === 'assistant' ? (messages[2].toolCalls?.length ?? 0) : 0
          // Before the append the open call is taken out; after it, both calls go with results.
          expect(messages.length).toBe(3 + calls)
          expect(messages[0]).toEqual(base[0])
        }
    expect([...lengths].sort()).toEqual([4, 5])
  })

  it('a strategy that says it never waits but returns a promise is a typed error', async () => {
    const inner = tokenLimited()
    const liar: Strategy = { ...inner, async: false, select: async (v: View) => inner.select(v) }
    const ctx = new ChatContext({ budget: 2000, strategy: liar, initialMessages: base })
    await expect(ctx.getMessages()).rejects.toThrow(/declares async: false/)
  })
})

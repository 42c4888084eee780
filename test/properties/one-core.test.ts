import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { type FitOptions, fit } from '../../src/context/fit.js'
import type { Message } from '../../src/messages/message.js'
import { deepFreeze, history, RUNS, SEED } from './generators.js'

type Provider = 'openai' | 'anthropic'

const shot = { type: 'image' as const, url: 'https://example.com/s.png', width: 640, height: 400 }

/**
 * The providers' published rules that the three reported cases broke, written apart from
 * the library's `validate`: Anthropic tool_use ids match ^[a-zA-Z0-9_-]+$ and its first
 * message is the user's; no provider takes one id twice in one assistant message.
 */
function wireProblems(messages: readonly Message[], provider: Provider): string[] {
  const problems: string[] = []
  messages.forEach((m, i) => {
    if (m.role !== 'assistant' || !m.toolCalls) return
    const ids = m.toolCalls.map((c) => c.id)
    if (new Set(ids).size !== ids.length) problems.push(`message ${i}: an id twice`)
    if (provider === 'anthropic')
      for (const id of ids)
        if (!/^[a-zA-Z0-9_-]+$/.test(id)) problems.push(`message ${i}: bad id ${id}`)
  })
  if (provider === 'anthropic') {
    const first = messages.find((m) => m.role !== 'system')
    if (first && first.role !== 'user') problems.push(`first message is ${first.role}`)
  }
  return problems
}

/**
 * Generated histories made nastier: dotted ids, an id twice in one message, an assistant
 * first, screenshots in tool results (moved to a user message for OpenAI chat) and an image
 * in the system prompt (taken out for both).
 */
const nasty = fc
  .record({
    h: history,
    dots: fc.boolean(),
    twice: fc.boolean(),
    assistantFirst: fc.boolean(),
    screenshots: fc.boolean(),
  })
  .map(({ h, dots, twice, assistantFirst, screenshots }) => {
    let out = h.map((m, k): Message => {
      if (screenshots && k % 2 === 0 && (m.role === 'tool' || m.role === 'system'))
        m = {
          ...m,
          content: [
            { type: 'text', text: typeof m.content === 'string' ? m.content : 'shot' },
            { type: 'image', url: 'https://example.com/s.png', width: 320, height: 200 },
          ],
        }
      if (!dots) return m
      if (m.role === 'tool') return { ...m, toolCallId: m.toolCallId.replace('_', '.') }
      if (m.role === 'assistant' && m.toolCalls)
        return { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, id: c.id.replace('_', '.') })) }
      return m
    })
    if (twice) {
      const k = out.findIndex((m) => m.role === 'assistant' && m.toolCalls?.length)
      const call = out[k]
      if (call?.role === 'assistant' && call.toolCalls?.[0])
        out[k] = { ...call, toolCalls: [...call.toolCalls, call.toolCalls[0]] }
    }
    if (assistantFirst) {
      let lead = 0
      while (out[lead]?.role === 'system') lead++
      out = [
        ...out.slice(0, lead),
        { role: 'assistant', content: 'Welcome back.' },
        ...out.slice(lead),
      ]
    }
    return out
  })

const strategies: fc.Arbitrary<Partial<FitOptions>> = fc.oneof(
  fc.constant({}),
  fc.record({ dropFrom: fc.constantFrom('oldest' as const, 'middle' as const) }),
  fc.constant({ stable: true }),
  fc.record({ strategy: fc.constant('buffered' as const), size: fc.integer({ min: 1, max: 8 }) }),
  fc.record({
    strategy: fc.constant('headAndTail' as const),
    head: fc.integer({ min: 0, max: 3 }),
    tail: fc.integer({ min: 0, max: 6 }),
  }),
  fc.record({
    strategy: fc.constant('userTurns' as const),
    maxTurns: fc.integer({ min: 1, max: 3 }),
    removeToolExchanges: fc.boolean(),
  }),
  fc.constant({ strategy: 'scoreBased' as const }),
  fc.constant({ strategy: 'mostRelevant' as const, query: 'refund' }),
)

/** The messages, or the error's class and text: what a caller sees either way. */
function outcome(run: () => Message[]): unknown {
  try {
    return run()
  } catch (e) {
    return { error: (e as Error).name, message: (e as Error).message }
  }
}

function compareAfterEveryAppend(h: readonly Message[], options: FitOptions): void {
  const ctx = new ChatContext(options)
  const grown: Message[] = []
  for (let i = 0; i < h.length; i++) {
    const m = h[i] as Message
    ctx.addMessage(m)
    grown.push(m)
    // Three ways in: the context, fit on one array pushed to (the cached index), fit on fresh objects.
    const fromContext = outcome(() => ctx.getMessagesSync())
    const fromGrown = outcome(() => fit(grown, options).messages)
    const fresh = outcome(() => fit(structuredClone(grown), options).messages)
    expect(fromContext, `after message ${i}`).toEqual(fresh)
    expect(fromGrown, `after message ${i}`).toEqual(fresh)
    if (Array.isArray(fresh))
      expect(
        wireProblems(fresh, options.provider === 'anthropic' ? 'anthropic' : 'openai'),
      ).toEqual([])
  }
}

describe('ChatContext and fit are one core', () => {
  it.each<[string, Provider, Message[]]>([
    [
      'a call id with a dot (Anthropic)',
      'anthropic',
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', toolCalls: [{ id: 'call.1', name: 'weather', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'call.1', content: 'Sunny' },
        { role: 'assistant', content: 'Sunny.' },
        { role: 'user', content: 'Thanks' },
      ],
    ],
    [
      '[system, assistant] (Anthropic)',
      'anthropic',
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'assistant', content: 'Hello, how can I help?' },
        { role: 'user', content: 'Book a flight' },
      ],
    ],
    [
      'a screenshot in a tool result, results arriving one by one (OpenAI)',
      'openai',
      [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }, shot] },
        { role: 'user', content: 'Look at both tabs' },
        {
          role: 'assistant',
          toolCalls: [
            { id: 'c1', name: 'screenshot', arguments: '{"tab":1}' },
            { id: 'c2', name: 'screenshot', arguments: '{"tab":2}' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', toolName: 'screenshot', content: [shot] },
        {
          role: 'tool',
          toolCallId: 'c2',
          toolName: 'screenshot',
          content: [{ type: 'text', text: 'tab 2' }, shot],
        },
        { role: 'assistant', content: 'Two pages.' },
        { role: 'user', content: 'ok' },
      ],
    ],
    [
      'one call id twice in one assistant message (OpenAI)',
      'openai',
      [
        { role: 'user', content: 'Two lookups' },
        {
          role: 'assistant',
          toolCalls: [
            { id: 'c1', name: 'lookup', arguments: '{"q":1}' },
            { id: 'c1', name: 'lookup', arguments: '{"q":2}' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', content: 'one' },
        { role: 'tool', toolCallId: 'c1', content: 'two' },
        { role: 'assistant', content: 'Done.' },
        { role: 'user', content: 'ok' },
      ],
    ],
  ])('%s: the same valid messages after every append', (_name, provider, h) => {
    // No budget: everything, asked for by name (fit refuses to guess it).
    for (const budget of [undefined, 2000])
      compareAfterEveryAppend(
        deepFreeze(h),
        budget === undefined ? { provider, strategy: 'unbounded' } : { provider, budget },
      )
    // And the reported lists themselves are fixed, not only agreed on.
    const ctx = new ChatContext({ provider })
    ctx.addMessages(h)
    expect(wireProblems(ctx.getMessagesSync(), provider)).toEqual([])
  })

  it(`identical messages on generated histories after every append, both providers (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        nasty,
        strategies,
        fc.integer({ min: 60, max: 5000 }),
        fc.constantFrom('openai' as const, 'anthropic' as const),
        (h, strategy, budget, provider) => {
          compareAfterEveryAppend(deepFreeze(h), { ...strategy, budget, provider } as FitOptions)
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })

  it('fit on an array edited in the middle does not reuse what it indexed before', () => {
    const h: Message[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', toolCalls: [{ id: 'x', name: 'f', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'x', content: 'r' },
      { role: 'user', content: 'b' },
    ]
    expect(fit(h, { strategy: 'unbounded' }).messages).toHaveLength(4)
    // The result goes: the call's id no longer matches, so the call and the result go.
    h[2] = { role: 'tool', toolCallId: 'y', content: 'r' }
    expect(fit(h, { strategy: 'unbounded' }).messages).toEqual([h[0], h[3]])
    h.length = 1
    expect(fit(h, { strategy: 'unbounded' }).messages).toEqual([h[0]])
  })

  it(`conversations sharing one system prompt object, fitted in turns, never see each other (${RUNS} runs)`, () => {
    const system: Message = deepFreeze({
      role: 'system',
      content: 'One prompt for every conversation.',
    })
    fc.assert(
      fc.property(history, history, fc.integer({ min: 200, max: 4000 }), (a, b, budget) => {
        const one: Message[] = [system]
        const two: Message[] = [system]
        const longest = Math.max(a.length, b.length)
        for (let i = 0; i < longest; i++) {
          for (const [arr, src] of [
            [one, a],
            [two, b],
          ] as const) {
            const m = src[i]
            if (!m) continue
            arr.push(m)
            // Half the calls on the array pushed to, half on a new array of the same objects.
            const given = i % 2 ? arr : [...arr]
            expect(outcome(() => fit(given, { budget }).messages)).toEqual(
              outcome(() => fit(structuredClone(arr), { budget }).messages),
            )
          }
        }
      }),
      { numRuns: Math.ceil(RUNS / 3), seed: SEED },
    )
  })
})

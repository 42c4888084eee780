import fc from 'fast-check'
import type { Message } from '../../src/messages/message.js'

const words = [
  'flight',
  'booking',
  'Lisbon',
  'refund',
  'gift card',
  '€120',
  'ok',
  '✈️',
  '日本語',
  'baggage',
  'HAT001',
  'ünïcödé',
  '<|endoftext|>',
]
const text = (max: number) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .array(fc.constantFrom(...words), { minLength: 1, maxLength: max })
        .map((w) => w.join(' ')),
    },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.integer({ min: 500, max: 3000 }).map((n) => 'x'.repeat(n)) },
  )

/** One step of a conversation: becomes one or more messages. */
const step = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('user' as const),
      text: text(20),
      image: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('assistant' as const),
      text: text(20),
      thought: fc.option(text(10), { nil: undefined }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('exchange' as const),
      calls: fc.integer({ min: 1, max: 3 }),
      sizes: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 3, maxLength: 3 }),
      error: fc.boolean(),
      text: fc.option(text(5), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('orphan' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unanswered' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('system' as const), text: text(8) }) },
)

/** Realistic histories, including the broken ones real inputs contain. */
export const history: fc.Arbitrary<Message[]> = fc
  .record({
    preamble: fc.integer({ min: 0, max: 2 }),
    steps: fc.array(step, { minLength: 1, maxLength: 40 }),
    reuseIds: fc.boolean(),
  })
  .map(({ preamble, steps, reuseIds }) => {
    const out: Message[] = []
    for (let k = 0; k < preamble; k++)
      out.push({ role: 'system', content: `Policy ${k}: be precise about flights and refunds.` })
    let id = 0
    steps.forEach((s, k) => {
      switch (s.kind) {
        case 'user':
          out.push(
            s.image
              ? {
                  role: 'user',
                  content: [
                    { type: 'text', text: s.text },
                    { type: 'image', url: 'https://example.com/a.png', width: 800, height: 600 },
                  ],
                }
              : { role: 'user', content: s.text || 'hi' },
          )
          break
        case 'assistant':
          out.push({
            role: 'assistant',
            content: s.text || 'ok',
            ...(s.thought !== undefined && { thought: s.thought }),
          })
          break
        case 'system':
          out.push({ role: 'system', content: s.text || 'note' })
          break
        case 'exchange': {
          const ids = Array.from({ length: s.calls }, () =>
            reuseIds && k % 3 === 0 ? `call_${id % 2}` : `call_${id++}`,
          )
          out.push({
            role: 'assistant',
            ...(s.text && { content: s.text }),
            toolCalls: ids.map((c) => ({ id: c, name: 'lookup', arguments: `{"q":"${c}"}` })),
          })
          ids.forEach((c, j) => {
            out.push({
              role: 'tool',
              toolCallId: c,
              toolName: 'lookup',
              content: 'result '.repeat(s.sizes[j] ?? 1),
              ...(s.error && j === 0 && { isError: true }),
            })
          })
          break
        }
        case 'orphan':
          out.push({ role: 'tool', toolCallId: `ghost_${k}`, content: 'late result' })
          break
        case 'unanswered':
          out.push({
            role: 'assistant',
            toolCalls: [{ id: `lost_${k}`, name: 'lookup', arguments: '{}' }],
          })
          break
      }
    })
    return out
  })

/** Options for every strategy that can be named; a new strategy must be added here. */
export const strategyOptions: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  unbounded: fc.constant({}),
  buffered: fc.record({ size: fc.integer({ min: 1, max: 25 }) }),
  headAndTail: fc.record({
    head: fc.integer({ min: 0, max: 6 }),
    tail: fc.integer({ min: 0, max: 12 }),
  }),
  tokenLimited: fc.record({ dropFrom: fc.constantFrom('oldest', 'middle'), stable: fc.boolean() }),
  userTurns: fc.record({
    maxTurns: fc.integer({ min: 1, max: 5 }),
    removeToolExchanges: fc.boolean(),
  }),
  scoreBased: fc.record({
    keepRate: fc.double({ min: 0.5, max: 1, noNaN: true }),
    neighbours: fc.boolean(),
  }),
  mostRelevant: fc.record({
    query: fc.option(fc.constantFrom('refund', 'flight Lisbon', 'baggage'), { nil: undefined }),
  }),
  summarizing: fc.record({
    trigger: fc.constantFrom(0.5, 0.9),
    leaveLastN: fc.integer({ min: 0, max: 4 }),
  }),
}

/** Freezes a value and everything in it: any write by the library throws. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

/** Changes every object and array reachable from `value`; throws if any is frozen. */
export function mutateAll(value: unknown, seen = new Set<object>()): void {
  if (!value || typeof value !== 'object' || seen.has(value)) return
  seen.add(value)
  if (Array.isArray(value)) {
    for (const v of value) mutateAll(v, seen)
    value.push('edited')
    return
  }
  const obj = value as Record<string, unknown>
  for (const k of Object.keys(obj)) {
    mutateAll(obj[k], seen)
    if (typeof obj[k] === 'string') obj[k] = `${obj[k]} edited`
  }
  obj.edited = true
}

export const RUNS = Number(process.env.PROPS_RUNS ?? 60)
export const SEED = Number(process.env.PROPS_SEED ?? 20261122)

import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import fc from 'fast-check'
import OpenAI from 'openai'
import { afterAll, describe, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../../../test/helpers/counting-server.js'
import { ContextOverflowError, CountingEndpointError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { exactCounter } from '../../tokens/counters.js'
import { fit } from '../fit.js'
import { countingEndpoint } from './counting-endpoint.js'
import type { CountingEndpointOptions } from './counting-types.js'
import { fitCounted } from './fit-counted.js'

// The provider is a loopback server counting by its own rule (test/helpers/counting-server.ts):
// o200k tokens of every string sent × `scale`, plus 4 an item and 10 a request. The local
// counter is o200k, so `scale` is how far the local count is under the provider's.
const servers = new Map<number, CountingServer>()
async function serverAt(scale: number): Promise<CountingServer> {
  let s = servers.get(scale)
  if (!s) {
    s = await startCountingServer(scale)
    servers.set(scale, s)
  }
  return s
}
afterAll(async () => {
  for (const s of servers.values()) await s.close()
})

const anthropicTools = [
  {
    name: 'get_reservation',
    description: 'Look up a reservation.',
    input_schema: { type: 'object', properties: { reservation_id: { type: 'string' } } },
  },
]
const openaiTools = [
  {
    type: 'function',
    name: 'get_reservation',
    description: 'Look up a reservation.',
    parameters: { type: 'object', properties: { reservation_id: { type: 'string' } } },
    strict: false,
  },
]
const geminiTools = [
  {
    functionDeclarations: [
      {
        name: 'get_reservation',
        description: 'Look up a reservation.',
        parameters: { type: 'object', properties: { reservation_id: { type: 'string' } } },
      },
    ],
  },
]

/** Every provider API with a counting endpoint, through its real SDK. */
const providers: { name: string; make: (url: string) => CountingEndpointOptions }[] = [
  {
    name: 'Anthropic',
    make: (url) => ({
      provider: 'anthropic',
      client: new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 }),
      model: 'claude-sonnet-4-5',
      tools: anthropicTools,
    }),
  },
  {
    name: 'OpenAI Responses',
    make: (url) => ({
      provider: 'openai-responses',
      client: new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0 }),
      model: 'gpt-5',
      tools: openaiTools,
    }),
  },
  {
    name: 'Gemini Developer API',
    make: (url) => ({
      provider: 'gemini',
      client: new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: url } }),
      model: 'gemini-2.5-flash',
    }),
  },
  {
    name: 'Gemini on Vertex',
    make: (url) => ({
      provider: 'gemini',
      client: new GoogleGenAI({ vertexai: true, apiKey: 'k', httpOptions: { baseUrl: url } }),
      model: 'gemini-2.5-flash',
      tools: geminiTools,
    }),
  },
]

/**
 * Text with the usual traps: astral and combining characters, special-token text, blanks, long
 * runs. Short, so that a turn is under a tenth of the room even at 4 times: a fit moves by whole
 * turns, and no fit can fill 90% of a room a turn is larger than a tenth of.
 */
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'Change flight HAT170 to SEA.',
        '𝔸𝔹 😀 🛫',
        '<|endoftext|>',
        'e\u0301\u0301',
        ' ',
        '\n\n',
        '{"seat":"12A","note":null}',
        'x'.repeat(40),
        '東京から大阪まで',
        '__proto__ constructor',
      ),
      fc.string({ maxLength: 8, unit: 'grapheme' }),
    ),
    { minLength: 1, maxLength: 2 },
  )
  .map((parts) => parts.join(' '))

const turn = (t: number) =>
  fc.tuple(text, text, fc.boolean()).map(([ask, reply, tool]): Message[] => {
    const user: Message = { role: 'user', content: `Turn ${t}: ${ask}` }
    if (!tool) return [user, { role: 'assistant', content: reply }]
    return [
      user,
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: `call_${t}`,
            name: 'get_reservation',
            arguments: JSON.stringify({ reservation_id: `R${t}` }),
          },
        ],
      },
      { role: 'tool', toolCallId: `call_${t}`, toolName: 'get_reservation', content: reply },
      { role: 'assistant', content: `Done ${t}.` },
    ]
  })

const history = (turns: number) =>
  fc
    .tuple(...Array.from({ length: turns }, (_, t) => turn(t)))
    .map((ts): Message[] => [
      { role: 'system', content: 'You are an airline agent. Be brief.' },
      ...ts.flat(),
    ])

describe.each(providers)('fitCounted through $name', ({ make }) => {
  it('for local counts under by 1 to 4 times, the request is within the room by the provider’s count, and fills 90% of it when the history is larger', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Under-counts from 1 to 4 times, in steps (one server per step).
        fc.integer({ min: 0, max: 12 }).map((k) => 1 + k / 4),
        fc.oneof(history(3), history(12), history(60)),
        fc.integer({ min: 4_000, max: 10_000 }),
        fc.boolean(),
        async (scale, messages, room, twice) => {
          const server = await serverAt(scale)
          const options = make(server.url)
          const endpoint = countingEndpoint({ ...options, counter: exactCounter() })
          const copy = structuredClone(messages)
          // Twice: the second fit starts from what the first measured.
          if (twice) await fitCounted(messages, { budget: room, endpoint })
          const r = await fitCounted(messages, { budget: room, endpoint })
          expect(messages).toEqual(copy)
          // The provider's count of what is sent, asked afresh (nothing cached).
          const oracle = countingEndpoint({ ...options, counter: exactCounter(), when: 'always' })
          const sent = await oracle.count(r.messages)
          expect(sent.source).toBe('endpoint')
          expect(sent.tokens).toBeLessThanOrEqual(room)
          if (r.counted.source !== 'estimate') expect(r.counted.tokens).toBe(sent.tokens)
          // Whenever it leaves out what an unbounded fit sends (repair may drop empty messages
          // there too), it fills at least 90% of the room; and a history over the room is cut.
          const all = fit(messages, { strategy: 'unbounded' }).kept
          if (r.kept.length < all.length) expect(sent.tokens).toBeGreaterThanOrEqual(0.9 * room)
          if ((await oracle.count(messages)).tokens > room)
            expect(r.kept.length).toBeLessThan(all.length)
        },
      ),
      { numRuns: 30, endOnFailure: true },
    )
  }, 120_000)
})

/** The documentation's scenario: a 60-message history, a 3,000-token room. */
function airline(): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a travel agent. Answer briefly.' }]
  for (let i = 0; out.length < 61; i++) {
    out.push({
      role: 'user',
      content: `Which seats are left on flight HAT${170 + i} on May ${(i % 28) + 1}? ${'I need a window seat near the front, please. '.repeat(i % 4)}`,
    })
    out.push({
      role: 'assistant',
      content: `Rows 12 and 31 have window seats left on HAT${170 + i}. ${'The flight leaves from gate B12 on time. '.repeat((i * 3) % 5)}`,
    })
  }
  return out
}

describe('fitCounted in the documentation’s scenario', () => {
  for (const scale of [1.5, 2, 2.5, 3]) {
    it(`a local count under by ${scale} times: within 3,000 by the provider's count, at least 2,700 of it`, async () => {
      const server = await serverAt(scale)
      const endpoint = countingEndpoint({
        provider: 'anthropic',
        client: new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 }),
        model: 'claude-sonnet-4-5',
        counter: exactCounter(),
      })
      const r = await fitCounted(airline(), { model: 'claude-sonnet-4-5', budget: 3_000, endpoint })
      expect(r.counted.source).toBe('endpoint')
      expect(r.counted.tokens).toBeLessThanOrEqual(3_000)
      expect(r.counted.tokens).toBeGreaterThanOrEqual(2_700)
      expect(server.countOf(server.requests.at(-1)?.body ?? {})).toBe(r.counted.tokens)
    })
  }

  it('what must be sent does not fit by the provider’s count: the error names the budget given', async () => {
    const server = await serverAt(3)
    const endpoint = countingEndpoint({
      provider: 'anthropic',
      client: new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 }),
      model: 'claude-sonnet-4-5',
      counter: exactCounter(),
    })
    // The newest message alone: under the room by the local count, three times it by the provider's.
    const messages: Message[] = [
      ...airline().slice(0, 5),
      { role: 'user', content: 'Rebook every passenger on HAT170 to SEA. '.repeat(90) },
    ]
    const error = await fitCounted(messages, { budget: 1_500, endpoint }).catch((e) => e)
    expect(error).toBeInstanceOf(ContextOverflowError)
    expect(error.budget).toBe(1_500)
    expect(error.required).toBeGreaterThan(1_500)
    expect(error.message).toMatch(/budget is 1500/)
  })
})

describe('a counting endpoint that does not answer', () => {
  const make = (server: CountingServer, strict?: boolean): CountingEndpointOptions => ({
    provider: 'anthropic',
    client: new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 }),
    model: 'claude-sonnet-4-5',
    counter: exactCounter(),
    timeoutMs: 50,
    ...(strict ? { strict } : {}),
  })

  it('fitCounted falls back to the local estimate after timeoutMs, and says why', async () => {
    const server = await serverAt(2)
    server.hang(1)
    const endpoint = countingEndpoint(make(server))
    const r = await fitCounted(airline(), { budget: 3_000, endpoint })
    expect(r.counted.source).toBe('estimate')
    expect(String(r.counted.error)).toMatch(/no answer within 50 ms/)
    // Nothing was learnt: the next fit asks the provider, and fits by its count.
    const next = await fitCounted(airline(), { budget: 3_000, endpoint })
    expect(next.counted.source).toBe('endpoint')
    expect(next.counted.tokens).toBeLessThanOrEqual(3_000)
  })

  it('with strict, a CountingEndpointError that says it timed out', async () => {
    const server = await serverAt(2)
    server.hang(1)
    const error = await fitCounted(airline(), {
      budget: 3_000,
      endpoint: countingEndpoint(make(server, true)),
    }).catch((e) => e)
    expect(error).toBeInstanceOf(CountingEndpointError)
    expect(error.timedOut).toBe(true)
    expect(error.message).toMatch(/anthropic's counting endpoint failed: no answer within 50 ms/)
  })

  it('a timeout that is not a positive number of milliseconds is a typed error', async () => {
    const server = await serverAt(2)
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '50'])
      expect(() => countingEndpoint({ ...make(server), timeoutMs: timeoutMs as number })).toThrow(
        /option timeoutMs/,
      )
  })
})

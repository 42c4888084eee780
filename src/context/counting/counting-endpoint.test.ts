import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CountingServer, startCountingServer } from '../../../test/helpers/counting-server.js'
import { CountingEndpointError, InvalidInputError, InvalidOptionError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { counterFor, exactCounter } from '../../tokens/counters.js'
import { ChatContext } from '../chat/chat-context.js'
import { countingEndpoint } from './counting-endpoint.js'
import type { CountingEndpointOptions } from './counting-types.js'
import { fitCounted } from './fit-counted.js'

let server: CountingServer
/** A provider that counts twice what o200k does: a local o200k count under-counts it. */
let heavy: CountingServer
beforeAll(async () => {
  server = await startCountingServer(1.25)
  heavy = await startCountingServer(2)
})
afterAll(async () => {
  await server.close()
  await heavy.close()
})

const anthropic = () => new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })
const openai = () => new OpenAI({ apiKey: 'k', baseURL: `${server.url}/v1`, maxRetries: 0 })
const gemini = () => new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: server.url } })
/** A Vertex client (express mode, an API key): its count takes the system instruction and tools. */
const vertex = () =>
  new GoogleGenAI({ vertexai: true, apiKey: 'k', httpOptions: { baseUrl: server.url } })
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

/** An agent conversation with nasty text: astral characters, blank-ish text, hostile keys. */
function conversation(turns: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are an airline agent. 🛫 Be brief.' }]
  for (let t = 0; t < turns; t++) {
    out.push({
      role: 'user',
      content: `Turn ${t}: change flight HAT${100 + t} 𝔸𝔹 to ${'SEA '.repeat((t % 5) + 1)}`,
    })
    out.push({
      role: 'assistant',
      content: t % 2 ? ' ' : '',
      toolCalls: [
        {
          id: `call.${t}`,
          name: 'get_reservation',
          arguments: JSON.stringify({ __proto__x: 'a', reservation_id: `R${t}😀`, constructor: t }),
        },
      ],
    })
    out.push({
      role: 'tool',
      toolCallId: `call.${t}`,
      toolName: 'get_reservation',
      content: JSON.stringify({
        flights: [{ id: `HAT${t}`, seat: '12A', note: 'x'.repeat(t * 7) }],
      }),
    })
    out.push({ role: 'assistant', content: `Done with turn ${t}. Your flight is booked.` })
  }
  return out
}

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

/** Every string of a value (keys, and the protocol's own `type` and `role` words, aside). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) =>
      k === 'type' || k === 'role' ? [] : strings(v),
    )
  return []
}

type Case = {
  name: string
  path: RegExp
  make: () => CountingEndpointOptions
  tools: unknown[]
  /** The system prompt is counted locally and added (the Gemini Developer API counts contents only). */
  offline?: boolean
}
const cases: Case[] = [
  {
    name: 'Anthropic messages.countTokens',
    path: /^\/v1\/messages\/count_tokens$/,
    make: () => ({
      provider: 'anthropic',
      client: anthropic(),
      model: 'claude-sonnet-4-5',
      tools: anthropicTools,
      when: 'always',
    }),
    tools: anthropicTools,
  },
  {
    name: 'OpenAI responses.inputTokens.count',
    path: /^\/v1\/responses\/input_tokens$/,
    make: () => ({
      provider: 'openai-responses',
      client: openai(),
      model: 'gpt-5',
      tools: openaiTools,
      when: 'always',
    }),
    tools: openaiTools,
  },
  {
    name: 'Gemini models.countTokens',
    path: /^\/v1beta\/models\/gemini-2\.5-flash:countTokens$/,
    make: () => ({
      provider: 'gemini',
      client: gemini(),
      model: 'gemini-2.5-flash',
      when: 'always',
    }),
    tools: [],
    offline: true,
  },
  {
    name: 'Gemini on Vertex models.countTokens',
    path: /^\/v1beta1\/publishers\/google\/models\/gemini-2\.5-flash:countTokens$/,
    make: () => ({
      provider: 'gemini',
      client: vertex(),
      model: 'gemini-2.5-flash',
      tools: geminiTools,
      when: 'always',
    }),
    tools: geminiTools,
  },
]

describe.each(cases)('$name through the real SDK on a loopback server', (c) => {
  it('sends the request as it would go, nothing more, and returns the provider count', async () => {
    const endpoint = countingEndpoint(c.make())
    const messages = conversation(3)
    const before = server.requests.length
    const r = await endpoint.count(messages)
    const sent = server.requests.slice(before)
    expect(sent).toHaveLength(1)
    const [req] = sent
    expect(req?.path).toMatch(c.path)
    // The Gemini Developer API counts contents only: the system prompt is counted locally and added.
    const offline = c.offline
      ? counterFor('gemini-2.5-flash').countMessage(messages[0] as Message)
      : 0
    expect(r).toEqual({ tokens: server.countOf(req?.body ?? {}) + offline, source: 'endpoint' })
    // The system prompt goes to the endpoint wherever the endpoint takes it.
    expect(JSON.stringify(req?.body).includes('airline agent')).toBe(!c.offline)
    // Nothing but the request's own text: every string sent is one of the messages', the tools' or the model's.
    const allowed = new Set([...strings(messages), ...strings(c.tools), c.make().model])
    const extra = strings(req?.body).filter(
      (s) => !allowed.has(s) && ![...allowed].some((a) => a.includes(s)),
    )
    expect(extra).toEqual([])
    // Every message's text went: tool arguments (as parsed objects) and results included.
    const body = JSON.stringify(req?.body)
    for (const m of messages)
      if (typeof m.content === 'string' && m.content.trim() !== '' && m.role !== 'system')
        expect(body).toContain(JSON.stringify(m.content).slice(1, -1))
    expect(body).toContain('R2😀')
    expect(body).toContain('get_reservation')
  })

  it('caches per message: a request counted before, or a copy of it, costs no call; a new turn costs one', async () => {
    const endpoint = countingEndpoint(c.make())
    const messages = conversation(4)
    const first = await endpoint.count(messages)
    expect(endpoint.calls).toBe(1)
    expect((await endpoint.count(structuredClone(messages))).source).toBe('cache')
    expect(endpoint.calls).toBe(1)
    const longer = [
      ...messages,
      { role: 'user' as const, content: 'And a window seat 🪟, please.' },
    ]
    const r = await endpoint.count(longer)
    expect(endpoint.calls).toBe(2)
    // The new message's count is what the provider's count grew by.
    const grown = r.tokens - first.tokens
    expect(grown).toBeGreaterThan(4)
    expect(
      endpoint.counter.countMessage(structuredClone(longer[longer.length - 1] as Message)),
    ).toBe(grown)
  })
})

describe('when the endpoint is called', () => {
  const base = (): CountingEndpointOptions => ({
    provider: 'anthropic',
    client: anthropic(),
    model: 'claude-sonnet-4-5',
    counter: exactCounter(),
  })

  it('near (default): only when the estimate is within the margin of the room', async () => {
    const endpoint = countingEndpoint(base())
    const messages = conversation(2)
    const local = exactCounter().countMessages(messages)
    expect((await endpoint.count(messages, { room: local * 10 })).source).toBe('estimate')
    expect((await endpoint.count(messages, { room: Math.ceil(local / 10) })).source).toBe(
      'estimate',
    )
    expect(endpoint.calls).toBe(0)
    expect((await endpoint.count(messages, { room: local })).source).toBe('endpoint')
    expect(endpoint.calls).toBe(1)
  })

  it('never: no call, and the estimate reflects nothing it did not measure', async () => {
    const endpoint = countingEndpoint({ ...base(), when: 'never' })
    const before = server.requests.length
    const r = await endpoint.count(conversation(2), { room: 100 })
    expect(r.source).toBe('estimate')
    expect(server.requests.length).toBe(before)
  })

  it('an endpoint error falls back to the estimate, or throws a typed error when strict', async () => {
    const messages = conversation(2)
    const soft = countingEndpoint({ ...base(), when: 'always' })
    server.fail(500)
    const r = await soft.count(messages)
    expect(r.source).toBe('estimate')
    expect(r.tokens).toBe(exactCounter().countMessages(messages))
    expect(r.error).toBeInstanceOf(Error)
    // Nothing was learnt from the failure: the next call goes to the endpoint.
    expect((await soft.count(messages)).source).toBe('endpoint')
    const strict = countingEndpoint({ ...base(), when: 'always', strict: true })
    server.fail(429)
    await expect(strict.count(messages)).rejects.toBeInstanceOf(CountingEndpointError)
    server.fail(503)
    const g = countingEndpoint({
      provider: 'gemini',
      client: gemini(),
      model: 'gemini-2.5-flash',
      when: 'always',
      strict: true,
    })
    await expect(g.count(messages)).rejects.toThrow(/gemini's counting endpoint failed/)
  })

  it('an answer that is not a count (negative, fractional, text, missing) is an error, never a count', async () => {
    for (const value of [-1, 12.5, '300', null]) {
      const endpoint = countingEndpoint({ ...base(), when: 'always' })
      server.lie(value)
      const r = await endpoint.count(conversation(1))
      expect(r.source).toBe('estimate')
      expect(String(r.error)).toMatch(/instead of a token count/)
    }
  })

  it('the input is left as it was: no message or list is changed', async () => {
    const messages = conversation(3)
    const copy = structuredClone(messages)
    const endpoint = countingEndpoint({ ...base(), when: 'always' })
    await endpoint.count(messages)
    await fitCounted(messages, { budget: 400, endpoint })
    expect(messages).toEqual(copy)
  })

  it('bad input is a typed error naming the message, and nothing is sent', async () => {
    const endpoint = countingEndpoint({ ...base(), when: 'always' })
    const before = server.requests.length
    await expect(endpoint.count(null as never)).rejects.toBeInstanceOf(InvalidInputError)
    const bad = [...conversation(1), { role: 'tool', content: 'x' }] as Message[]
    await expect(endpoint.count(bad)).rejects.toThrow(/message 5/)
    await expect(fitCounted(conversation(1), { endpoint: {} as never })).rejects.toBeInstanceOf(
      InvalidOptionError,
    )
    expect(server.requests.length).toBe(before)
  })

  it('bad options are typed errors', () => {
    expect(() => countingEndpoint({ ...base(), when: 'sometimes' as 'near' })).toThrow(
      InvalidOptionError,
    )
    expect(() => countingEndpoint({ ...base(), margin: 2 })).toThrow(InvalidOptionError)
    expect(() =>
      countingEndpoint({ provider: 'anthropic', client: {} as never, model: 'claude-sonnet-4-5' }),
    ).toThrow(/client.messages.countTokens/)
  })
})

describe('fitCounted', () => {
  it('a local count that under-counts is corrected: what is sent fits by the provider’s count', async () => {
    // The local counter is o200k; the provider counts 1.25 times that and more: a fit by the
    // local count alone goes over.
    const messages = conversation(12)
    const options = {
      provider: 'anthropic' as const,
      client: new Anthropic({ apiKey: 'k', baseURL: heavy.url, maxRetries: 0 }),
      model: 'claude-sonnet-4-5',
      counter: exactCounter(),
    }
    const budget = 900
    const plain = await fitCounted(messages, {
      budget,
      endpoint: countingEndpoint({ ...options, when: 'never' }),
    })
    const endpoint = countingEndpoint(options)
    const before = heavy.requests.length
    const r = await fitCounted(messages, { budget, endpoint })
    const bodies = heavy.requests.slice(before)
    expect(bodies.length).toBeGreaterThan(0)
    expect(bodies.length).toBeLessThanOrEqual(3)
    expect(r.counted.source).not.toBe('estimate')
    // The provider's own count of the last request checked is within the budget, and it is what was fitted.
    const last = bodies[bodies.length - 1]?.body ?? {}
    expect(heavy.countOf(last)).toBe(r.counted.tokens)
    expect(r.counted.tokens).toBeLessThanOrEqual(budget)
    expect(r.kept.length).toBeLessThan(plain.kept.length)
    // Fitted again with the same endpoint: the counts it measured make the fit, and what it
    // sends is still within the budget by the provider's count (new or cached).
    const again = await fitCounted(messages, { budget, endpoint })
    expect(again.counted.source).not.toBe('estimate')
    expect(again.counted.tokens).toBeLessThanOrEqual(budget)
    expect(again.kept.length).toBeGreaterThan(0)
    // The fit's copies were keyed as their originals: a serialized copy of what was sent is
    // the same request to the cache.
    expect((await endpoint.count(structuredClone(again.messages))).source).toBe('cache')
    // The fit by the local count alone would have gone over by the provider's count.
    const over = countingEndpoint({ ...options, when: 'always' })
    expect((await over.count(plain.messages)).tokens).toBeGreaterThan(budget)
  })
})

describe('a growing history', () => {
  const base = (): CountingEndpointOptions => ({
    provider: 'anthropic',
    client: anthropic(),
    model: 'claude-sonnet-4-5',
    counter: exactCounter(),
  })
  it('each turn of fitCounted counts only what was added, and the counter changes only when the ratio moves', async () => {
    // A local counter that tallies every message it is asked to count.
    const exact = exactCounter()
    let asked = 0
    const counter = {
      ...exact,
      countMessage: (m: Message) => {
        asked++
        return exact.countMessage(m)
      },
    }
    const endpoint = countingEndpoint({ ...base(), counter, when: 'always' })
    // Another endpoint object, with nothing cached: the provider's count of what is sent.
    const check = countingEndpoint({ ...base(), when: 'always' })
    const messages = conversation(150)
    const budget = 1200
    let r = await fitCounted(messages, { budget, endpoint })
    const counters = new Set([endpoint.counter])
    const perTurn: number[] = []
    for (let t = 0; t < 40; t++) {
      messages.push(
        { role: 'user', content: `Next ${t}: and 𝔸 ${'more '.repeat(t % 7)}` },
        { role: 'assistant', content: t % 3 ? `Done ${t}.` : ' ' },
      )
      const before = asked
      r = await fitCounted(messages, { budget, endpoint })
      perTurn.push(asked - before)
      counters.add(endpoint.counter)
      // What goes out fits by the provider's own count, whatever the counter said.
      const sent = await check.count(r.messages)
      expect(sent.tokens).toBe(r.counted.tokens)
      expect(sent.source).not.toBe('estimate')
      expect(r.counted.tokens).toBeLessThanOrEqual(budget)
    }
    // A ratio that settles makes a handful of counters, not one per measurement.
    expect(counters.size).toBeLessThanOrEqual(4)
    // A turn asks about the new messages and what the fit sends, not the 600-message history;
    // only a new counter counts it again (a new counter per measurement made every turn do so).
    const whole = perTurn.filter((n) => n > messages.length / 4)
    expect(whole.length).toBeLessThanOrEqual(counters.size)
    expect([...perTurn].sort((a, b) => a - b)[20]).toBeLessThan(messages.length / 4)
  })

  it('a counter answers each message the same every time it is asked', async () => {
    const endpoint = countingEndpoint({ ...base(), when: 'always' })
    const messages = conversation(20)
    const first = endpoint.counter
    const asked = messages.map((m) => first.countMessage(m))
    await endpoint.count(messages)
    await endpoint.count([...messages, { role: 'user', content: 'one more' }])
    expect(messages.map((m) => first.countMessage(m))).toEqual(asked)
  })
})

describe('a calibration source for ChatContext', () => {
  it('the endpoint count of what was sent, given as usage, sizes the next view', async () => {
    const ctx = new ChatContext({ budget: 1500, counter: exactCounter() })
    await ctx.addMessages(conversation(20))
    const endpoint = countingEndpoint({
      provider: 'anthropic',
      client: new Anthropic({ apiKey: 'k', baseURL: heavy.url, maxRetries: 0 }),
      model: 'claude-sonnet-4-5',
      counter: exactCounter(),
      when: 'always',
    })
    const sent = await ctx.getMessages()
    const { tokens } = await endpoint.count(sent)
    const { ratio } = ctx.recordUsage({ promptTokens: tokens })
    expect(ratio).toBeGreaterThan(1.2)
    // By the provider's count, the view sized by the local count alone was over.
    expect(tokens).toBeGreaterThan(1500)
    const next = await ctx.getMessages()
    const counted = await endpoint.count(next)
    expect(counted.tokens).toBeLessThanOrEqual(1500)
    expect(next.length).toBeLessThan(sent.length)
  })
})

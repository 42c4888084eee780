import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import {
  generateText,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type LimitedServer, startLimitedServer } from '../../test/helpers/limited-server.js'
import { SYSTEM_PROMPT, userTurn } from '../../test/helpers/turns.js'
import { ProviderFeedback } from '../context/limits/learned-limit.js'
import type { TokenCounter } from '../tokens/counter.js'
import { exactCounter } from '../tokens/counters.js'
import { fitEachStep, fitMiddleware } from './ai-sdk.js'

/** A long history: 30 question/answer pairs and a last question. */
function history(): ModelMessage[] {
  const out: ModelMessage[] = []
  for (let k = 0; k < 30; k++) {
    out.push({ role: 'user', content: userTurn(k, 40) })
    out.push({ role: 'assistant', content: `Answer ${k}: flight HAT${k} is confirmed.` })
  }
  out.push({ role: 'user', content: 'And the last one?' })
  return out
}

const LONG_SYSTEM = `${SYSTEM_PROMPT} ${userTurn(500, 600)}`

const lookup = tool({
  description: 'Look up a reservation',
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }) => `Reservation ${query}: ${userTurn(7, 60)}`,
})

describe('AI SDK against a loopback server', () => {
  let big: LimitedServer
  let small: LimitedServer
  beforeAll(async () => {
    big = await startLimitedServer({ window: 1_000_000 })
    small = await startLimitedServer({ window: 4200 })
  })
  afterAll(async () => {
    await big.close()
    await small.close()
  })

  it('prepareStep counts the system prompt: the request sent, system included, is within the budget', async () => {
    const openai = createOpenAI({ apiKey: 'k', baseURL: big.url })
    big.requests.length = 0
    await generateText({
      model: openai.chat('gpt-4o'),
      messages: history(),
      prepareStep: fitEachStep({ system: LONG_SYSTEM, budget: 1500 }),
    })
    const sent = big.requests[0]
    expect(sent?.tokens).toBeLessThanOrEqual(1500)
    const messages = sent?.body.messages as { role: string; content: string }[]
    expect(messages[0]).toEqual({ role: 'system', content: LONG_SYSTEM })
    expect(messages.filter((m) => m.role === 'system')).toHaveLength(1)
    expect(messages[messages.length - 1]).toEqual({ role: 'user', content: 'And the last one?' })
    // The system prompt given to generateText beside the messages is outside the budget.
    big.requests.length = 0
    await generateText({
      model: openai.chat('gpt-4o'),
      system: LONG_SYSTEM,
      messages: history(),
      prepareStep: fitEachStep({ budget: 1500 }),
    })
    expect(big.requests[0]?.tokens).toBeGreaterThan(1500)
  })

  it('fitMiddleware fits any wrapped model: OpenAI chat, system and tools counted', async () => {
    const openai = createOpenAI({ apiKey: 'k', baseURL: big.url })
    big.requests.length = 0
    const model = wrapLanguageModel({
      model: openai.chat('gpt-4o'),
      middleware: fitMiddleware({ budget: 1500 }),
    })
    await generateText({
      model,
      system: LONG_SYSTEM,
      messages: history(),
      tools: { lookup },
      stopWhen: stepCountIs(3),
    })
    expect(big.requests.length).toBeGreaterThanOrEqual(2)
    for (const r of big.requests) {
      expect(r.tokens).toBeLessThanOrEqual(1500)
      const messages = r.body.messages as { role: string; content: unknown }[]
      expect(messages[0]).toEqual({ role: 'system', content: LONG_SYSTEM })
    }
    // The second step holds the tool call and its result, together.
    const second = big.requests[1]?.body.messages as {
      role: string
      tool_calls?: { id: string }[]
      tool_call_id?: string
    }[]
    const call = second.find((m) => m.tool_calls)?.tool_calls?.[0]?.id
    expect(call).toBeDefined()
    expect(second[second.length - 1]).toMatchObject({ role: 'tool', tool_call_id: call })
  })

  it('fitMiddleware follows the model provider: Anthropic rules for an anthropic.* model', async () => {
    const anthropic = createAnthropic({ apiKey: 'k', baseURL: big.url })
    big.requests.length = 0
    const messages: ModelMessage[] = [
      { role: 'assistant', content: 'Welcome back! How can I help?' },
      ...history(),
    ]
    await generateText({
      model: wrapLanguageModel({
        model: anthropic('claude-sonnet-4-5'),
        middleware: fitMiddleware({ budget: 2000 }),
      }),
      system: SYSTEM_PROMPT,
      messages,
      maxOutputTokens: 300,
    })
    const sent = big.requests[0]
    expect(sent?.path).toMatch(/\/messages$/)
    expect(sent?.body.max_tokens).toBe(300)
    expect((sent?.tokens ?? 0) + 300).toBeLessThanOrEqual(2000)
    const wire = sent?.body.messages as { role: string }[]
    expect(wire[0]?.role).toBe('user')
    for (let i = 1; i < wire.length; i++) expect(wire[i]?.role).not.toBe(wire[i - 1]?.role)
  })

  it('fitMiddleware hands kept prompt entries back as they were: URL and binary images intact', async () => {
    const openai = createOpenAI({ apiKey: 'k', baseURL: big.url })
    big.requests.length = 0
    const bytes = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13])
    const messages: ModelMessage[] = [
      ...history(),
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Is this my boarding pass? 🛫 𝔘' },
          { type: 'image', image: new URL('https://example.com/pass.png') },
          { type: 'image', image: bytes, mediaType: 'image/png' },
        ],
      },
    ]
    await generateText({
      model: wrapLanguageModel({
        model: openai.chat('gpt-4o'),
        middleware: fitMiddleware({ budget: 3000 }),
      }),
      system: SYSTEM_PROMPT,
      messages,
    })
    const wire = big.requests[0]?.body.messages as { role: string; content: unknown }[]
    const last = wire[wire.length - 1] as {
      content: { type: string; image_url?: { url: string } }[]
    }
    const urls = last.content.filter((p) => p.type === 'image_url').map((p) => p.image_url?.url)
    expect(urls[0]).toBe('https://example.com/pass.png')
    expect(urls[1]).toBe(`data:image/png;base64,${Buffer.from(bytes).toString('base64')}`)
    expect(wire.length).toBeLessThan(messages.length + 1)
  })

  it('an 8-turn agent loop on a 4,200-token server: one rejection with fitMiddleware', async () => {
    const openai = createOpenAI({ apiKey: 'k', baseURL: small.url })
    small.requests.length = 0
    const middleware = fitMiddleware({ model: 'gpt-4o' })
    const model = wrapLanguageModel({ model: openai.chat('gpt-4o'), middleware })
    const messages: ModelMessage[] = []
    for (let k = 0; k < 8; k++) {
      messages.push({ role: 'user', content: userTurn(k, 500) })
      const out = await generateText({
        model,
        system: SYSTEM_PROMPT,
        messages,
        tools: { lookup },
        stopWhen: stepCountIs(3),
        maxOutputTokens: 400,
        maxRetries: 0,
      })
      messages.push(...out.response.messages)
    }
    expect(small.rejections).toBe(1)
    expect(middleware.feedback.limit).toBeLessThanOrEqual(4200)
    const accepted = small.requests.filter((r) => !r.rejected)
    expect(accepted.length).toBeGreaterThanOrEqual(16)
    for (const r of accepted) expect(r.tokens + 400).toBeLessThanOrEqual(4200)
  })

  it('streamText through fitMiddleware: 8 turns, one rejection, learnt and the stream opened again', async () => {
    const openai = createOpenAI({ apiKey: 'k', baseURL: small.url })
    small.requests.length = 0
    const middleware = fitMiddleware({ model: 'gpt-4o' })
    const model = wrapLanguageModel({ model: openai.chat('gpt-4o'), middleware })
    const messages: ModelMessage[] = []
    for (let k = 0; k < 8; k++) {
      messages.push({ role: 'user', content: userTurn(k, 500) })
      const out = streamText({
        model,
        system: SYSTEM_PROMPT,
        messages,
        tools: { lookup },
        stopWhen: stepCountIs(3),
        maxOutputTokens: 400,
        maxRetries: 0,
      })
      expect(await out.text).toContain('Noted.')
      messages.push(...(await out.response).messages)
    }
    expect(small.rejections).toBe(1)
    for (const r of small.requests.filter((r) => !r.rejected)) {
      expect(r.body.stream).toBe(true)
      expect(r.tokens + 400).toBeLessThanOrEqual(4200)
    }
  })

  it('an 8-turn agent loop with fitEachStep and feedback: one rejection, learnt from the caught error', async () => {
    const openai = createOpenAI({ apiKey: 'k', baseURL: small.url })
    small.requests.length = 0
    const feedback = new ProviderFeedback()
    const prepareStep = fitEachStep({
      system: SYSTEM_PROMPT,
      model: 'gpt-4o',
      reserve: 400,
      feedback,
    })
    const messages: ModelMessage[] = []
    for (let k = 0; k < 8; k++) {
      messages.push({ role: 'user', content: userTurn(k, 500) })
      const run = () =>
        generateText({
          model: openai.chat('gpt-4o'),
          messages,
          tools: { lookup },
          stopWhen: stepCountIs(3),
          maxOutputTokens: 400,
          maxRetries: 0,
          prepareStep,
        })
      const out = await run().catch((error) => {
        if (!feedback.learn(error)) throw error
        return run()
      })
      messages.push(...out.response.messages)
    }
    expect(small.rejections).toBe(1)
    expect(feedback.limit).toBeLessThanOrEqual(4200)
    for (const r of small.requests.filter((r) => !r.rejected))
      expect(r.tokens + 400).toBeLessThanOrEqual(4200)
  })
})

describe('fitEachStep over a growing loop', () => {
  it('a new loop reads messages afresh: one edited in place since an earlier loop is counted as it is now', () => {
    const counter = exactCounter()
    const messages = history()
    const first = fitEachStep({ budget: 300, counter })({ messages })
    // Between two generateText calls the application rewrites an answer in place.
    const edited = messages[messages.length - 2] as ModelMessage
    ;(edited as { content: string }).content = userTurn(3, 2000)
    const second = fitEachStep({ budget: 300, counter })({ messages })
    const text = (m: ModelMessage) => (typeof m.content === 'string' ? m.content : '')
    const sent = second.messages.reduce((n, m) => n + counter.countText(text(m)) + 4, 3)
    expect(sent).toBeLessThanOrEqual(300)
    expect(second.messages).not.toContain(edited)
    expect(first.messages).toContain(edited)
  })

  it('counts each message once: a step that hands the same objects again pays only for the new ones', () => {
    const base = exactCounter()
    const counted: unknown[] = []
    const counter: TokenCounter = {
      ...base,
      countMessage: (m) => {
        counted.push(m)
        return base.countMessage(m)
      },
    }
    const prepareStep = fitEachStep({ system: SYSTEM_PROMPT, budget: 1500, counter })
    const messages = history()
    const first = prepareStep({ messages })
    expect(counted.length).toBeGreaterThanOrEqual(messages.length + 1)
    // The next step: the same objects, then one tool exchange and a new question.
    const grown: ModelMessage[] = [
      ...messages,
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c.1', toolName: 'lookup', input: { q: 'x' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c.1',
            toolName: 'lookup',
            output: { type: 'text', value: 'HAT9 confirmed' },
          },
        ],
      },
      { role: 'user', content: 'Thanks. And the seat?' },
    ]
    counted.length = 0
    const second = prepareStep({ messages: grown })
    const again = counted.length
    // The same step in a fresh loop, over copies: every message is new to it.
    counted.length = 0
    const fresh = fitEachStep({ system: SYSTEM_PROMPT, budget: 1500, counter })({
      messages: structuredClone(grown),
    })
    const cold = counted.length
    expect(fresh.messages.length).toBe(second.messages.length)
    // Cold: the whole history and the system prompt, then what is sent (the fit's account).
    expect(cold).toBeGreaterThanOrEqual(grown.length + 1)
    // Warm: the three new messages, then the same account; the history is not counted again.
    expect(again).toBeLessThanOrEqual(cold - (messages.length + 1) + 3)
    expect(second.messages.at(-1)).toBe(grown.at(-1))
    expect(first.system).toBe(SYSTEM_PROMPT)
  })
})

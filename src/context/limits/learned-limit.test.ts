import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LimitedServer, startLimitedServer } from '../../../test/helpers/limited-server.js'
import { hasRedisServer, type RedisServer, startRedis } from '../../../test/helpers/redis-server.js'
import { SYSTEM_PROMPT, userTurn } from '../../../test/helpers/turns.js'
import { ContextOverflowError, InvalidStateError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { toAnthropic } from '../../providers/anthropic-messages/codec.js'
import { toOpenAIChat } from '../../providers/openai-chat/codec.js'
import { memoryStore } from '../../store/memory-store.js'
import { redisStore } from '../../store/redis-store.js'
import { exactCounter } from '../../tokens/counters.js'
import { ChatContext } from '../chat/chat-context.js'
import { withContextRetry } from '../chat/retry.js'
import { resolveSetup } from '../fit.js'
import {
  checkedLimit,
  ProviderFeedback,
  promptTokensOf,
  windowAfterRejection,
} from './learned-limit.js'
import { parseOverflowError } from './overflow-error.js'

const WINDOW = 4200

describe('remembered limits: ChatContext + withContextRetry on a 4,200-token server', () => {
  let server: LimitedServer
  beforeAll(async () => {
    server = await startLimitedServer({ window: WINDOW })
  })
  afterAll(async () => {
    await server.close()
  })

  it('OpenAI chat: 8 turns, one rejection, every later request within the window', async () => {
    server.requests.length = 0
    const client = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })
    // The model table says 128,000: the deployment's 4,200 is learnt from the rejection.
    const ctx = new ChatContext({
      model: 'gpt-4o',
      reserve: 500,
      initialMessages: [{ role: 'system', content: SYSTEM_PROMPT }],
    })
    const retried: number[] = []
    for (let k = 0; k < 8; k++) {
      await ctx.addMessage({ role: 'user', content: userTurn(k, 600) })
      const out = await withContextRetry(
        (messages) =>
          client.chat.completions.create({
            model: 'gpt-4o',
            max_tokens: 500,
            messages: toOpenAIChat(messages) as OpenAI.ChatCompletionMessageParam[],
          }),
        ctx,
      )
      if (out.retried) retried.push(k)
      await ctx.addMessage({
        role: 'assistant',
        content: out.value.choices[0]?.message.content ?? '',
      })
    }
    expect(server.rejections).toBe(1)
    expect(retried).toHaveLength(1)
    expect(ctx.learnedLimit).toBeLessThanOrEqual(WINDOW)
    expect(server.requests).toHaveLength(9)
    for (const r of server.requests.filter((r) => !r.rejected)) {
      expect(r.tokens + 500).toBeLessThanOrEqual(WINDOW)
      const sent = r.body.messages as { role: string; content: string }[]
      expect(sent[0]).toEqual({ role: 'system', content: SYSTEM_PROMPT })
      expect(sent[sent.length - 1]?.role).toBe('user')
    }
    // The learnt window is kept in the saved state and comes back with it.
    const state = ctx.saveState()
    expect(state.limit?.window).toBe(ctx.learnedLimit)
    const back = ChatContext.fromState(JSON.parse(JSON.stringify(state)))
    expect(back.learnedLimit).toBe(ctx.learnedLimit)
    expect((await back.fit()).tokens.total).toBeLessThanOrEqual(WINDOW)
    // A saved window that is not a count is refused with the typed error; an absurd one steers nothing.
    expect(() => ChatContext.fromState({ ...state, limit: { window: 0 } })).toThrow(
      InvalidStateError,
    )
    expect(() => ChatContext.fromState({ ...state, limit: { window: '4200' } })).toThrow(/limit/)
    expect(
      ChatContext.fromState({ ...state, limit: { window: 1e12 } }).learnedLimit,
    ).toBeUndefined()
    // Until told otherwise.
    await back.forgetLimit()
    expect(back.learnedLimit).toBeUndefined()
    expect((await back.fit()).budget).toBe(128_000)
  })

  it('Anthropic messages: 8 turns, one rejection ("prompt is too long" or "exceed context limit")', async () => {
    server.requests.length = 0
    const client = new Anthropic({
      apiKey: 'k',
      baseURL: server.url.replace(/\/v1$/, ''),
      maxRetries: 0,
    })
    const ctx = new ChatContext({
      model: 'claude-sonnet-4-6',
      provider: 'anthropic',
      reserve: 400,
      initialMessages: [{ role: 'system', content: SYSTEM_PROMPT }],
    })
    for (let k = 0; k < 8; k++) {
      await ctx.addMessage({ role: 'user', content: userTurn(k, 600) })
      const out = await withContextRetry((messages) => {
        const { system, messages: wire } = toAnthropic(messages)
        return client.messages.create({
          model: 'claude-sonnet-4-6',
          max_tokens: 400,
          ...(system !== undefined && { system: system as string }),
          messages: wire as Anthropic.MessageParam[],
        })
      }, ctx)
      const block = out.value.content[0]
      await ctx.addMessage({ role: 'assistant', content: block?.type === 'text' ? block.text : '' })
    }
    expect(server.rejections).toBeLessThanOrEqual(1)
    for (const r of server.requests.filter((r) => !r.rejected))
      expect(r.tokens + 400).toBeLessThanOrEqual(WINDOW)
  })

  it('a window learnt by one process is used by another over the same store', async () => {
    const store = memoryStore()
    const a = new ChatContext({ model: 'gpt-4o', reserve: 300, store, id: 'c1' })
    const b = new ChatContext({ model: 'gpt-4o', reserve: 300, store, id: 'c1' })
    for (let k = 0; k < 12; k++) await a.addMessage({ role: 'user', content: userTurn(k, 200) })
    await a.learnLimit(3000)
    const seen = await b.getMessages()
    expect(b.learnedLimit).toBe(3000)
    expect(exactCounter().countMessages(seen) + 300).toBeLessThanOrEqual(3000)
    await b.forgetLimit()
    await a.sync()
    expect(a.learnedLimit).toBeUndefined()
    await expect(a.learnLimit(-4)).rejects.toThrow(/window/)
  })
})

const redisAvailable = hasRedisServer()
describe.runIf(redisAvailable)('a learnt window over a real redis-server', () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedis()
  })
  afterAll(async () => {
    await redis.stop()
  })
  it('is shared, forgotten, deleted with the conversation, and a corrupt figure steers nothing', async () => {
    const s1 = await redisStore({ url: redis.url, prefix: 'll:' })
    const s2 = await redisStore({ url: redis.url, prefix: 'll:' })
    try {
      const a = new ChatContext({ budget: 9000, store: s1, id: 'x' })
      const b = new ChatContext({ budget: 9000, store: s2, id: 'x' })
      await a.addMessage({ role: 'user', content: userTurn(1, 50) })
      await a.learnLimit(2000)
      await b.sync()
      expect(b.learnedLimit).toBe(2000)
      expect((await b.fit()).budget).toBe(2000)
      await b.forgetLimit()
      await a.sync()
      expect(a.learnedLimit).toBeUndefined()
      await s1.putLimit?.('x', 1500)
      expect(await s2.limit?.('x')).toBe(1500)
      await s1.delete('x')
      expect(await s2.limit?.('x')).toBeUndefined()
      const { Redis } = await import('ioredis')
      const raw = new Redis(redis.url)
      await raw.set('ll:x:limit', '-5')
      expect(await s2.limit?.('x')).toBeUndefined()
      await raw.set('ll:x:limit', 'lots')
      expect(await s2.limit?.('x')).toBeUndefined()
      await raw.quit()
    } finally {
      await s1.close?.()
      await s2.close?.()
    }
  })
})

describe('calibration from the usage withContextRetry sees', () => {
  let server: LimitedServer
  beforeAll(async () => {
    server = await startLimitedServer({ window: 1_000_000, usageScale: 1.3 })
  })
  afterAll(async () => {
    await server.close()
  })

  it('OpenAI prompt_tokens and Anthropic input_tokens + cache reads both reach recordUsage', async () => {
    const openai = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })
    const anthropic = new Anthropic({
      apiKey: 'k',
      baseURL: server.url.replace(/\/v1$/, ''),
      maxRetries: 0,
    })
    const a = new ChatContext({ budget: 3000 })
    // Counted as o200k, as the server counts: the test is of the usage reaching recordUsage.
    const b = new ChatContext({ budget: 3000, provider: 'anthropic', counter: exactCounter() })
    for (const ctx of [a, b]) {
      await ctx.addMessage({ role: 'system', content: SYSTEM_PROMPT })
      for (let k = 0; k < 6; k++) await ctx.addMessage({ role: 'user', content: userTurn(k, 600) })
    }
    expect(a.usageFactor).toBe(1)
    await withContextRetry(
      (messages) =>
        openai.chat.completions.create({
          model: 'gpt-4o',
          messages: toOpenAIChat(messages) as OpenAI.ChatCompletionMessageParam[],
        }),
      a,
    )
    await withContextRetry((messages) => {
      const { system, messages: wire } = toAnthropic(messages)
      return anthropic.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        ...(system !== undefined && { system: system as string }),
        messages: wire as Anthropic.MessageParam[],
      })
    }, b)
    // The server bills 1.3 times its count: later views leave that much more room.
    expect(a.usageFactor).toBeGreaterThan(1.25)
    expect(a.usageFactor).toBeLessThan(1.4)
    expect(b.usageFactor).toBeGreaterThan(1.25)
    const next = await a.getMessages()
    expect(exactCounter().countMessages(next) * 1.3).toBeLessThanOrEqual(3000)
  })
})

describe('retry arithmetic', () => {
  /** A system prompt and a newest turn that need 1,273 tokens, 1,773 with a reserve of 500. */
  function history(): Message[] {
    const out: Message[] = [{ role: 'system', content: userTurn(100, 650) }]
    for (let k = 0; k < 6; k++) {
      out.push({ role: 'user', content: userTurn(k, 300) })
      out.push({ role: 'assistant', content: 'ok' })
    }
    out.push({ role: 'user', content: userTurn(99, 615) })
    return out
  }

  it('a reported limit of 2,500 with reserve 500: the system prompt and newest turn (1,773 with the reserve) are sent', async () => {
    const ctx = new ChatContext({ budget: 10_000, reserve: 500, initialMessages: history() })
    const counter = exactCounter()
    const h = ctx.history()
    const mandatory = counter.countMessages([h[0] as Message, h[h.length - 1] as Message]) + 500
    expect(mandatory).toBeGreaterThan(1500)
    expect(mandatory).toBeLessThanOrEqual(2500)
    let calls = 0
    const out = await withContextRetry(async (messages) => {
      calls++
      const total = counter.countMessages(messages) + 500
      if (total > 2500)
        throw new Error(
          `400 This model's maximum context length is 2500 tokens. However, you requested ${total} tokens (${total - 500} in the messages, 500 in the completion).`,
        )
      return messages
    }, ctx)
    expect(calls).toBe(2)
    expect(out.retried?.budget).toBe(2500)
    expect(counter.countMessages(out.value) + 500).toBeLessThanOrEqual(2500)
    expect(out.value[0]).toEqual(h[0])
    expect(out.value[out.value.length - 1]).toEqual(h[h.length - 1])
  })

  it('when even the provider limit cannot hold the mandatory part, the typed error says so', async () => {
    const ctx = new ChatContext({ budget: 10_000, reserve: 500, initialMessages: history() })
    await expect(
      withContextRetry(async () => {
        throw new Error(
          "This model's maximum context length is 900 tokens. However, your messages resulted in 5000 tokens.",
        )
      }, ctx),
    ).rejects.toBeInstanceOf(ContextOverflowError)
  })

  it('a provider that counts more than we do: the window is scaled by the under-count', () => {
    const w = (limit: number, prompt: number, sent: number) =>
      windowAfterRejection({ provider: 'openai', limit, actual: prompt + 500, prompt }, sent, 500)
    expect(w(4000, 5000, 4000)).toBe(3200)
    // The completion in the provider's figure is not an under-count.
    expect(w(4000, 4100, 4100)).toBe(4000)
    // An absurd figure never takes the window below half the limit.
    expect(w(4000, 9e9, 10)).toBe(4000)
    expect(w(4000, 5e7, 4000)).toBe(2000)
    // No numbers: 90% of the prompt sent, plus the reserve up to a third of that.
    expect(windowAfterRejection({ provider: 'unknown' }, 3000, 500)).toBe(3200)
    expect(windowAfterRejection({ provider: 'unknown' }, 3000, 16_384)).toBe(2700 + 810)
    expect(windowAfterRejection({ provider: 'unknown' }, undefined)).toBeUndefined()
    // A hostile limit steers nothing.
    expect(windowAfterRejection({ provider: 'openai', limit: -1 }, 3000)).toBe(2700)
    expect(checkedLimit(Number.NaN)).toBeUndefined()
    expect(checkedLimit(1e12)).toBeUndefined()
    expect(checkedLimit(2.5)).toBeUndefined()
  })

  it("reads Anthropic's prompt-plus-max_tokens rejection", () => {
    expect(
      parseOverflowError({
        message:
          '400 {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again"}}',
      }),
    ).toEqual({ provider: 'anthropic', actual: 209_573, limit: 200_000, prompt: 188_240 })
    expect(
      parseOverflowError(
        "This model's maximum context length is 2500 tokens. However, you requested 3100 tokens (2600 in the messages, 500 in the completion).",
      ),
    ).toEqual({ provider: 'openai', actual: 3100, limit: 2500, prompt: 2600 })
    expect(
      parseOverflowError({
        message:
          '{"error":{"code":400,"message":"The input token count (1050000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}',
      }),
    ).toEqual({ provider: 'gemini', actual: 1_050_000, limit: 1_048_576, prompt: 1_050_000 })
  })
})

describe('ProviderFeedback: usage from every SDK, within bounds', () => {
  it('reads the prompt tokens of each SDK shape', () => {
    expect(promptTokensOf({ usage: { prompt_tokens: 120, completion_tokens: 3 } })).toBe(120)
    expect(
      promptTokensOf({
        usage: { input_tokens: 50, cache_read_input_tokens: 900, cache_creation_input_tokens: 30 },
      }),
    ).toBe(980)
    expect(
      promptTokensOf({
        usage: { input_tokens: 400, input_tokens_details: { cached_tokens: 300 } },
      }),
    ).toBe(400)
    expect(promptTokensOf({ usageMetadata: { promptTokenCount: 77 } })).toBe(77)
    expect(promptTokensOf({ usage: { inputTokens: 66, outputTokens: 1 } })).toBe(66)
    expect(promptTokensOf({ inputTokens: { total: 55, noCache: 5 } })).toBe(55)
    expect(promptTokensOf({ usage: { prompt_tokens: -3 } })).toBeUndefined()
    expect(promptTokensOf({ usage: { prompt_tokens: 'many' } })).toBeUndefined()
    expect(promptTokensOf(null)).toBeUndefined()
    expect(promptTokensOf(JSON.parse('{"__proto__":{"prompt_tokens":5}}'))).toBeUndefined()
  })

  it('a figure below our count never widens the room; an implausible one is ignored', () => {
    const f = new ProviderFeedback()
    const sent = { tokens: { messages: 990, tools: 0, priming: 3, reserve: 500, total: 993 } }
    f.sent(sent)
    expect(f.recordUsage({ promptTokens: 12 }).accepted).toBe(false)
    expect(f.usageFactor).toBe(1)
    expect(f.recordUsage({ promptTokens: 700 }).accepted).toBe(true)
    expect(f.usageFactor).toBe(1)
    expect(f.apply({ budget: 3000, reserve: 500 }, { budget: 3000, reserve: 500 })).toEqual({
      budget: 3000,
      reserve: 500,
    })
    // Our count was low: the room shrinks by the measured ratio.
    const g = new ProviderFeedback()
    g.sent(sent)
    g.recordUsage({ promptTokens: 1300 })
    expect(g.usageFactor).toBeGreaterThan(1.3)
    const applied = g.apply({ budget: 3000, reserve: 500 }, { budget: 3000, reserve: 500 })
    expect(applied.reserve).toBe(500)
    expect(applied.budget).toBeLessThan(500 + 2500 / 1.3)
    expect(g.recordUsage({ promptTokens: 1e9 }).accepted).toBe(false)
    // Saved and restored.
    g.learnLimit(2000)
    const back = ProviderFeedback.from(JSON.parse(JSON.stringify(g)))
    expect(back.limit).toBe(2000)
    expect(back.usageFactor).toBeCloseTo(g.usageFactor)
    expect(ProviderFeedback.from({ limit: 'x', ratio: 1e9 }).toJSON()).toEqual({})
  })

  it("reads a rejection and a usage figure against the request's own counts, not the last noted", () => {
    const counts = (total: number) => ({
      tokens: { messages: total - 3, tools: 0, priming: 3, reserve: 400, total },
    })
    const rejected = counts(3600)
    const f = new ProviderFeedback()
    // Another call was fitted after the rejected one was sent.
    f.sent(counts(200))
    f.learn(
      new Error(
        "This model's maximum context length is 4200 tokens. However, your messages resulted in 3800 tokens.",
      ),
      rejected,
    )
    // Scaled by the rejected call's count (3600 of the server's 3800), not the 200.
    expect(f.limit).toBe(Math.floor((4200 * 3600) / 3800))
    const g = new ProviderFeedback()
    g.sent(counts(200))
    expect(g.recordUsage({ promptTokens: 3700 }, { sent: rejected }).accepted).toBe(true)
    expect(g.usageFactor).toBeGreaterThan(1)
    expect(g.usageFactor).toBeLessThan(1.1)
  })

  it('learns a window from an SDK error and fits within it, the reserve once', () => {
    const f = new ProviderFeedback()
    expect(f.learn(new Error('rate limited'))).toBeUndefined()
    expect(f.limit).toBeUndefined()
    f.learn({
      error: {
        message: "This model's maximum context length is 4200 tokens.",
        code: 'context_length_exceeded',
      },
    })
    expect(f.limit).toBe(4200)
    // A model-defaulted reserve (16,384 for gpt-4o) is cut to a quarter of the learnt window.
    expect(f.apply({ model: 'gpt-4o' }, { budget: 128_000, reserve: 16_384 })).toEqual({
      model: 'gpt-4o',
      budget: 4200,
      reserve: 1050,
    })
    expect(f.apply({ reserve: 600 }, { budget: 128_000, reserve: 600 })).toEqual({
      reserve: 600,
      budget: 4200,
    })
    f.forget()
    expect(f.limit).toBeUndefined()
  })
})

describe('a rejection without numbers: the room for the next prompt, whatever the reserve', () => {
  const plain = {
    error: {
      message:
        'Your input exceeds the context window of this model. Please adjust your input and try again.',
      type: 'invalid_request_error',
      param: 'input',
      code: 'context_length_exceeded',
    },
  }
  /** The room a fit gives the messages, tools and priming under `feedback`, for `reserve` (undefined: the model's). */
  function room(feedback: ProviderFeedback, reserve: number | undefined): number {
    const options = { model: 'gpt-4o', ...(reserve !== undefined && { reserve }) }
    const resolved = resolveSetup(options)
    const applied = feedback.apply(options, resolved)
    const budget = applied.budget ?? resolved.budget
    return budget - (applied.reserve ?? resolved.reserve)
  }

  for (const reserve of [0, 400, undefined, 16_384, 100_000]) {
    it(`reserve ${reserve ?? 'from the model'}: below 90% of the rejected prompt, and lower again after a second rejection`, () => {
      for (const sent of [50, 1200, 3999, 40_000]) {
        const feedback = new ProviderFeedback()
        const r = Math.min(reserve ?? 16_384, 120_000)
        feedback.sent({
          tokens: { messages: sent - 3, tools: 0, priming: 3, reserve: r, total: sent },
        })
        expect(feedback.learn(plain)?.provider).toBe('openai-responses')
        const first = room(feedback, reserve)
        expect(first).toBeLessThanOrEqual(Math.floor(sent * 0.9))
        expect(first).toBeGreaterThan(0)
        // Rejected again at that size: the window only goes down.
        const limit = feedback.limit as number
        feedback.sent({
          tokens: { messages: first - 3, tools: 0, priming: 3, reserve: r, total: first },
        })
        feedback.learn(plain)
        expect(feedback.limit).toBeLessThan(limit)
        expect(room(feedback, reserve)).toBeLessThanOrEqual(Math.floor(first * 0.9))
        // A later rejection of a larger request never widens it.
        const second = feedback.limit as number
        feedback.sent({
          tokens: { messages: sent * 2, tools: 0, priming: 3, reserve: r, total: sent * 2 + 3 },
        })
        feedback.learn(plain)
        expect(feedback.limit).toBe(second)
      }
    })
  }
})

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tauBench } from '../../../test/tau-bench.js'
import type { Message } from '../../messages/message.js'
import { fromOpenAIChat, toOpenAIChat } from '../../providers/openai-chat/codec.js'
import { errorsOf, validate } from '../../providers/validate.js'
import { tokenLimited } from '../../strategies/token-limited.js'
import { exactCounter } from '../../tokens/counters.js'
import { fit } from '../fit.js'
import { HOLD } from '../limits/calibration.js'
import { parseOverflowError } from '../limits/overflow-error.js'
import { ChatContext } from './chat-context.js'
import { withContextRetry } from './retry.js'

const stream = tauBench()
  .slice(0, 30)
  .flatMap((r, k) => fromOpenAIChat(r.traj).slice(k === 0 ? 0 : 1))

/** Turn by turn, the share of model calls whose sent list starts with the previous one. */
function replay(stable: boolean) {
  const ctx = new ChatContext({
    strategy: tokenLimited({ stable: stable && { evictAtLeast: 1500 } }),
    budget: 6000,
  })
  let previous: Message[] | undefined
  let calls = 0
  let hits = 0
  for (const m of stream) {
    ctx.addMessage(m)
    if (m.role === 'assistant') continue
    const view = ctx.getMessagesSync()
    expect(errorsOf(validate(view))).toEqual([])
    if (previous) {
      calls++
      if (previous.every((p, k) => view[k] === p)) hits++
    }
    previous = view
  }
  return hits / calls
}

describe('prompt-cache-stable trimming', () => {
  it('keeps the sent prefix unchanged on far more turns than plain trimming', () => {
    const plain = replay(false)
    const stable = replay(true)
    expect(stable).toBeGreaterThan(0.8)
    expect(stable).toBeGreaterThan(plain + 0.25)
  })
  it('stays within budget and valid for both providers', () => {
    const h = stream.slice(0, 400)
    for (const provider of ['openai', 'anthropic'] as const) {
      // Claude's estimate counts about twice o200k: twice the budget under Anthropic rules.
      for (const given of [3000, 5000, 9000]) {
        const budget = provider === 'anthropic' ? 2 * given : given
        const r = fit(h, {
          strategy: tokenLimited({ stable: { evictAtLeast: 1500 } }),
          budget,
          provider,
        })
        expect(errorsOf(validate(r.messages, { provider }))).toEqual([])
        expect(r.tokens.total).toBeLessThanOrEqual(budget)
      }
    }
  })
})

describe('calibration from reported usage', () => {
  it('after a few turns the estimate is never under the true count by more than the margin, and over by little', async () => {
    // The "provider" counts 17% more than our counter, with ±1.5% noise (a fixed sequence).
    const exact = exactCounter()
    const noise = [
      0.012, -0.015, 0.004, 0.009, -0.011, 0.015, -0.003, 0.007, -0.009, 0.002, 0.013, -0.014,
    ]
    const ctx = new ChatContext({
      budget: 6000,
      counter: exact,
      initialMessages: [stream[0] as Message],
    })
    const errors: number[] = []
    let turn = 0
    for (const m of stream.slice(1, 400)) {
      ctx.addMessage(m)
      if (m.role === 'assistant') continue
      const sent = await ctx.getMessages()
      const counted = exact.countMessages(sent)
      const truth = Math.round(counted * 1.17 * (1 + (noise[turn % noise.length] as number)))
      const estimate = counted * ctx.usageFactor
      if (turn >= 3) errors.push((estimate - truth) / truth)
      // What is sent after calibration fits the true budget.
      if (turn >= 3) expect(truth).toBeLessThanOrEqual(6000 * 1.02)
      ctx.recordUsage({ promptTokens: truth })
      turn++
    }
    expect(errors.length).toBeGreaterThan(20)
    for (const e of errors) {
      // Over by at most the band the factor is held in (so a stable view's cut stays) and the noise.
      expect(e).toBeLessThan(0.015 + 2 * HOLD + 0.02)
      expect(e).toBeGreaterThan(-0.02)
    }
    const mean = errors.reduce((a, b) => a + Math.abs(b), 0) / errors.length
    expect(mean).toBeLessThan(0.045)
  })
})

describe('recovery from overflow errors', () => {
  const OPENAI_BODY = {
    error: {
      message:
        "This model's maximum context length is 4000 tokens. However, your messages resulted in 5200 tokens. Please reduce the length of the messages.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  }
  const ANTHROPIC_BODY = {
    type: 'error',
    error: {
      type: 'invalid_request_error',
      message: 'prompt is too long: 5200 tokens > 4000 maximum',
    },
  }

  it('parses both providers’ messages', () => {
    expect(parseOverflowError(OPENAI_BODY)).toEqual({
      provider: 'openai',
      limit: 4000,
      actual: 5200,
      prompt: 5200,
    })
    expect(parseOverflowError({ message: `400 ${JSON.stringify(ANTHROPIC_BODY)}` })).toEqual({
      provider: 'anthropic',
      limit: 4000,
      actual: 5200,
      prompt: 5200,
    })
    expect(parseOverflowError(new Error('rate limited'))).toBeUndefined()
  })

  const counter = exactCounter()
  let url = ''
  let requests: unknown[][] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => {
      const json = JSON.parse(body)
      requests.push(json.messages)
      const actual = counter.countMessages(fromOpenAIChat(json.messages))
      if (actual > 4000) {
        const anthropic = req.url?.includes('anthropic')
        const message = anthropic
          ? `prompt is too long: ${actual} tokens > 4000 maximum`
          : `This model's maximum context length is 4000 tokens. However, your messages resulted in ${actual} tokens. Please reduce the length of the messages.`
        const body = anthropic
          ? { type: 'error', error: { type: 'invalid_request_error', message } }
          : {
              error: {
                message,
                type: 'invalid_request_error',
                param: 'messages',
                code: 'context_length_exceeded',
              },
            }
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(body))
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          model: 'm',
          choices: [
            { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } },
          ],
        }),
      )
    })
  })
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => {
    server.closeAllConnections()
    server.close()
  })

  it.each(['openai', 'anthropic'])(
    'shrinks by the reported excess and retries once (%s error body)',
    async (kind) => {
      requests = []
      const ctx = new ChatContext({ budget: 8000 })
      ctx.addMessages(stream.slice(0, 120))
      const client = new OpenAI({ apiKey: 'k', baseURL: `${url}/${kind}/v1`, maxRetries: 0 })
      const out = await withContextRetry(
        (messages) =>
          client.chat.completions.create({ model: 'm', messages: toOpenAIChat(messages) as never }),
        ctx,
      )
      expect(out.value.choices[0]?.message.content).toBe('ok')
      expect(out.retried?.report.provider).toBe(kind)
      expect(out.retried?.budget).toBeLessThanOrEqual(4000)
      expect(requests).toHaveLength(2)
      expect((requests[1] as unknown[]).length).toBeLessThan((requests[0] as unknown[]).length)
    },
  )

  it('passes other errors through untouched', async () => {
    const ctx = new ChatContext({ budget: 8000 })
    ctx.addMessage({ role: 'user', content: 'hi' })
    await expect(
      withContextRetry(async () => Promise.reject(new Error('boom')), ctx),
    ).rejects.toThrow('boom')
  })
})

import { createOpenAI } from '@ai-sdk/openai'
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LimitedServer, startLimitedServer } from '../../test/helpers/limited-server.js'
import { SYSTEM_PROMPT, userTurn } from '../../test/helpers/turns.js'
import { aiSdkTextTokens, aiSdkViolations } from '../../test/oracle/ai-sdk.js'
import type { FitResult } from '../context/fit.js'
import { ProviderFeedback } from '../context/limits/learned-limit.js'
import { exactCounter } from '../tokens/counters.js'
import { fitEachStep, fitMiddleware } from './ai-sdk.js'
import { fitAISDKMessages } from './index.js'

/** A feedback that remembers what each fit counted. */
function recording() {
  const counted: FitResult['tokens'][] = []
  const feedback = new ProviderFeedback()
  feedback.fitted = (result) => {
    counted.push(result.tokens)
  }
  return { feedback, counted }
}

/** A web search the provider ran: its call and its (large) result, in one assistant message. */
function searched(k: number): ModelMessage {
  const message = {
    role: 'assistant',
    content: [
      { type: 'text', text: `Let me look that up (${k}).` },
      {
        type: 'tool-call',
        toolCallId: `ws_${k}.a`,
        toolName: 'web_search',
        input: { query: `fares to SEA 𝔘 ${k}` },
        providerExecuted: true,
      },
      {
        type: 'tool-result',
        toolCallId: `ws_${k}.a`,
        toolName: 'web_search',
        output: {
          type: 'json',
          value: {
            results: Array.from({ length: 6 }, (_, j) => ({
              url: `https://example.com/${k}/${j}`,
              snippet: userTurn(k * 10 + j, 40),
            })),
          },
        },
        providerExecuted: true,
      },
      { type: 'text', text: `Found ${k} fares.` },
    ],
  }
  return message as ModelMessage
}

/** A history with provider-executed searches among ordinary turns and a client tool exchange. */
function history(): ModelMessage[] {
  const out: ModelMessage[] = []
  for (let k = 0; k < 6; k++) {
    out.push({ role: 'user', content: userTurn(k, 60) })
    out.push(searched(k))
    if (k % 2 === 1) {
      out.push({
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: `c.${k}`, toolName: 'lookup', input: { q: `${k}` } },
        ],
      })
      out.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c.${k}`,
            toolName: 'lookup',
            output: { type: 'text', value: userTurn(100 + k, 30) },
          },
        ],
      })
      out.push({ role: 'assistant', content: `Booked ${k}.` })
    }
  }
  out.push({ role: 'user', content: 'Which fare is cheapest?' })
  return out
}

/** The prompt shape the provider interface hands a middleware: every content a list of parts. */
function prompt(messages: ModelMessage[]) {
  return messages.map((m) =>
    typeof m.content === 'string' && m.role !== 'system'
      ? { ...m, content: [{ type: 'text', text: m.content }] }
      : m,
  )
}

const BUDGETS = [600, 900, 1300, 1800, 2400, 3200, 4500, 100_000]
const counter = exactCounter({ model: 'gpt-4o' })

describe('AI SDK: a provider-executed call and its result travel and count together', () => {
  it('fitMiddleware: at every budget the pair goes or stays whole, and what goes out was counted', async () => {
    const model = { provider: 'openai.responses', modelId: 'gpt-4o', doGenerate: async () => ({}) }
    const input = prompt(history())
    for (const budget of BUDGETS) {
      const { feedback, counted } = recording()
      const out = await fitMiddleware({ budget, reserve: 0, counter, feedback }).transformParams({
        params: { prompt: input },
        model,
      })
      expect(aiSdkViolations(out.prompt), `budget ${budget}`).toEqual([])
      expect(counted[0]?.messages).toBeGreaterThanOrEqual(aiSdkTextTokens(out.prompt))
    }
    const all = await fitMiddleware({ budget: 100_000, counter }).transformParams({
      params: { prompt: input },
      model,
    })
    expect(all.prompt).toHaveLength(input.length)
    for (const [i, m] of all.prompt.entries()) expect(m).toBe(input[i])
  })

  it('fitEachStep and fitAISDKMessages: the same at every budget', () => {
    const messages = history()
    for (const budget of BUDGETS) {
      const { feedback, counted } = recording()
      const step = fitEachStep({ system: SYSTEM_PROMPT, budget, counter, feedback })({ messages })
      expect(aiSdkViolations(step.messages), `budget ${budget}`).toEqual([])
      expect(counted[0]?.messages).toBeGreaterThanOrEqual(
        aiSdkTextTokens(step.messages) +
          aiSdkTextTokens([{ role: 'system', content: SYSTEM_PROMPT }]),
      )
      const fitted = fitAISDKMessages(messages, { budget, counter })
      expect(aiSdkViolations(fitted.messages), `budget ${budget}`).toEqual([])
      expect(fitted.result.tokens.messages).toBeGreaterThanOrEqual(aiSdkTextTokens(fitted.messages))
    }
    // Kept as they were: the caller's own objects.
    const whole = fitAISDKMessages(messages, { budget: 100_000, counter })
    for (const [i, m] of whole.messages.entries()) expect(m).toBe(messages[i])
  })

  it('a result cut off from its call in the caller’s list is not sent alone', async () => {
    const messages = history()
    const lone = searched(9)
    // The call's part is gone: the result has nothing to answer.
    ;(lone.content as unknown[]).splice(1, 1)
    const input = [...messages.slice(0, -1), lone, messages.at(-1) as ModelMessage]
    const out = fitAISDKMessages(input, { budget: 100_000, counter })
    expect(aiSdkViolations(input).length).toBeGreaterThan(0)
    expect(aiSdkViolations(out.messages)).toEqual([])
  })

  describe('through generateText against a loopback Responses server', () => {
    let server: LimitedServer
    beforeAll(async () => {
      server = await startLimitedServer({ window: 2600 })
    })
    afterAll(async () => {
      await server.close()
    })

    it('the wrapped model is handed a prompt without a split pair, within the budget', async () => {
      const handed: unknown[][] = []
      const spy = {
        specificationVersion: 'v3' as const,
        transformParams: async <P extends { prompt: unknown[] }>({ params }: { params: P }) => {
          handed.push(params.prompt)
          return params
        },
      }
      const openai = createOpenAI({ apiKey: 'k', baseURL: server.url })
      const model = wrapLanguageModel({
        model: openai.responses('gpt-4o'),
        middleware: [fitMiddleware({ budget: 2600, reserve: 200, counter }), spy],
      })
      await generateText({ model, messages: history(), maxOutputTokens: 200, maxRetries: 0 })
      expect(handed).toHaveLength(1)
      expect(aiSdkViolations(handed[0] as unknown[])).toEqual([])
      expect(server.rejections).toBe(0)
      const accepted = server.requests.filter((r) => !r.rejected)
      expect(accepted).toHaveLength(1)
      expect((accepted[0]?.tokens ?? 0) + 200).toBeLessThanOrEqual(2600)
    })
  })
})

describe('fitEachStep: a step message edited in place', () => {
  it('is read as it is now: a call added in place without its result is not sent', () => {
    const prepareStep = fitEachStep({ budget: 100_000, counter })
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Book it.' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c.1', toolName: 'book', input: { id: 1 } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c.1',
            toolName: 'book',
            output: { type: 'text', value: 'booked' },
          },
        ],
      },
      { role: 'user', content: 'And the hotel?' },
    ]
    expect(aiSdkViolations(prepareStep({ messages }).messages)).toEqual([])
    // The application adds a second call to the same assistant message, in place, unanswered.
    ;((messages[1] as ModelMessage).content as unknown[]).push({
      type: 'tool-call',
      toolCallId: 'c.2',
      toolName: 'book',
      input: { id: 2 },
    })
    const next = prepareStep({ messages })
    expect(aiSdkViolations(next.messages)).toEqual([])
    // The answered call and its result are still sent.
    expect(JSON.stringify(next.messages)).toContain('"toolCallId":"c.1"')
    expect(JSON.stringify(next.messages)).toContain('booked')
    // A result edited in place is counted as it is now.
    const { feedback, counted } = recording()
    const counting = fitEachStep({ budget: 100_000, counter, feedback })
    counting({ messages })
    const result = (messages[2] as ModelMessage).content as { output: { value: string } }[]
    ;(result[0] as { output: { value: string } }).output.value = userTurn(5, 400)
    counting({ messages })
    expect((counted[1]?.messages ?? 0) - (counted[0]?.messages ?? 0)).toBeGreaterThanOrEqual(300)
  })
})

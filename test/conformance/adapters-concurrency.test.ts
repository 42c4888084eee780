import { AsyncLocalStorage } from 'node:async_hooks'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { AIMessage } from '@langchain/core/messages'
import { ChatOpenAI } from '@langchain/openai'
import {
  Agent,
  assistant,
  OpenAIChatCompletionsModel,
  run,
  setTracingDisabled,
  user,
} from '@openai/agents'
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai'
import { createAgent, HumanMessage } from 'langchain'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { windowAfterRejection } from '../../src/context/learned-limit.js'
import { parseOverflowError } from '../../src/context/retry.js'
import {
  type FitResult,
  fitAgentMessages,
  fitAgentModel,
  fitMiddleware,
  ProviderFeedback,
} from '../../src/index.js'
import { type LimitedServer, startLimitedServer } from '../helpers/limited-server.js'
import { SYSTEM_PROMPT, userTurn } from '../helpers/turns.js'
import { anthropicViolations } from '../oracle/anthropic.js'
import type { Json } from '../oracle/common.js'
import { openAIChatViolations } from '../oracle/openai.js'

/**
 * One adapter object serving 16 conversations at once against a loopback server whose window
 * is small: conversations of very different lengths, started in a shuffled order with
 * jittered delays, so rejections of long ones interleave with the fits of short ones. What a
 * rejected call teaches must come from that call's own counts.
 */

setTracingDisabled(true)

const WINDOW = 4200
const REPLY = 400
const CONVERSATIONS = 16
const TURNS = 2

/** Which conversation the code running now belongs to. */
const current = new AsyncLocalStorage<number>()

const conversationOf = (value: unknown): number | undefined => {
  const m = /⟦conv (\d+)⟧/.exec(JSON.stringify(value))
  return m ? Number(m[1]) : undefined
}

/** A feedback that notes, for every `learn`, whose call was rejected and whose counts it was given. */
class WatchingFeedback extends ProviderFeedback {
  learnt: { conversation: number | undefined; counted: number | undefined; window: number }[] = []
  private readonly owners = new WeakMap<object, number | undefined>()
  note(result: FitResult): void {
    this.owners.set(result, conversationOf(result.messages))
  }
  override learn(error: unknown, sent?: Pick<FitResult, 'tokens'>) {
    const report = parseOverflowError(error)
    if (report && sent) {
      const window = windowAfterRejection(report, sent.tokens.total, sent.tokens.reserve)
      this.learnt.push({
        conversation: current.getStore(),
        counted: this.owners.get(sent),
        window: window ?? -1,
      })
    } else if (report)
      this.learnt.push({ conversation: current.getStore(), counted: undefined, window: -1 })
    return super.learn(error, sent)
  }
  override fitted(result: FitResult): void {
    this.note(result)
  }
}

/** A fixed shuffle and fixed jitter (a small LCG), so a failure can be replayed. */
function rng(seed: number) {
  let x = seed >>> 0
  return () => {
    x = (x * 1103515245 + 12345) >>> 0
    return x / 2 ** 32
  }
}

let server: LimitedServer
beforeAll(async () => {
  server = await startLimitedServer({ window: WINDOW })
})
afterAll(async () => {
  await server.close()
})

type Turn = { role: 'user' | 'assistant'; text: string }

/**
 * One adapter object (made once per case) and how one conversation calls the model through it
 * with its history: the framework's or SDK's own client, against the server.
 */
interface Case {
  make(feedback: ProviderFeedback): (history: Turn[]) => Promise<void>
}

const openai = () => new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })

const aiSdk =
  (model: () => Parameters<typeof wrapLanguageModel>[0]['model']): Case['make'] =>
  (feedback) => {
    const wrapped = wrapLanguageModel({
      model: model(),
      middleware: fitMiddleware({ reserve: REPLY, feedback }),
    })
    return async (history) => {
      await generateText({
        model: wrapped,
        system: SYSTEM_PROMPT,
        messages: history.map((t) => ({ role: t.role, content: t.text })) as ModelMessage[],
        maxOutputTokens: REPLY,
        maxRetries: 0,
      })
    }
  }

const cases: [string, Case][] = [
  [
    'AI SDK fitMiddleware, chat completions',
    { make: aiSdk(() => createOpenAI({ apiKey: 'k', baseURL: server.url }).chat('gpt-4o')) },
  ],
  [
    'AI SDK fitMiddleware, Anthropic',
    {
      make: aiSdk(() => createAnthropic({ apiKey: 'k', baseURL: server.url })('claude-sonnet-4-5')),
    },
  ],
  [
    'LangChain fitAgentMessages, chat completions',
    {
      make: (feedback) => {
        const agent = createAgent({
          model: new ChatOpenAI({
            model: 'gpt-4o',
            apiKey: 'k',
            maxTokens: REPLY,
            maxRetries: 0,
            configuration: { baseURL: server.url },
          }),
          systemPrompt: SYSTEM_PROMPT,
          middleware: [fitAgentMessages({ reserve: REPLY, feedback })],
        })
        return async (history) => {
          await agent.invoke({
            messages: history.map((t) =>
              t.role === 'user' ? new HumanMessage(t.text) : new AIMessage(t.text),
            ),
          })
        }
      },
    },
  ],
  [
    'OpenAI Agents fitAgentModel, chat completions',
    {
      make: (feedback) => {
        const agent = new Agent({
          name: 'airline',
          instructions: SYSTEM_PROMPT,
          model: fitAgentModel(new OpenAIChatCompletionsModel(openai(), 'gpt-4o'), {
            model: 'gpt-4o',
            reserve: REPLY,
            feedback,
          }),
          modelSettings: { maxTokens: REPLY },
        })
        return async (history) => {
          await run(
            agent,
            history.map((t) => (t.role === 'user' ? user(t.text) : assistant(t.text))),
          )
        }
      },
    },
  ],
]

describe('one adapter object shared by 16 concurrent conversations', () => {
  it.each(cases)('%s', async (_name, { make }) => {
    server.requests.length = 0
    const feedback = new WatchingFeedback()
    const call = make(feedback)
    const random = rng(34)
    // Lengths from well inside the window to three times it.
    const words = Array.from({ length: CONVERSATIONS }, (_, c) => 60 + ((c * 7) % 16) * 110)
    const order = Array.from({ length: CONVERSATIONS }, (_, c) => c).sort(() => random() - 0.5)
    const conversation = async (c: number) => {
      const history: Turn[] = Array.from({ length: 3 }, (_, k): Turn[] => [
        { role: 'user', text: `⟦conv ${c}⟧ ${userTurn(c * 100 + k, words[c])}` },
        { role: 'assistant', text: `Noted ${k}.` },
      ]).flat()
      for (let k = 0; k < TURNS; k++) {
        // The first turns all start at once; later ones at jittered times, among retries.
        if (k > 0) await new Promise((r) => setTimeout(r, Math.floor(random() * 20)))
        history.push({ role: 'user', text: `⟦conv ${c}⟧ ${userTurn(c * 100 + 50 + k, 80)}` })
        await current.run(c, () => call(history))
        history.push({ role: 'assistant', text: `Answered ${k}.` })
      }
    }
    await Promise.all(order.map(conversation))

    const byConversation = new Map<number, LimitedServer['requests']>()
    for (const r of server.requests) {
      const c = conversationOf(r.body)
      expect(c, 'a request without its conversation').toBeDefined()
      byConversation.set(c as number, [...(byConversation.get(c as number) ?? []), r])
    }
    expect(byConversation.size).toBe(CONVERSATIONS)
    // Several long conversations were rejected before any rejection was learnt.
    expect(server.rejections).toBeGreaterThanOrEqual(2)
    for (const [c, requests] of byConversation) {
      // At most one rejection each, and every turn answered.
      expect(requests.filter((r) => r.rejected).length, `conversation ${c}`).toBeLessThanOrEqual(1)
      expect(requests.filter((r) => !r.rejected).length, `conversation ${c}`).toBe(TURNS)
      for (const r of requests.filter((q) => !q.rejected)) {
        const body = r.body as Json
        expect(r.tokens + REPLY).toBeLessThanOrEqual(WINDOW)
        const problems = r.path.endsWith('/messages')
          ? anthropicViolations(body)
          : openAIChatViolations(body.messages)
        expect(problems).toEqual([])
      }
    }
    // Each rejection was learnt from the rejected call's own counts, within 5% of the window.
    expect(feedback.learnt.length).toBe(server.rejections)
    for (const l of feedback.learnt) {
      expect(l.counted, 'learnt from another conversation').toBe(l.conversation)
      expect(Math.abs(l.window - WINDOW) / WINDOW).toBeLessThanOrEqual(0.05)
    }
    expect(feedback.limit).toBeGreaterThanOrEqual(WINDOW * 0.95)
    expect(feedback.limit).toBeLessThanOrEqual(WINDOW)
  })
})

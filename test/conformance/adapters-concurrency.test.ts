import { AsyncLocalStorage } from 'node:async_hooks'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import { ChatAnthropic } from '@langchain/anthropic'
import { AIMessage } from '@langchain/core/messages'
import { ChatGoogleGenerativeAI } from '@langchain/google-genai'
import { ChatOpenAI } from '@langchain/openai'
import { Agent as MastraAgent } from '@mastra/core/agent'
import {
  Agent,
  assistant,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  user,
} from '@openai/agents'
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai'
import { createAgent, HumanMessage } from 'langchain'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fitEachStep, fitMiddleware } from '../../src/ai-sdk.js'
import { windowAfterRejection } from '../../src/context/limits/learned-limit.js'
import { parseOverflowError } from '../../src/context/limits/overflow-error.js'
import { type FitResult, ProviderFeedback } from '../../src/index.js'
import { fitAgentMessages } from '../../src/langchain.js'
import { fitInputProcessor } from '../../src/mastra.js'
import { fitAgentModel, fitModelInput } from '../../src/openai-agents.js'
import { type LimitedServer, startLimitedServer } from '../helpers/limited-server.js'
import { quiet } from '../helpers/quiet-mastra.js'
import { SYSTEM_PROMPT, userTurn } from '../helpers/turns.js'
import { anthropicViolations } from '../oracle/anthropic.js'
import type { Json } from '../oracle/common.js'
import { geminiViolations } from '../oracle/gemini.js'
import { openAIChatViolations } from '../oracle/openai.js'
import { responsesViolations } from '../oracle/responses.js'

/**
 * One adapter object serving 16 conversations at once against a loopback server whose window
 * is small: each adapter with each provider it supports, conversations of very different
 * lengths, started in a shuffled order with jittered delays, so rejections of long ones
 * interleave with the fits of short ones. What a rejected call teaches must come from that
 * call's own counts.
 *
 * The Responses API's rejection carries no numbers ("Your input exceeds the context window
 * of this model. Please adjust your input and try again.", as OpenAI sends it): it says only
 * that the request was too long, so no window can be read off it, and the 5% check does not
 * apply. There the measure is: each rejection teaches 90% of the room the rejected call
 * itself used (never another call's), so no learnt window is below 90% of the enforced one,
 * and a conversation is rejected at most as often as shrinking its own first request by 10%
 * a time takes to fit.
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
  // By the counts object each fit made: an adapter may keep only that, not the whole result.
  private readonly owners = new WeakMap<object, number | undefined>()
  note(result: FitResult): void {
    this.owners.set(result.tokens, conversationOf(result.messages))
  }
  override learn(error: unknown, sent?: Pick<FitResult, 'tokens'>) {
    const report = parseOverflowError(error)
    if (report && sent) {
      const window = windowAfterRejection(report, sent.tokens.total, sent.tokens.reserve)
      this.learnt.push({
        conversation: current.getStore(),
        counted: this.owners.get(sent.tokens),
        window: window ?? -1,
      })
    } else if (report)
      this.learnt.push({ conversation: current.getStore(), counted: undefined, window: -1 })
    return super.learn(error, sent)
  }
  override fitted(result: FitResult): void {
    this.note(result)
    super.fitted(result)
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

/** How one conversation's turn is sent, and how a rejection it catches is handed back. */
type Call = (history: Turn[], c: number, k: number) => Promise<void>

/** One adapter object (made once per case), serving every conversation through the SDK's own client. */
type Make = (feedback: ProviderFeedback) => Call

/**
 * Sends a turn, and again after each "too long" rejection, as an application would: `learn`
 * is how the caller hands the error back where the adapter does not see it (the adapters
 * that see it have learnt already). Up to 12 tries: a numberless rejection shrinks 10% a time.
 */
async function retrying(go: () => Promise<unknown>, learn?: (error: unknown) => unknown) {
  for (let attempt = 0; ; attempt++) {
    try {
      await go()
      return
    } catch (error) {
      const overflow = learn ? learn(error) : parseOverflowError(error)
      if (!overflow || attempt >= 11) throw error
    }
  }
}

const root = () => server.url.replace(/\/v1$/, '')
const openai = () => new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })

/** AI SDK models, by the provider they speak, with the id the adapters know them by. */
type AIModel = Parameters<typeof wrapLanguageModel>[0]['model']

const aiModels: [string, () => AIModel, string][] = [
  [
    'chat completions',
    () => createOpenAI({ apiKey: 'k', baseURL: server.url }).chat('gpt-4o'),
    'gpt-4o',
  ],
  [
    'Responses',
    () => createOpenAI({ apiKey: 'k', baseURL: server.url }).responses('gpt-4o'),
    'gpt-4o',
  ],
  [
    'Anthropic',
    () => createAnthropic({ apiKey: 'k', baseURL: server.url })('claude-sonnet-4-5'),
    'claude-sonnet-4-5',
  ],
  [
    'Gemini',
    () =>
      createGoogleGenerativeAI({ apiKey: 'k', baseURL: `${root()}/v1beta` })('gemini-2.5-flash'),
    'gemini-2.5-flash',
  ],
]

const asModelMessages = (history: Turn[]) =>
  history.map((t) => ({ role: t.role, content: t.text })) as ModelMessage[]

const middleware =
  (model: () => AIModel): Make =>
  (feedback) => {
    const wrapped = wrapLanguageModel({
      model: model(),
      middleware: fitMiddleware({ reserve: REPLY, feedback }),
    })
    return (history) =>
      retrying(() =>
        generateText({
          model: wrapped,
          system: SYSTEM_PROMPT,
          messages: asModelMessages(history),
          maxOutputTokens: REPLY,
          maxRetries: 0,
        }),
      )
  }

/** One `prepareStep` shared by every conversation's loop; a rejection handed back with the call's context. */
const eachStep =
  (model: () => AIModel, id: string): Make =>
  (feedback) => {
    const prepareStep = fitEachStep({ system: SYSTEM_PROMPT, model: id, reserve: REPLY, feedback })
    const raw = model()
    return (history, c, k) => {
      const context = { conversation: c, turn: k }
      return retrying(
        () =>
          generateText({
            model: raw,
            messages: asModelMessages(history),
            maxOutputTokens: REPLY,
            maxRetries: 0,
            prepareStep,
            experimental_context: context,
          }),
        (error) => prepareStep.learn(error, context),
      )
    }
  }

const langchain =
  (model: () => ChatOpenAI | ChatAnthropic | ChatGoogleGenerativeAI): Make =>
  (feedback) => {
    const agent = createAgent({
      model: model(),
      systemPrompt: SYSTEM_PROMPT,
      middleware: [fitAgentMessages({ reserve: REPLY, feedback })],
    })
    return (history) =>
      retrying(() =>
        agent.invoke({
          messages: history.map((t) =>
            t.role === 'user' ? new HumanMessage(t.text) : new AIMessage(t.text),
          ),
        }),
      )
  }

const chatOpenAI = (useResponsesApi: boolean) =>
  new ChatOpenAI({
    model: 'gpt-4o',
    apiKey: 'k',
    maxTokens: REPLY,
    maxRetries: 0,
    useResponsesApi,
    configuration: { baseURL: server.url },
  })

const agentItems = (history: Turn[]) =>
  history.map((t) => (t.role === 'user' ? user(t.text) : assistant(t.text)))

const agentsModels: [string, () => OpenAIResponsesModel | OpenAIChatCompletionsModel][] = [
  ['chat completions', () => new OpenAIChatCompletionsModel(openai(), 'gpt-4o')],
  ['Responses', () => new OpenAIResponsesModel(openai(), 'gpt-4o')],
]

const cases: [string, Make][] = [
  ...aiModels.map(([name, model]): [string, Make] => [
    `AI SDK fitMiddleware, ${name}`,
    middleware(model),
  ]),
  ...aiModels.map(([name, model, id]): [string, Make] => [
    `AI SDK fitEachStep, ${name}`,
    eachStep(model, id),
  ]),
  ['LangChain fitAgentMessages, chat completions', langchain(() => chatOpenAI(false))],
  ['LangChain fitAgentMessages, Responses', langchain(() => chatOpenAI(true))],
  [
    'LangChain fitAgentMessages, Anthropic',
    langchain(
      () =>
        new ChatAnthropic({
          model: 'claude-sonnet-4-5',
          apiKey: 'k',
          maxTokens: REPLY,
          maxRetries: 0,
          anthropicApiUrl: root(),
        }),
    ),
  ],
  [
    'LangChain fitAgentMessages, Gemini',
    langchain(
      () =>
        new ChatGoogleGenerativeAI({
          model: 'gemini-2.5-flash',
          apiKey: 'k',
          maxOutputTokens: REPLY,
          maxRetries: 0,
          baseUrl: root(),
        }),
    ),
  ],
  ...agentsModels.map(([name, model]): [string, Make] => [
    `OpenAI Agents fitAgentModel, ${name}`,
    (feedback) => {
      const agent = new Agent({
        name: 'airline',
        instructions: SYSTEM_PROMPT,
        model: fitAgentModel(model(), { model: 'gpt-4o', reserve: REPLY, feedback }),
        modelSettings: { maxTokens: REPLY },
      })
      return (history) => retrying(() => run(agent, agentItems(history)))
    },
  ]),
  ...agentsModels.map(([name, model]): [string, Make] => [
    `OpenAI Agents fitModelInput (callModelInputFilter), ${name}`,
    (feedback) => {
      const filter = fitModelInput({ model: 'gpt-4o', reserve: REPLY, feedback })
      const agent = new Agent({
        name: 'airline',
        instructions: SYSTEM_PROMPT,
        model: model(),
        modelSettings: { maxTokens: REPLY },
      })
      return (history, c, k) => {
        const context = { conversation: c, turn: k }
        return retrying(
          () => run(agent, agentItems(history), { context, callModelInputFilter: filter }),
          (error) => filter.learn(error, context),
        )
      }
    },
  ]),
  [
    'Mastra fitInputProcessor, chat completions, a thread per conversation',
    (feedback) => {
      const processor = fitInputProcessor({
        model: 'gpt-4o',
        reserve: REPLY,
        instructions: SYSTEM_PROMPT,
        feedback,
      })
      // Mastra sends a model given by URL through its OpenAI-compatible client.
      const agent = quiet(
        new MastraAgent({
          name: 'airline',
          instructions: SYSTEM_PROMPT,
          model: { id: 'openai/gpt-4o', url: server.url, apiKey: 'k' },
          inputProcessors: [processor],
        }),
      )
      return (history, c) => {
        // Each conversation is a thread, its messages stamped as Mastra's memory stamps them,
        // each a second after the last (Mastra orders a thread by createdAt).
        const thread = { threadId: `thread-${c}`, resourceId: `user-${c % 3}` }
        const messages = history.map((t, j) => ({
          id: `c${c}-m${j}`,
          role: t.role,
          createdAt: new Date(Date.UTC(2025, 0, 1) + j * 1000),
          ...thread,
          content: { format: 2 as const, parts: [{ type: 'text' as const, text: t.text }] },
        }))
        return retrying(
          () =>
            agent.generate(messages, {
              modelSettings: { maxOutputTokens: REPLY, maxRetries: 0 },
            }),
          (error) => processor.learn(error, thread),
        )
      }
    },
  ],
]

function violations(path: string, body: Json): string[] {
  if (path.endsWith('/chat/completions')) return openAIChatViolations(body.messages)
  if (path.endsWith('/responses')) return responsesViolations(body.input as unknown[])
  if (path.endsWith('/messages')) return anthropicViolations(body)
  return geminiViolations(body as { contents: unknown })
}

describe('one adapter object shared by 16 concurrent conversations', () => {
  it.each(cases)('%s', async (_name, make) => {
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
        await current.run(c, () => call([...history], c, k))
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
    const numberless = server.requests[0]?.path.endsWith('/responses') === true
    const gemini = server.requests[0]?.path.includes(':') === true
    // Several long conversations were rejected before any rejection was learnt.
    expect(server.rejections).toBeGreaterThanOrEqual(2)
    for (const [c, requests] of byConversation) {
      const rejected = requests.filter((r) => r.rejected)
      if (numberless && rejected.length > 0) {
        // As many as shrinking its first request by 10% a time takes to fit, and no more.
        const first = (rejected[0] as (typeof rejected)[number]).tokens
        const bound = 1 + Math.ceil(Math.log(first / (WINDOW - REPLY)) / Math.log(1 / 0.9))
        expect(rejected.length, `conversation ${c}`).toBeLessThanOrEqual(bound)
      } else expect(rejected.length, `conversation ${c}`).toBeLessThanOrEqual(1)
      // Every turn answered.
      expect(requests.filter((r) => !r.rejected).length, `conversation ${c}`).toBe(TURNS)
      for (const r of requests.filter((q) => !q.rejected)) {
        // Gemini limits the input alone; the others the prompt and the reply's room together.
        expect(r.tokens + (gemini ? 0 : REPLY)).toBeLessThanOrEqual(WINDOW)
        expect(violations(r.path, r.body as Json)).toEqual([])
      }
    }
    // Each rejection was learnt from the rejected call's own counts.
    expect(feedback.learnt.length).toBe(server.rejections)
    for (const l of feedback.learnt) {
      expect(l.counted, 'learnt from another conversation').toBe(l.conversation)
      if (numberless) expect(l.window).toBeGreaterThanOrEqual(WINDOW * 0.9)
      else expect(Math.abs(l.window - WINDOW) / WINDOW).toBeLessThanOrEqual(0.05)
    }
    expect(feedback.limit).toBeGreaterThanOrEqual(WINDOW * (numberless ? 0.9 : 0.95))
    expect(feedback.limit).toBeLessThanOrEqual(WINDOW)
  })
})

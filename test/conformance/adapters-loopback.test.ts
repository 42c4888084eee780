import { createAnthropic } from '@ai-sdk/anthropic'
import { createGoogleGenerativeAI } from '@ai-sdk/google'
import { createOpenAI } from '@ai-sdk/openai'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { ChatAnthropic } from '@langchain/anthropic'
import { ChatGoogleGenerativeAI } from '@langchain/google-genai'
import { ChatOpenAI } from '@langchain/openai'
import { Agent as MastraAgent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import {
  Agent,
  type AgentInputItem,
  tool as agentTool,
  MemorySession,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  user,
} from '@openai/agents'
import { tool as aiTool, generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from 'ai'
import { type BaseMessage, createAgent, HumanMessage, tool as lcTool } from 'langchain'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { fitAISDKMessages, fitEachStep, fitMiddleware } from '../../src/ai-sdk.js'
import {
  ChatContext,
  type FitResult,
  fit,
  fitAnthropicRequest,
  fitOpenAIMessages,
  ProviderFeedback,
  toGemini,
  tokenLimited,
  withContextRetry,
} from '../../src/index.js'
import { fitAgentMessages } from '../../src/langchain.js'
import { fitInputProcessor } from '../../src/mastra.js'
import { fitAgentModel, fitModelInput, fittedSession } from '../../src/openai-agents.js'
import { type LimitedServer, startLimitedServer } from '../helpers/limited-server.js'
import { quiet } from '../helpers/quiet-mastra.js'
import { SYSTEM_PROMPT, userTurn } from '../helpers/turns.js'
import { anthropicViolations } from '../oracle/anthropic.js'
import type { Json } from '../oracle/common.js'
import { geminiViolations } from '../oracle/gemini.js'
import { openAIChatViolations } from '../oracle/openai.js'
import { responsesViolations } from '../oracle/responses.js'

/**
 * Every adapter, with every provider it supports, through the framework's or SDK's own client
 * against a loopback server whose window is small. Each loop is ten user turns, each one
 * answered by a tool call, the tool's result and a reply. The server counts each request by
 * its own rule and answers one over its window with the provider's own error body: with the
 * numbers (chat completions, Anthropic, Gemini) or without (Responses).
 */

setTracingDisabled(true)

const WINDOW = 4200
const REPLY = 400
const TURNS = 10
const WORDS = 300

/** A ProviderFeedback that notes each fit's count beside the number of requests the server had then. */
class CountingFeedback extends ProviderFeedback {
  counts: { at: number; total: number }[] = []
  constructor(private readonly server: LimitedServer) {
    super()
  }
  override fitted(result: FitResult): void {
    this.counts.push({ at: this.server.requests.length, total: result.tokens.total })
  }
}

function violations(path: string, body: Json): string[] {
  if (path.endsWith('/chat/completions')) return openAIChatViolations(body.messages)
  if (path.endsWith('/responses')) return responsesViolations(body.input as unknown[])
  if (path.endsWith('/messages')) return anthropicViolations(body)
  return geminiViolations(body as { contents: unknown })
}

/**
 * The checks of every loop: at most one rejection; every accepted request within the window
 * (its prompt and the reply it asks room for) and valid by the provider's oracle; and the
 * fit just before each request counted at least what the server counted.
 */
function check(
  server: LimitedServer,
  counts: { at: number; total: number }[] | undefined,
  { everyStep = true } = {},
) {
  // One provider per loop.
  expect(new Set(server.requests.map((r) => r.path.replace(/\/models\/.*/, '/models'))).size).toBe(
    1,
  )
  // At most one; and one, since nothing told the adapter the window before the server did.
  expect(server.rejections).toBe(1)
  const accepted = server.requests.filter((r) => !r.rejected)
  // Each turn takes at least two model calls: the tool call, then the reply.
  expect(accepted.length).toBeGreaterThanOrEqual(2 * TURNS)
  const users = new Set<number>()
  server.requests.forEach((r, j) => {
    const body = r.body as Json
    const reply = Number(
      body.max_tokens ??
        body.max_completion_tokens ??
        body.max_output_tokens ??
        (body.generationConfig as Json | undefined)?.maxOutputTokens ??
        0,
    )
    if (!r.rejected) {
      expect(r.tokens + (r.path.includes(':') ? 0 : reply)).toBeLessThanOrEqual(WINDOW)
      expect(violations(r.path, body)).toEqual([])
      for (const m of JSON.stringify(body).matchAll(/⟦turn (\d+)⟧/g)) users.add(Number(m[1]))
    }
    if (counts) {
      const counted = counts.filter((c) => c.at === j).at(-1)
      if (!everyStep && counted === undefined) return
      expect(counted, `request ${j} was sent without a fit`).toBeDefined()
      expect(
        counted?.total,
        `request ${j} (${r.path}): counted ${counted?.total}, the server counted ${r.tokens}`,
      ).toBeGreaterThanOrEqual(r.tokens)
    }
  })
  // Every turn reached the model.
  expect(users.size).toBe(TURNS)
}

/** A caught "too long" error is learnt and the call made again, as the README shows. */
async function learning<T>(
  feedback: Pick<ProviderFeedback, 'learn'>,
  go: () => Promise<T>,
): Promise<T> {
  return go().catch((error) => {
    if (!feedback.learn(error)) throw error
    return go()
  })
}

/** The user's turn `k`, marked: astral characters and emoji among the words. */
const turn = (k: number) => `⟦turn ${k}⟧ ${userTurn(k, WORDS)} 🛫 𝔘𝔫𝔦 ${'🧳'.repeat(k % 3)}`

const lookupResult = (query: string) => `Reservation ${query}: ${userTurn(7, 60)} 𝔖𝔈𝔄`

/**
 * The tool as the provider receives it, for the adapters that never see the request's tools
 * (an AI SDK `prepareStep`, a Mastra input processor): they count what `tools` says.
 */
const LOOKUP_SCHEMA = {
  name: 'lookup',
  description: 'Look up a reservation',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string' } },
    required: ['query'],
    additionalProperties: false,
  },
}

let server: LimitedServer
beforeAll(async () => {
  server = await startLimitedServer({ window: WINDOW })
})
afterAll(async () => {
  vi.useRealTimers()
  await server.close()
})
const fresh = () => {
  server.requests.length = 0
}

describe('AI SDK', () => {
  const lookup = aiTool({
    description: 'Look up a reservation',
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => lookupResult(query),
  })
  const models: [string, () => Parameters<typeof wrapLanguageModel>[0]['model'], string][] = [
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
        createGoogleGenerativeAI({
          apiKey: 'k',
          baseURL: `${server.url.replace(/\/v1$/, '')}/v1beta`,
        })('gemini-2.5-flash'),
      'gemini-2.5-flash',
    ],
  ]

  it.each(models)('fitMiddleware, %s', async (_name, make) => {
    fresh()
    const feedback = new CountingFeedback(server)
    const model = wrapLanguageModel({
      model: make(),
      middleware: fitMiddleware({ reserve: REPLY, feedback }),
    })
    const messages: ModelMessage[] = []
    for (let k = 0; k < TURNS; k++) {
      messages.push({ role: 'user', content: turn(k) })
      const out = await learning(feedback, () =>
        generateText({
          model,
          system: SYSTEM_PROMPT,
          messages,
          tools: { lookup },
          stopWhen: stepCountIs(3),
          maxOutputTokens: REPLY,
          maxRetries: 0,
        }),
      )
      messages.push(...out.response.messages)
    }
    check(server, feedback.counts)
  })

  it.each(models)('fitEachStep, %s', async (_name, make, id) => {
    fresh()
    const feedback = new CountingFeedback(server)
    const prepareStep = fitEachStep({
      system: SYSTEM_PROMPT,
      model: id,
      reserve: REPLY,
      tools: [LOOKUP_SCHEMA],
      feedback,
    })
    const model = make()
    const messages: ModelMessage[] = []
    for (let k = 0; k < TURNS; k++) {
      messages.push({ role: 'user', content: turn(k) })
      // The call's own context: a rejection is read against this call's counts.
      const context = { turn: k }
      const out = await learning({ learn: (e) => prepareStep.learn(e, context) }, () =>
        generateText({
          model,
          messages,
          tools: { lookup },
          stopWhen: stepCountIs(3),
          maxOutputTokens: REPLY,
          maxRetries: 0,
          prepareStep,
          experimental_context: context,
        }),
      )
      messages.push(...out.response.messages)
    }
    check(server, feedback.counts)
  })
})

describe('LangChain createAgent middleware', () => {
  const lookup = lcTool(async ({ query }) => lookupResult(query), {
    name: 'lookup',
    description: 'Look up a reservation',
    schema: z.object({ query: z.string() }),
  })
  const models: [string, () => ChatOpenAI | ChatAnthropic | ChatGoogleGenerativeAI][] = [
    ['chat completions', () => chatOpenAI(false)],
    ['Responses', () => chatOpenAI(true)],
    [
      'Anthropic',
      () =>
        new ChatAnthropic({
          model: 'claude-sonnet-4-6',
          apiKey: 'k',
          maxTokens: REPLY,
          maxRetries: 0,
          anthropicApiUrl: server.url.replace(/\/v1$/, ''),
        }),
    ],
    [
      'Gemini',
      () =>
        new ChatGoogleGenerativeAI({
          model: 'gemini-2.5-flash',
          apiKey: 'k',
          maxOutputTokens: REPLY,
          maxRetries: 0,
          baseUrl: server.url.replace(/\/v1$/, ''),
        }),
    ],
  ]
  const chatOpenAI = (useResponsesApi: boolean) =>
    new ChatOpenAI({
      model: 'gpt-4o',
      apiKey: 'k',
      maxTokens: REPLY,
      maxRetries: 0,
      useResponsesApi,
      configuration: { baseURL: server.url },
    })
  it.each(models)('fitAgentMessages, %s', async (_name, make) => {
    fresh()
    const feedback = new CountingFeedback(server)
    const agent = createAgent({
      model: make(),
      tools: [lookup],
      systemPrompt: SYSTEM_PROMPT,
      middleware: [fitAgentMessages({ reserve: REPLY, feedback })],
    })
    let messages: BaseMessage[] = []
    for (let k = 0; k < TURNS; k++) {
      const input = [...messages, new HumanMessage(turn(k))]
      const state = await learning(feedback, () => agent.invoke({ messages: input }))
      messages = state.messages
    }
    check(server, feedback.counts)
  })
})

describe('OpenAI Agents SDK', () => {
  const lookup = agentTool({
    name: 'lookup',
    description: 'Look up a reservation',
    parameters: z.object({ query: z.string() }),
    execute: async ({ query }) => lookupResult(query),
  })
  const client = () => new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })
  const models: [string, () => OpenAIResponsesModel | OpenAIChatCompletionsModel][] = [
    ['Responses', () => new OpenAIResponsesModel(client(), 'gpt-4o')],
    ['chat completions', () => new OpenAIChatCompletionsModel(client(), 'gpt-4o')],
  ]
  const agentOf = (model: Agent['model']) =>
    new Agent({
      name: 'airline',
      instructions: SYSTEM_PROMPT,
      model,
      modelSettings: { maxTokens: REPLY },
      tools: [lookup],
    })

  it.each(models)('fitModelInput (callModelInputFilter), %s', async (_name, make) => {
    fresh()
    const feedback = new CountingFeedback(server)
    const filter = fitModelInput({ model: 'gpt-4o', reserve: REPLY, feedback })
    const agent = agentOf(make())
    let history: AgentInputItem[] = []
    for (let k = 0; k < TURNS; k++) {
      const input = [...history, user(turn(k))]
      const context = { turn: k }
      const result = await learning({ learn: (e) => filter.learn(e, context) }, () =>
        run(agent, input, { context, callModelInputFilter: filter }),
      )
      history = result.history
    }
    check(server, feedback.counts)
  })

  it.each(models)('fitAgentModel, %s: learns by itself, nothing caught', async (_name, make) => {
    fresh()
    const feedback = new CountingFeedback(server)
    const agent = agentOf(fitAgentModel(make(), { model: 'gpt-4o', reserve: REPLY, feedback }))
    let history: AgentInputItem[] = []
    for (let k = 0; k < TURNS; k++) {
      const result = await run(agent, [...history, user(turn(k))])
      history = result.history
    }
    check(server, feedback.counts)
  })

  it('fittedSession with the model wrapped, Responses', async () => {
    fresh()
    const feedback = new CountingFeedback(server)
    const stored = new MemorySession()
    const session = fittedSession(stored, {
      model: 'gpt-4o',
      reserve: REPLY,
      instructions: SYSTEM_PROMPT,
      feedback,
    })
    const agent = agentOf(
      fitAgentModel(new OpenAIResponsesModel(client(), 'gpt-4o'), {
        model: 'gpt-4o',
        reserve: REPLY,
        feedback,
      }),
    )
    for (let k = 0; k < TURNS; k++) await run(agent, [user(turn(k))], { session })
    // The session kept every turn; the model saw a fitted history.
    const all = await stored.getItems()
    expect(all.filter((i) => 'role' in i && i.role === 'user')).toHaveLength(TURNS)
    check(server, feedback.counts)
  })
})

describe('Mastra input processor', () => {
  // Mastra sends a model given by URL through its OpenAI-compatible client: chat completions.
  it.each([['chat completions', 'openai/gpt-4o', 'gpt-4o']])(
    'fitInputProcessor, %s',
    async (_name, modelId, model) => {
      fresh()
      const feedback = new CountingFeedback(server)
      const lookup = createTool({
        id: 'lookup',
        description: 'Look up a reservation',
        inputSchema: z.object({ query: z.string() }),
        execute: async ({ context }) => lookupResult(context.query),
      })
      const processor = fitInputProcessor({
        model,
        reserve: REPLY,
        instructions: SYSTEM_PROMPT,
        tools: [LOOKUP_SCHEMA],
        feedback,
      })
      const agent = quiet(
        new MastraAgent({
          name: 'airline',
          instructions: SYSTEM_PROMPT,
          model: { id: modelId as `${string}/${string}`, url: server.url, apiKey: 'k' },
          tools: { lookup },
          inputProcessors: [processor],
        }),
      )
      // biome-ignore lint/suspicious/noExplicitAny: Mastra's message list accepts several shapes
      const messages: any[] = []
      // Mastra orders messages by createdAt: the clock stands still within a call and moves a
      // minute between turns, so the order is Mastra's own, not the machine's speed.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2025, 0, 1) })
      try {
        for (let k = 0; k < TURNS; k++) {
          vi.setSystemTime(Date.UTC(2025, 0, 1) + (k + 1) * 60_000)
          messages.push({ role: 'user', content: turn(k) })
          const result = await learning(feedback, () =>
            agent.generate(messages, {
              maxSteps: 3,
              modelSettings: { maxOutputTokens: REPLY, maxRetries: 0 },
            }),
          )
          messages.push(...(result.response.messages ?? []))
        }
      } finally {
        vi.useRealTimers()
      }
      // Mastra runs input processors once per generate call, not per step: the step after a
      // tool call is sent as Mastra extends the fitted list, with no fit of its own.
      expect(server.requests[0]?.path).toMatch(/\/chat\/completions$/)
      check(server, feedback.counts, { everyStep: false })
      expect(new Set(feedback.counts.map((c) => c.at)).size).toBeGreaterThanOrEqual(TURNS)
    },
  )
})

describe('SDK helpers', () => {
  it.each([
    ['chat completions', () => createOpenAI({ apiKey: 'k', baseURL: server.url }).chat('gpt-4o')],
    ['Anthropic', () => createAnthropic({ apiKey: 'k', baseURL: server.url })('claude-sonnet-4-5')],
  ])('fitAISDKMessages, AI SDK generateText one step at a time, %s', async (_name, make) => {
    fresh()
    const feedback = new CountingFeedback(server)
    const model = make()
    const lookup = aiTool({
      description: 'Look up a reservation',
      inputSchema: z.object({ query: z.string() }),
      execute: async ({ query }) => lookupResult(query),
    })
    const history: ModelMessage[] = [{ role: 'system', content: SYSTEM_PROMPT }]
    const call = () => {
      const { messages } = fitAISDKMessages(history, {
        model: model.modelId,
        provider: model.provider.startsWith('anthropic') ? 'anthropic' : 'openai',
        reserve: REPLY,
        tools: [LOOKUP_SCHEMA],
        feedback,
      })
      // The AI SDK takes the system prompt as `system`: the fit keeps it, first, and it is sent.
      const [system, ...rest] = messages
      if (system?.role !== 'system') throw new Error('the fit did not keep the system prompt first')
      return generateText({
        model,
        system,
        messages: rest,
        tools: { lookup },
        maxOutputTokens: REPLY,
        maxRetries: 0,
      })
    }
    for (let k = 0; k < TURNS; k++) {
      history.push({ role: 'user', content: turn(k) })
      for (let step = 0; step < 3; step++) {
        const out = await learning(feedback, call)
        feedback.observe(out)
        history.push(...out.response.messages)
        if (out.finishReason !== 'tool-calls') break
      }
    }
    check(server, feedback.counts)
  })

  it('fitOpenAIMessages, OpenAI SDK chat completions', async () => {
    fresh()
    const feedback = new CountingFeedback(server)
    const openai = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'lookup',
          description: 'Look up a reservation',
          parameters: {
            type: 'object',
            properties: { query: { type: 'string' } },
            required: ['query'],
          },
        },
      },
    ]
    const history: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: SYSTEM_PROMPT },
    ]
    const call = () => {
      const { messages } = fitOpenAIMessages(history, {
        model: 'gpt-4o',
        reserve: REPLY,
        tools,
        feedback,
      })
      return openai.chat.completions.create({
        model: 'gpt-4o',
        messages,
        tools,
        max_completion_tokens: REPLY,
      })
    }
    for (let k = 0; k < TURNS; k++) {
      history.push({ role: 'user', content: turn(k) })
      for (let step = 0; step < 3; step++) {
        const reply = await learning(feedback, call)
        feedback.observe(reply)
        const message = reply.choices[0]?.message
        if (!message) throw new Error('no choice')
        history.push(message)
        if (!message.tool_calls?.length) break
        for (const c of message.tool_calls)
          history.push({ role: 'tool', tool_call_id: c.id, content: lookupResult(`q${k}`) })
      }
    }
    check(server, feedback.counts)
  })

  it('fitAnthropicRequest, Anthropic SDK', async () => {
    fresh()
    const feedback = new CountingFeedback(server)
    const anthropic = new Anthropic({
      apiKey: 'k',
      baseURL: server.url.replace(/\/v1$/, ''),
      maxRetries: 0,
    })
    const tools = [
      {
        name: 'lookup',
        description: 'Look up a reservation',
        input_schema: {
          type: 'object' as const,
          properties: { query: { type: 'string' } },
          required: ['query'],
        },
      },
    ]
    const messages: Anthropic.MessageParam[] = []
    const call = () => {
      const { request } = fitAnthropicRequest(
        {
          model: 'claude-sonnet-4-6',
          system: SYSTEM_PROMPT,
          max_tokens: REPLY,
          tools,
          messages,
        },
        { feedback },
      )
      return anthropic.messages.create(request)
    }
    for (let k = 0; k < TURNS; k++) {
      messages.push({ role: 'user', content: turn(k) })
      for (let step = 0; step < 3; step++) {
        const reply = await learning(feedback, call)
        feedback.observe(reply)
        messages.push({ role: 'assistant', content: reply.content })
        const uses = reply.content.filter((b) => b.type === 'tool_use')
        if (uses.length === 0) break
        messages.push({
          role: 'user',
          content: uses.map((u) => ({
            type: 'tool_result' as const,
            tool_use_id: u.id,
            content: lookupResult(`q${k}`),
          })),
        })
      }
    }
    check(server, feedback.counts)
  })

  it('ChatContext with withContextRetry, Gemini (@google/genai)', async () => {
    fresh()
    const ai = new GoogleGenAI({
      apiKey: 'k',
      httpOptions: { baseUrl: server.url.replace(/\/v1$/, '') },
    })
    const tools = [
      {
        functionDeclarations: [
          {
            name: 'lookup',
            description: 'Look up a reservation',
            parametersJsonSchema: {
              type: 'object',
              properties: { query: { type: 'string' } },
              required: ['query'],
            },
          },
        ],
      },
    ]
    const ctx = new ChatContext({
      provider: 'gemini',
      format: 'gemini',
      model: 'gemini-2.5-flash',
      reserve: REPLY,
      tools: [LOOKUP_SCHEMA],
      initialMessages: [{ role: 'system', content: SYSTEM_PROMPT }],
    })
    const counts: { at: number; total: number }[] = []
    const send = (messages: Parameters<typeof toGemini>[0]) => {
      counts.push({
        at: server.requests.length,
        total: fit(messages, {
          provider: 'gemini',
          model: 'gemini-2.5-flash',
          tools: [LOOKUP_SCHEMA],
        }).tokens.total,
      })
      const { contents, systemInstruction } = toGemini(messages)
      return ai.models.generateContent({
        model: 'gemini-2.5-flash',
        contents,
        config: { systemInstruction, tools, maxOutputTokens: REPLY },
      })
    }
    for (let k = 0; k < TURNS; k++) {
      await ctx.addMessage({ role: 'user', parts: [{ text: turn(k) }] })
      for (let step = 0; step < 3; step++) {
        const { value } = await withContextRetry(send, ctx)
        const content = value.candidates?.[0]?.content
        if (!content) throw new Error('no candidate')
        await ctx.addMessage(content)
        const calls = (content.parts ?? []).filter((p) => p.functionCall)
        if (calls.length === 0) break
        await ctx.addMessage({
          role: 'user',
          parts: calls.map((p) => ({
            functionResponse: {
              name: p.functionCall?.name ?? 'lookup',
              response: { output: lookupResult(`q${k}`) },
            },
          })),
        })
      }
    }
    check(server, counts)
  })
})

describe('after a rejection without numbers (Responses), the next request fits whatever the reserve', () => {
  const lookup = agentTool({
    name: 'lookup',
    description: 'Look up a reservation',
    parameters: z.object({ query: z.string() }),
    execute: async ({ query }) => lookupResult(query),
  })
  const reserves: [string, number | undefined][] = [
    ['reserve 0', 0],
    ['the default reserve (the model’s output limit)', undefined],
    ['a huge reserve', 100_000],
  ]

  it.each(reserves)('fitAgentModel, %s', async (_name, reserve) => {
    fresh()
    const client = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })
    const model = fitAgentModel(new OpenAIResponsesModel(client, 'gpt-4o'), {
      model: 'gpt-4o',
      ...(reserve !== undefined && { reserve }),
    })
    const agent = new Agent({
      name: 'airline',
      instructions: SYSTEM_PROMPT,
      model,
      modelSettings: { maxTokens: REPLY },
      tools: [lookup],
    })
    let history: AgentInputItem[] = []
    for (let k = 0; k < TURNS; k++) {
      const result = await run(agent, [...history, user(turn(k))])
      history = result.history
    }
    check(server, undefined)
    rejectedThenSmaller()
    expect(model.feedback.limit).toBeDefined()
  })

  it.each(reserves)('AI SDK fitMiddleware, %s', async (_name, reserve) => {
    fresh()
    const aiLookup = aiTool({
      description: 'Look up a reservation',
      inputSchema: z.object({ query: z.string() }),
      execute: async ({ query }) => lookupResult(query),
    })
    const middleware = fitMiddleware({
      model: 'gpt-4o',
      ...(reserve !== undefined && { reserve }),
    })
    const model = wrapLanguageModel({
      model: createOpenAI({ apiKey: 'k', baseURL: server.url }).responses('gpt-4o'),
      middleware,
    })
    const messages: ModelMessage[] = []
    for (let k = 0; k < TURNS; k++) {
      messages.push({ role: 'user', content: turn(k) })
      const out = await generateText({
        model,
        system: SYSTEM_PROMPT,
        messages,
        tools: { lookup: aiLookup },
        stopWhen: stepCountIs(3),
        maxOutputTokens: REPLY,
        maxRetries: 0,
      })
      messages.push(...out.response.messages)
    }
    check(server, undefined)
    rejectedThenSmaller()
    expect(middleware.feedback.limit).toBeDefined()
  })
})

/** The request sent again after the rejection holds less than the rejected one, as the server counts. */
function rejectedThenSmaller() {
  const at = server.requests.findIndex((r) => r.rejected)
  const rejected = server.requests[at]
  const next = server.requests[at + 1]
  expect(next?.rejected).toBe(false)
  expect(next?.tokens).toBeLessThan(0.95 * (rejected?.tokens ?? 0))
}

describe('a stable view through an adapter that records usage after every call', () => {
  /** The share of requests whose messages start with the previous request's, as sent on the wire. */
  async function keptShare(usageScale: number): Promise<number> {
    const billing = await startLimitedServer({
      window: 1_000_000,
      usageScale,
      usageNoise: 0.015,
    })
    try {
      const middleware = fitMiddleware({
        strategy: tokenLimited({ stable: { evictAtLeast: 1200 } }),
        budget: 4000,
        reserve: 200,
      })
      const model = wrapLanguageModel({
        model: createOpenAI({ apiKey: 'k', baseURL: billing.url }).chat('gpt-4o'),
        middleware,
      })
      const messages: ModelMessage[] = []
      for (let k = 0; k < 80; k++) {
        messages.push({ role: 'user', content: userTurn(k, 30 + ((k * 37) % 70)) })
        const out = await generateText({
          model,
          system: SYSTEM_PROMPT,
          messages,
          maxOutputTokens: 200,
          maxRetries: 0,
        })
        messages.push(...out.response.messages)
      }
      expect(middleware.feedback.usageFactor).toBeGreaterThanOrEqual(usageScale)
      const wire = billing.requests.map((r) =>
        (r.body.messages as unknown[]).map((m) => JSON.stringify(m)),
      )
      let kept = 0
      for (let j = 1; j < wire.length; j++)
        if ((wire[j - 1] as string[]).every((m, i) => wire[j]?.[i] === m)) kept++
      for (const r of billing.requests) expect(r.tokens + 200).toBeLessThanOrEqual(4000)
      return kept / (wire.length - 1)
    } finally {
      await billing.close()
    }
  }

  it('fitMiddleware: the sent prefix is kept in at least 85% of calls, billed as counted or 17% more (±1.5%)', async () => {
    expect(await keptShare(1)).toBeGreaterThanOrEqual(0.85)
    expect(await keptShare(1.17)).toBeGreaterThanOrEqual(0.85)
  })
})

import type Anthropic from '@anthropic-ai/sdk'
import { generateText, type ModelMessage } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeOpenAI, startFakeOpenAI } from '../../test/helpers/openai-server.js'
import { tauBench } from '../../test/tau-bench.js'
import { fromAnthropic, toAnthropic } from '../providers/anthropic-messages/codec.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { errorsOf, validate } from '../providers/validate.js'
import { fitAnthropicRequest, fitEachStep, fitOpenAIMessages } from './index.js'
import { frameworkTools } from './shared.js'

const traj = tauBench()[11]?.traj ?? []

describe('OpenAI SDK', () => {
  let server: FakeOpenAI
  beforeAll(async () => {
    server = await startFakeOpenAI()
  })
  afterAll(async () => {
    await server.close()
  })

  it('fits before chat.completions.create; the SDK sends exactly the fitted list', async () => {
    const client = new OpenAI({ apiKey: 'test', baseURL: server.url })
    const { messages, result } = fitOpenAIMessages(
      traj as unknown as OpenAI.ChatCompletionMessageParam[],
      {
        budget: 2500,
      },
    )
    const reply = await client.chat.completions.create({ model: 'gpt-4o', messages })
    expect(reply.choices[0]?.message.content).toBe('summary')
    const sent = server.requests[0]?.body.messages as unknown[]
    expect(sent).toEqual(messages)
    expect(sent.length).toBe(result.kept.length + result.inserted.length)
    expect(errorsOf(validate(fromOpenAIChat(sent)))).toEqual([])
  })
})

describe('Anthropic SDK', () => {
  it('fits a request typed for messages.create: system kept, user first, results after their calls', () => {
    const request = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      ...toAnthropic(fromOpenAIChat(traj)),
    }
    const { lost: _lost, ...clean } = request
    const typed: Anthropic.MessageCreateParamsNonStreaming =
      clean as Anthropic.MessageCreateParamsNonStreaming
    const { request: fitted, result } = fitAnthropicRequest(typed, {
      model: 'claude-sonnet-4-5',
      budget: 5000,
    })
    expect(fitted.model).toBe('claude-sonnet-4-5')
    expect(fitted.max_tokens).toBe(1024)
    expect(typeof fitted.system).toBe('string')
    expect(fitted.messages[0]?.role).toBe('user')
    expect(errorsOf(validate(fromAnthropic(fitted), { provider: 'anthropic' }))).toEqual([])
    expect(result.tokens.total + result.tokens.reserve).toBeLessThanOrEqual(5000)
  })
})

describe('Anthropic SDK: what the request sends beside its messages', () => {
  it("counts the request's own tools and max_tokens: what it returns fits the budget as sent", () => {
    const tools: Anthropic.Messages.ToolUnion[] = Array.from({ length: 12 }, (_, k) => ({
      name: `tool_${k}`,
      description: 'Looks up a reservation by its code and returns every detail it holds. '.repeat(
        6,
      ),
      input_schema: {
        type: 'object' as const,
        properties: { code: { type: 'string', description: 'The six-letter code.' } },
      },
    }))
    tools.push({ type: 'web_search_20250305', name: 'web_search', max_uses: 2 })
    const { lost: _lost, ...clean } = toAnthropic(fromOpenAIChat(traj))
    const request: Anthropic.MessageCreateParamsNonStreaming = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1500,
      tools,
      ...(clean as Omit<Anthropic.MessageCreateParamsNonStreaming, 'model' | 'max_tokens'>),
    }
    const { request: fitted, result } = fitAnthropicRequest(request, { budget: 12_000 })
    expect(result.tokens.reserve).toBe(1500)
    expect(result.tokens.tools).toBeGreaterThan(0)
    // Counted apart from the library: o200k tokens of every text the messages hold, the tools
    // as their JSON, and the reply the request asks room for.
    const texts: string[] = []
    const walk = (v: unknown, key = ''): void => {
      if (typeof v === 'string') {
        if (!['type', 'id', 'tool_use_id', 'role'].includes(key)) texts.push(v)
      } else if (Array.isArray(v)) for (const x of v) walk(x)
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k)
    }
    walk({ system: fitted.system, messages: fitted.messages })
    const sent =
      texts.reduce((n, t) => n + encode(t).length, 0) +
      encode(JSON.stringify(fitted.tools)).length +
      (fitted.max_tokens as number)
    expect(sent).toBeLessThanOrEqual(12_000)
    expect(fitted.tools).toEqual(tools)
  })
})

describe('AI SDK', () => {
  it('prepareStep hands the model fitted messages on every step', async () => {
    const seen: number[] = []
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        seen.push(prompt.length)
        return {
          content: [{ type: 'text', text: 'ok' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
          warnings: [],
        }
      },
    })
    const messages: ModelMessage[] = []
    for (let k = 0; k < 60; k++) {
      messages.push({ role: 'user', content: `Question ${k} about the booking of flight HAT${k}?` })
      messages.push({
        role: 'assistant',
        content: `Answer ${k}: flight HAT${k} is confirmed for May ${(k % 28) + 1}.`,
      })
    }
    messages.push({ role: 'user', content: 'And the last one?' })
    await generateText({ model, messages, prepareStep: fitEachStep({ budget: 400 }) })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBeGreaterThan(1)
    expect(seen[0]).toBeLessThan(messages.length)
  })
})

describe('frameworkTools', () => {
  const schema = { type: 'object', properties: { q: { type: 'string' } } }
  it('reads function tools from the field the SDK uses, and keeps provider-run tools as their JSON', () => {
    const tools = [
      { type: 'function', name: 'lookup', description: 'Find it', inputSchema: schema },
      { type: 'provider', id: 'openai.web_search', name: 'web_search', args: { size: 'low' } },
      { type: 'function', name: 'bare' },
      { type: 'function', description: 'no name' },
      null,
    ]
    const read = frameworkTools(tools, 'inputSchema')
    expect(read.map((t) => ('hosted' in t ? t.hosted : { name: t.name, p: t.parameters }))).toEqual(
      [
        { name: 'lookup', p: schema },
        { type: 'openai.web_search', name: 'web_search', args: { size: 'low' } },
        { name: 'bare', p: undefined },
      ],
    )
    // Read from `parameters`, the same tool list gives no schema.
    expect(frameworkTools(tools).map((t) => ('hosted' in t ? 'hosted' : t.parameters))).toEqual([
      undefined,
      'hosted',
      undefined,
    ])
    expect(
      frameworkTools([
        { type: 'hosted_tool', name: 'search', providerData: { type: 'web_search' } },
        { type: 'function', name: 'f', parameters: schema, invoke: () => 1 },
      ]),
    ).toEqual([
      { hosted: { type: 'web_search', name: 'search' } },
      {
        name: 'f',
        parameters: schema,
        wire: { type: 'function', name: 'f', description: undefined, parameters: schema },
      },
    ])
    expect(frameworkTools(undefined)).toEqual([])
  })
})

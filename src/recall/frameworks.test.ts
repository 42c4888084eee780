import { makeCoreTool } from '@mastra/core/utils'
import { tool as agentsTool, type RunContext } from '@openai/agents'
import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { tool as langchainTool } from 'langchain'
import { describe, expect, it, vi } from 'vitest'
import { toAISDK } from '../formats/ai-sdk.js'
import { decode } from '../formats/detect.js'
import { fitMiddleware } from '../integrations/ai-sdk.js'
import type { Message } from '../messages/message.js'
import { toAnthropic } from '../providers/anthropic-messages/codec.js'
import { toOpenAIChat } from '../providers/openai-chat/codec.js'
import { exactCounter } from '../tokens/counters.js'
import {
  recallToolForAISDK,
  recallToolForLangChain,
  recallToolForMastra,
  recallToolForOpenAIAgents,
} from './frameworks.js'
import { RecallIndex } from './recall-index.js'

const counter = exactCounter()

/** An agent's history whose early profile lookup a small budget drops. */
function agentHistory(): Message[] {
  const h: Message[] = [{ role: 'system', content: 'You are an airline agent.' }]
  h.push({ role: 'user', content: 'I am ivan_muller_7015.' })
  h.push({
    role: 'assistant',
    toolCalls: [
      { id: 'c1', name: 'get_user_details', arguments: '{"user_id":"ivan_muller_7015"}' },
    ],
  })
  h.push({
    role: 'tool',
    toolCallId: 'c1',
    content: JSON.stringify({
      payment_methods: { gift_card_8516878: { amount: 128 } },
      agent_note: 'waive the change fee once, approved by Dana',
      token: 'Bearer sk-live-Q7abcdefghijklmnop0123x9',
    }),
  })
  for (let k = 0; k < 10; k++) {
    h.push({ role: 'user', content: `Question ${k}: ${'about seats and bags '.repeat(25)}` })
    h.push({ role: 'assistant', content: `Answer ${k}: ${'the policy says so '.repeat(25)}` })
  }
  h.push({ role: 'user', content: 'Book it with my gift card.' })
  return h
}

const query = { query: 'book_reservation payment_methods' }

describe('the recall tool in each framework, run by the framework itself', () => {
  it('AI SDK: generateText runs it on the model`s call; the result holds the dropped id, no credential', async () => {
    const history = toAISDK(agentHistory())
    const recall = recallToolForAISDK({ history: () => history, budget: 700, counter })
    let step = 0
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        step++
        return step === 1
          ? {
              content: [
                {
                  type: 'tool-call',
                  toolCallId: 'r1',
                  toolName: 'recall',
                  input: JSON.stringify(query),
                },
              ],
              finishReason: { unified: 'tool-calls', raw: undefined },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'done' }],
              finishReason: { unified: 'stop', raw: undefined },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
              warnings: [],
            }
      },
    })
    const r = await generateText({ model, tools: { recall }, prompt: 'Book it.' })
    const results = r.toolResults
    expect(results).toHaveLength(1)
    const output = String(results[0]?.output)
    expect(output).toContain('gift_card_8516878')
    expect(output).not.toContain('Q7abcdefghijklmnop0123x9')
    // The SDK sent the tool's schema as the JSON Schema the library defines.
    const sent = model.doGenerateCalls[0]?.tools?.[0]
    expect(sent).toMatchObject({ type: 'function', name: 'recall' })
    expect((sent as { inputSchema: { properties: object } }).inputSchema.properties).toHaveProperty(
      'query',
    )
  })

  it('LangChain: tool(func, fields) makes a tool that returns the recall', async () => {
    const history = toOpenAIChat(agentHistory())
    const t = recallToolForLangChain({ history: () => history, budget: 700, counter })
    const made = langchainTool(t.func, t)
    expect(made.name).toBe('recall')
    const out = await made.invoke(query)
    expect(String(out)).toContain('gift_card_8516878')
    expect(String(out)).not.toContain('Q7abcdefghijklmnop0123x9')
  })

  it('OpenAI Agents: tool(options) makes a function tool the runner can invoke', async () => {
    const history = toOpenAIChat(agentHistory())
    const made = agentsTool(
      recallToolForOpenAIAgents({ history: () => history, budget: 700, counter }),
    )
    expect(made.name).toBe('recall')
    expect(made.parameters).toMatchObject({ type: 'object' })
    const out = await made.invoke({} as RunContext, JSON.stringify(query))
    expect(String(out)).toContain('gift_card_8516878')
    expect(String(out)).not.toContain('Q7abcdefghijklmnop0123x9')
    // Bad arguments are the result, not an exception that stops the run.
    expect(String(await made.invoke({} as RunContext, '{"messages":"x"}'))).toMatch(/recall: /)
  })

  it('AI SDK with fitMiddleware({ recall: true }): the ledger sent names recall, and what only recall returns reaches the next step', async () => {
    const history = toAISDK(agentHistory())
    const recall = recallToolForAISDK({ history: () => history, budget: 700, counter })
    const prompts: unknown[][] = []
    const model = new MockLanguageModelV3({
      doGenerate: async (call) => {
        prompts.push(call.prompt as unknown[])
        const usage = {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        }
        return prompts.length === 1
          ? {
              content: [
                {
                  type: 'tool-call',
                  toolCallId: 'r1',
                  toolName: 'recall',
                  input: JSON.stringify(query),
                },
              ],
              finishReason: { unified: 'tool-calls', raw: undefined },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'ok' }],
              finishReason: { unified: 'stop', raw: undefined },
              usage,
              warnings: [],
            }
      },
    })
    const wrapped = wrapLanguageModel({
      model,
      middleware: fitMiddleware({ budget: 1400, counter, recall: true }),
    })
    // The system prompt goes as generateText's own `system`, as the AI SDK asks.
    const [system, ...rest] = history as ModelMessage[]
    expect(system?.role).toBe('system')
    await generateText({
      model: wrapped,
      tools: { recall },
      system: system?.content as string,
      messages: rest,
      stopWhen: stepCountIs(2),
    })
    expect(prompts).toHaveLength(2)
    const first = JSON.stringify(prompts[0])
    expect(first).toContain('The recall tool returns any left-out message')
    // What the ledger does not quote (a note's wording) reaches the model only by recall.
    expect(first).not.toContain('approved by Dana')
    const second = JSON.stringify(prompts[1])
    expect(second).toContain('approved by Dana')
    expect(second).not.toContain('Q7abcdefghijklmnop0123x9')
  })

  it('Mastra: the core tool Mastra builds from it keeps the schema and runs the recall', async () => {
    const history = toOpenAIChat(agentHistory())
    const core = makeCoreTool(
      recallToolForMastra({ history: () => history, budget: 700, counter }) as never,
      { name: 'recall' } as never,
    )
    const sent = JSON.stringify(core.parameters)
    expect(sent).toContain('"query":{"type":"string"')
    expect(sent).toContain('"messages":{"type":"array"')
    const out = String(
      await core.execute?.(query as never, { toolCallId: 'r1', messages: [] } as never),
    )
    expect(out).toContain('gift_card_8516878')
    expect(out).not.toContain('Q7abcdefghijklmnop0123x9')
  })
})

describe('the recall tool called again over a history that grows', () => {
  it('reads only the messages added since, behind the same system prompt, and answers as a new tool', async () => {
    const chat = toOpenAIChat(agentHistory().slice(1)) as Record<string, unknown>[]
    const options = { budget: 700, counter, system: 'You are an airline agent.' }
    const t = recallToolForLangChain({ history: () => chat, ...options })
    const add = vi.spyOn(RecallIndex.prototype, 'add')
    const copy = vi.spyOn(RecallIndex.prototype, 'withFirst')
    try {
      await t.func(query)
      // The system prompt and every entry, read once.
      expect(add).toHaveBeenCalledTimes(chat.length + 1)
      for (const k of [1, 2, 3]) {
        chat.push({ role: 'assistant', content: `Noted ${k}.` })
        chat.push({ role: 'user', content: `And the __proto__ of gift_card_8516878, part ${k}?` })
        add.mockClear()
        const got = await t.func(query)
        expect(add).toHaveBeenCalledTimes(2)
        // What a tool reading all of it anew returns.
        const fresh = recallToolForLangChain({ history: () => structuredClone(chat), ...options })
        expect(got).toBe(await fresh.func(query))
        add.mockClear()
      }
      expect(copy).not.toHaveBeenCalled()
    } finally {
      add.mockRestore()
      copy.mockRestore()
    }
  })

  it('an entry replaced by another of a different text is read again', async () => {
    const chat = toOpenAIChat(agentHistory().slice(1)) as Record<string, unknown>[]
    const t = recallToolForLangChain({ history: () => chat, budget: 700, counter })
    expect(await t.func({ query: 'zanzibar' })).toContain('nothing left out matches')
    chat[3] = { role: 'user', content: 'Question 0: flying to zanzibar with a surfboard' }
    const got = await t.func({ query: 'zanzibar' })
    expect(got).toContain('surfboard')
    expect(got).toContain('message 3 by user')
  })

  it('entries read as several messages: each entry is decoded apart once, not on every call', async () => {
    const h = agentHistory()
    // Anthropic: a user turn holding a tool result and text reads as two messages.
    h.splice(4, 0, { role: 'user', content: 'and thanks' })
    const plain = toAnthropic(h).messages as unknown as Record<string, unknown>[]
    let reads = 0
    const counted = (e: Record<string, unknown>) =>
      new Proxy(e, {
        get(target, key, receiver) {
          if (key === 'content') reads++
          return Reflect.get(target, key, receiver)
        },
      })
    const entries = plain.map(counted)
    expect(decode(entries, 'anthropic').messages.length).toBeGreaterThan(entries.length)
    reads = 0
    decode(entries, 'anthropic')
    const once = reads
    expect(once).toBeGreaterThan(0)
    const t = recallToolForLangChain({
      history: () => entries,
      format: 'anthropic',
      system: 'You are an airline agent.',
      budget: 700,
      counter,
    })
    const first = await t.func(query)
    expect(first).toContain('gift_card_8516878')
    reads = 0
    const again = await t.func(query)
    expect(again).toBe(first)
    expect(reads).toBe(once)
  })
})

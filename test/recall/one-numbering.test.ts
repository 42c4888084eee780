// One numbering: whichever way the system prompt is given (apart, as the AI SDK's `system`,
// `fitEachStep`'s `system`, LangChain's `systemPrompt`, an agent's instructions, or inside the
// history), the number the ledger puts on a message and the number recall returns for it are
// the same, and both are that message's index in the caller's own array. The histories are
// written here by hand in each framework's shape; the oracle reads the caller's array and
// the texts the model is sent, apart from `src/`.
import { tool as agentsTool, type RunContext } from '@openai/agents'
import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { AIMessage, HumanMessage, tool as langchainTool, ToolMessage } from 'langchain'
import { describe, expect, it } from 'vitest'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { fit } from '../../src/context/fit.js'
import { fitEachStep, fitMiddleware } from '../../src/integrations/ai-sdk.js'
import { fitAgentMessages } from '../../src/integrations/langchain.js'
import { fitInputProcessor } from '../../src/integrations/mastra.js'
import { fitModelInput, fittedSession } from '../../src/integrations/openai-agents.js'
import type { Message } from '../../src/messages/message.js'
import {
  recallToolForAISDK,
  recallToolForLangChain,
  recallToolForMastra,
  recallToolForOpenAIAgents,
} from '../../src/recall/frameworks.js'
import { executeRecall, recall } from '../../src/recall/index.js'
import { exactCounter } from '../../src/tokens/counters.js'

const counter = exactCounter()
const SYSTEM = 'You are a travel desk agent. Be brief.'
/** Each fact is held by one message of the caller's history, and the ledger quotes it. */
const FACTS = ['BKG-40417', 'BKG-50518', 'CAR-77120'] as const
const options = { budget: 900, counter, recall: true } as const

const filler = (k: number, who: string) =>
  `${who} turn ${k}: ${'we talked about seats, meals and the weather at length '.repeat(5)}`

/** The heading the ledger opens with, and its lines: `message N by WHO: ...`. */
const LEDGER = '[Earlier messages were left out to fit the context window.'

/** The text of the ledger among the messages or items sent (in any shape), or undefined. */
function ledgerIn(sent: unknown): string | undefined {
  const texts: string[] = []
  const walk = (v: unknown) => {
    if (typeof v === 'string') texts.push(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object') Object.values(v).forEach(walk)
  }
  walk(sent)
  return texts.find((t) => t.startsWith(LEDGER))
}

/** The numbers of the lines of a ledger or a recall result that hold `fact`. */
function numbersHolding(text: string, fact: string): number[] {
  const out: number[] = []
  for (const line of text.split('\n')) {
    const m = /^message (\d+) by [^:]*:/.exec(line)
    if (m && line.includes(fact)) out.push(Number(m[1]))
  }
  return out
}

/** Where the caller's own array holds `fact`: the index of every entry whose JSON holds it. */
function indexesIn(entries: readonly unknown[], fact: string): number[] {
  const out: number[] = []
  entries.forEach((e, i) => {
    if (JSON.stringify(e).includes(fact)) out.push(i)
  })
  return out
}

/**
 * The check for one entry point: for each fact, the ledger's number, the number recall
 * returns when asked by that number and when asked by the fact, and the caller's index.
 */
async function sameNumbers(
  entries: readonly unknown[],
  ledger: string | undefined,
  recallBy: (args: unknown) => Promise<string> | string,
) {
  expect(ledger, 'a ledger was sent').toBeDefined()
  for (const fact of FACTS) {
    const [at, ...others] = indexesIn(entries, fact)
    expect(others, `${fact} is in one entry`).toEqual([])
    expect(numbersHolding(ledger as string, fact), `ledger number of ${fact}`).toEqual([at])
    const byNumber = await recallBy({ messages: [at] })
    expect(numbersHolding(byNumber, fact), `recall({ messages: [${at}] })`).toEqual([at])
    const byQuery = await recallBy({ query: fact })
    expect(numbersHolding(byQuery, fact), `recall({ query: "${fact}" })`).toEqual([at])
  }
}

// The history in each framework's own shape, the system prompt apart.

/** AI SDK `ModelMessage`s: the two parallel results are one tool message. */
function aiSdkMessages(): ModelMessage[] {
  const result = (id: string, name: string, value: unknown) => ({
    type: 'tool-result' as const,
    toolCallId: id,
    toolName: name,
    output: { type: 'json' as const, value: value as never },
  })
  const call = (id: string, name: string, slot: string) => ({
    type: 'tool-call' as const,
    toolCallId: id,
    toolName: name,
    input: { slot },
  })
  const out: ModelMessage[] = [
    { role: 'user', content: 'Please find my bookings.' },
    {
      role: 'assistant',
      content: [call('c1', 'get_booking', 'first'), call('c2', 'get_booking', 'second')],
    },
    {
      role: 'tool',
      content: [
        result('c1', 'get_booking', { booking_id: FACTS[0], city: 'Lyon' }),
        result('c2', 'get_booking', { booking_id: FACTS[1], city: 'Turin' }),
      ],
    },
    { role: 'assistant', content: 'I found two bookings.' },
    { role: 'user', content: 'And my car rental?' },
    { role: 'assistant', content: [call('c3', 'get_car', 'car')] },
    {
      role: 'tool',
      content: [result('c3', 'get_car', { car_ref: FACTS[2], pickup: 'airport' })],
    },
    { role: 'assistant', content: 'Your car is booked.' },
  ]
  for (let k = 0; k < 8; k++)
    out.push(
      { role: 'user', content: filler(k, 'user') },
      { role: 'assistant', content: filler(k, 'agent') },
    )
  out.push({ role: 'user', content: 'Change the Lyon booking.' })
  return out
}

/** LangChain message instances: one `ToolMessage` per result. */
function langchainMessages() {
  const out = [
    new HumanMessage('Please find my bookings.'),
    new AIMessage({
      content: '',
      tool_calls: [
        { id: 'c1', name: 'get_booking', args: { slot: 'first' } },
        { id: 'c2', name: 'get_booking', args: { slot: 'second' } },
      ],
    }),
    new ToolMessage({
      tool_call_id: 'c1',
      content: JSON.stringify({ booking_id: FACTS[0], city: 'Lyon' }),
    }),
    new ToolMessage({
      tool_call_id: 'c2',
      content: JSON.stringify({ booking_id: FACTS[1], city: 'Turin' }),
    }),
    new AIMessage('I found two bookings.'),
    new HumanMessage('And my car rental?'),
    new AIMessage({
      content: '',
      tool_calls: [{ id: 'c3', name: 'get_car', args: { slot: 'car' } }],
    }),
    new ToolMessage({
      tool_call_id: 'c3',
      content: JSON.stringify({ car_ref: FACTS[2], pickup: 'airport' }),
    }),
    new AIMessage('Your car is booked.'),
  ]
  for (let k = 0; k < 8; k++)
    out.push(new HumanMessage(filler(k, 'user')), new AIMessage(filler(k, 'agent')))
  out.push(new HumanMessage('Change the Lyon booking.'))
  return out
}

/** The OpenAI Agents SDK's own items (`callId`, `function_call_result`, message items). */
function agentsItems(): Record<string, unknown>[] {
  const user = (text: string) => ({ type: 'message', role: 'user', content: text })
  const said = (text: string) => ({
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text }],
  })
  const call = (id: string, name: string, slot: string) => ({
    type: 'function_call',
    callId: id,
    name,
    status: 'completed',
    arguments: JSON.stringify({ slot }),
  })
  const result = (id: string, name: string, value: unknown) => ({
    type: 'function_call_result',
    callId: id,
    name,
    status: 'completed',
    output: { type: 'text', text: JSON.stringify(value) },
  })
  const out: Record<string, unknown>[] = [
    user('Please find my bookings.'),
    // One model turn of three items (read as one assistant message, numbered by its first).
    said('Looking them up.'),
    call('c1', 'get_booking', 'first'),
    call('c2', 'get_booking', 'second'),
    result('c1', 'get_booking', { booking_id: FACTS[0], city: 'Lyon' }),
    result('c2', 'get_booking', { booking_id: FACTS[1], city: 'Turin' }),
    said('I found two bookings.'),
    user('And my car rental?'),
    call('c3', 'get_car', 'car'),
    result('c3', 'get_car', { car_ref: FACTS[2], pickup: 'airport' }),
    said('Your car is booked.'),
  ]
  for (let k = 0; k < 8; k++) out.push(user(filler(k, 'user')), said(filler(k, 'agent')))
  out.push(user('Change the Lyon booking.'))
  return out
}

/** Mastra's stored messages (content format 2): a call and its result are parts of one message. */
function mastraMessages() {
  let n = 0
  const message = (role: 'user' | 'assistant', parts: unknown[]) => ({
    id: `m${n}`,
    role,
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, n++)),
    threadId: 't1',
    content: { format: 2 as const, parts },
  })
  const text = (t: string) => ({ type: 'text', text: t })
  const invocation = (id: string, name: string, slot: string, value: unknown) => ({
    type: 'tool-invocation',
    toolInvocation: {
      state: 'result',
      toolCallId: id,
      toolName: name,
      args: { slot },
      result: value,
    },
  })
  const out = [
    message('user', [text('Please find my bookings.')]),
    message('assistant', [
      invocation('c1', 'get_booking', 'first', { booking_id: FACTS[0], city: 'Lyon' }),
    ]),
    message('assistant', [
      invocation('c2', 'get_booking', 'second', { booking_id: FACTS[1], city: 'Turin' }),
      text('I found two bookings.'),
    ]),
    message('user', [text('And my car rental?')]),
    message('assistant', [
      invocation('c3', 'get_car', 'car', { car_ref: FACTS[2], pickup: 'airport' }),
    ]),
    message('assistant', [text('Your car is booked.')]),
  ]
  for (let k = 0; k < 8; k++)
    out.push(
      message('user', [text(filler(k, 'user'))]),
      message('assistant', [text(filler(k, 'agent'))]),
    )
  out.push(message('user', [text('Change the Lyon booking.')]))
  return out
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/**
 * A model that, on its first step, reads the ledger in its prompt and asks recall for the
 * message the ledger names for `fact`; on the second it stops. Its prompts are kept.
 */
function askingModel(fact: string) {
  const prompts: unknown[] = []
  const model = new MockLanguageModelV3({
    doGenerate: async (call) => {
      prompts.push(call.prompt)
      if (prompts.length > 1)
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        }
      const ledger = ledgerIn(call.prompt) ?? ''
      const [n] = numbersHolding(ledger, fact)
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: 'r1',
            toolName: 'recall',
            input: JSON.stringify({ messages: [n] }),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      }
    },
  })
  return { model, prompts }
}

describe('one numbering: the ledger and recall name a message by its index in the caller`s history', () => {
  it('AI SDK fitEachStep({ system }): the prepared step`s ledger and the tool over the messages the SDK hands it', async () => {
    const messages = aiSdkMessages()
    const prepare = fitEachStep({ system: SYSTEM, ...options })
    const step = prepare({ messages, steps: [] })
    expect(step.system).toBe(SYSTEM)
    const tool = recallToolForAISDK({ system: SYSTEM, ...options })
    await sameNumbers(messages, ledgerIn(step.messages), (args) => tool.execute(args, { messages }))
  })

  it('AI SDK generateText with fitEachStep: the model asks by the ledger`s number and gets that message', async () => {
    const messages = aiSdkMessages()
    for (const fact of FACTS) {
      const { model, prompts } = askingModel(fact)
      const r = await generateText({
        model,
        messages,
        tools: { recall: recallToolForAISDK({ system: SYSTEM, ...options }) },
        prepareStep: fitEachStep({ system: SYSTEM, ...options }),
        stopWhen: stepCountIs(2),
      })
      const [at] = indexesIn(messages, fact)
      expect(numbersHolding(ledgerIn(prompts[0]) ?? '', fact)).toEqual([at])
      expect(numbersHolding(String(r.steps[0]?.toolResults[0]?.output), fact)).toEqual([at])
    }
  })

  it('AI SDK generateText({ system }) with fitMiddleware: the same, the system prompt first in the prompt', async () => {
    const messages = aiSdkMessages()
    for (const fact of FACTS) {
      const { model, prompts } = askingModel(fact)
      const r = await generateText({
        model: wrapLanguageModel({ model, middleware: fitMiddleware(options) }),
        system: SYSTEM,
        messages,
        tools: { recall: recallToolForAISDK({ system: SYSTEM, ...options }) },
        stopWhen: stepCountIs(2),
      })
      const first = prompts[0] as { role: string }[]
      expect(first[0]?.role).toBe('system')
      const [at] = indexesIn(messages, fact)
      expect(numbersHolding(ledgerIn(first) ?? '', fact)).toEqual([at])
      expect(numbersHolding(String(r.steps[0]?.toolResults[0]?.output), fact)).toEqual([at])
    }
  })

  it('LangChain fitAgentMessages with systemPrompt, and the LangChain tool over the agent`s messages', async () => {
    const messages = langchainMessages()
    let sent: unknown
    await fitAgentMessages(options).wrapModelCall(
      { messages, systemPrompt: SYSTEM, tools: [] },
      async (request) => {
        sent = request.messages.map((m) => m.toDict())
        return new AIMessage('ok')
      },
    )
    const t = recallToolForLangChain({ history: () => messages, system: SYSTEM, ...options })
    const made = langchainTool(t.func, t)
    await sameNumbers(messages, ledgerIn(sent), async (args) => String(await made.invoke(args)))
  })

  it('OpenAI Agents fitModelInput with instructions, and the Agents tool over the SDK`s own items', async () => {
    const items = agentsItems()
    const filter = fitModelInput(options)
    const fitted = filter({ modelData: { input: items, instructions: SYSTEM }, agent: {} })
    const made = agentsTool(
      recallToolForOpenAIAgents({ history: () => items, system: SYSTEM, ...options }),
    )
    await sameNumbers(items, ledgerIn(fitted.input), async (args) =>
      String(await made.invoke({} as RunContext, JSON.stringify(args))),
    )
  })

  it('OpenAI Agents fittedSession with instructions: the session`s items numbered as stored', async () => {
    const items = agentsItems()
    const session = fittedSession(
      {
        getSessionId: async () => 's1',
        getItems: async () => items,
        addItems: async () => {},
        popItem: async () => undefined,
        clearSession: async () => {},
      },
      { instructions: SYSTEM, ...options },
    )
    const tool = recallToolForOpenAIAgents({
      history: () => session.allItems(),
      system: SYSTEM,
      ...options,
    })
    await sameNumbers(items, ledgerIn(await session.getItems()), (args) => tool.execute(args))
  })

  it('Mastra fitInputProcessor with instructions, and the Mastra tool over its stored messages', async () => {
    const messages = mastraMessages()
    const processor = fitInputProcessor({ instructions: SYSTEM, ...options })
    const sent = processor.processInput({ messages })
    const tool = recallToolForMastra({ history: () => messages, system: SYSTEM, ...options })
    await sameNumbers(messages, ledgerIn(sent), (args) => tool.execute(args))
  })

  it('the system prompt inside the history (fit, executeRecall, recall, ChatContext): its index counts', async () => {
    const h: Message[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'Please find my bookings.' },
      {
        role: 'assistant',
        toolCalls: [
          { id: 'c1', name: 'get_booking', arguments: '{"slot":"first"}' },
          { id: 'c2', name: 'get_booking', arguments: '{"slot":"second"}' },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'c1',
        content: JSON.stringify({ booking_id: FACTS[0], city: 'Lyon' }),
      },
      {
        role: 'tool',
        toolCallId: 'c2',
        content: JSON.stringify({ booking_id: FACTS[1], city: 'Turin' }),
      },
      { role: 'assistant', content: 'I found two bookings.' },
      { role: 'user', content: 'And my car rental?' },
      {
        role: 'assistant',
        toolCalls: [{ id: 'c3', name: 'get_car', arguments: '{"slot":"car"}' }],
      },
      {
        role: 'tool',
        toolCallId: 'c3',
        content: JSON.stringify({ car_ref: FACTS[2], pickup: 'airport' }),
      },
      { role: 'assistant', content: 'Your car is booked.' },
    ]
    for (let k = 0; k < 8; k++)
      h.push(
        { role: 'user', content: filler(k, 'user') },
        { role: 'assistant', content: filler(k, 'agent') },
      )
    h.push({ role: 'user', content: 'Change the Lyon booking.' })
    const ledger = ledgerIn(fit(h, options).messages)
    await sameNumbers(h, ledger, (args) => executeRecall(h, args, options))
    await sameNumbers(h, ledger, (args) => recall(h, args as never, options).text)
    const ctx = new ChatContext({ ...options, initialMessages: [h[0] as Message] })
    ctx.addMessages(h.slice(1))
    await sameNumbers(h, ledgerIn(await ctx.getMessages()), async (args) => {
      const r = await ctx.recall(args)
      // The numbers the result lists are those its lines name.
      expect(r.messages).toEqual([...new Set(numbersHolding(r.text, ''))].sort((a, b) => a - b))
      return r.text
    })
  })
})

import { ChatOpenAI } from '@langchain/openai'
import {
  AIMessage,
  BaseMessage,
  createAgent,
  createMiddleware,
  HumanMessage,
  ToolMessage,
  tool,
} from 'langchain'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isLedger } from '../../test/helpers/ledger.js'
import { type LimitedServer, startLimitedServer } from '../../test/helpers/limited-server.js'
import { SYSTEM_PROMPT, userTurn } from '../../test/helpers/turns.js'
import { fitAgentMessages } from './langchain.js'

const lookup = tool(async ({ query }) => `Reservation ${query}: ${userTurn(7, 60)}`, {
  name: 'lookup',
  description: 'Look up a reservation',
  schema: z.object({ query: z.string() }),
})

/** Records what each model call is handed after the fitting middleware. */
function spy() {
  const seen: { messages: BaseMessage[]; state: BaseMessage[] }[] = []
  const middleware = createMiddleware({
    name: 'Spy',
    wrapModelCall: async (request, handler) => {
      seen.push({ messages: [...request.messages], state: [...request.state.messages] })
      return handler(request)
    },
  })
  return { seen, middleware }
}

describe('LangChain v1 createAgent middleware against a loopback server', () => {
  let server: LimitedServer
  beforeAll(async () => {
    server = await startLimitedServer({ window: 4200 })
  })
  afterAll(async () => {
    await server.close()
  })

  it('an 8-turn agent loop: one rejection, instances in and out, tool calls with their results', async () => {
    server.requests.length = 0
    const model = new ChatOpenAI({
      model: 'gpt-4o',
      apiKey: 'k',
      maxTokens: 400,
      maxRetries: 0,
      configuration: { baseURL: server.url },
    })
    const fitting = fitAgentMessages({ reserve: 400 })
    const { seen, middleware: recorder } = spy()
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: SYSTEM_PROMPT,
      middleware: [fitting, recorder] as const,
    })
    let messages: BaseMessage[] = []
    for (let k = 0; k < 8; k++) {
      const state = await agent.invoke({
        messages: [...messages, new HumanMessage(userTurn(k, 500))],
      })
      messages = state.messages
    }
    expect(server.rejections).toBe(1)
    expect(fitting.feedback.limit).toBeLessThanOrEqual(4200)
    const accepted = server.requests.filter((r) => !r.rejected)
    expect(accepted.length).toBeGreaterThanOrEqual(16)
    for (const r of accepted) {
      expect(r.tokens + 400).toBeLessThanOrEqual(4200)
      const wire = r.body.messages as { role: string; content: unknown; tool_call_id?: string }[]
      expect(wire[0]?.role).toBe('system')
      expect(JSON.stringify(wire[0]?.content)).toContain(SYSTEM_PROMPT)
      expect(wire.filter((m) => m.role === 'system')).toHaveLength(1)
      // Every tool result follows the assistant message that called it.
      const called = new Set<string>()
      for (const m of wire as {
        role: string
        tool_calls?: { id: string }[]
        tool_call_id?: string
      }[]) {
        for (const c of m.tool_calls ?? []) called.add(c.id)
        if (m.role === 'tool') expect(called.has(m.tool_call_id as string)).toBe(true)
      }
    }
    // What the model was handed: the agent's own instances, fewer of them once the window binds.
    for (const call of seen) {
      for (const m of call.messages) {
        expect(m).toBeInstanceOf(BaseMessage)
        // The one message the library writes: the ledger of what was left out.
        if (!isLedger(m)) expect(call.state).toContain(m)
      }
    }
    expect(seen.some((c) => c.messages.length < c.state.length)).toBe(true)
    // The agent's state keeps the whole history.
    expect(messages.filter((m) => HumanMessage.isInstance(m))).toHaveLength(8)
    expect(messages.some((m) => AIMessage.isInstance(m))).toBe(true)
    expect(messages.some((m) => ToolMessage.isInstance(m))).toBe(true)
  })

  it('repairs what a provider rejects: an orphan result goes, an unanswered call is sent without it, as a new AIMessage', async () => {
    const fitting = fitAgentMessages({ budget: 100_000 })
    const orphan = new ToolMessage({ content: 'late', tool_call_id: 'ghost.1' })
    const hanging = new AIMessage({
      content: 'Let me check. 🛫',
      tool_calls: [{ id: 'call.1', name: 'lookup', args: { q: '__proto__' } }],
    })
    const question = new HumanMessage('')
    const last = new HumanMessage('And the seat? 𝔘')
    const messages = [question, orphan, hanging, last]
    let handed: BaseMessage[] = []
    await fitting.wrapModelCall(
      { messages, systemPrompt: SYSTEM_PROMPT, tools: [] },
      async (request: { messages: BaseMessage[] }) => {
        handed = request.messages
        return new AIMessage('ok')
      },
    )
    expect(handed).not.toContain(orphan)
    expect(handed[0]).toBe(question)
    expect(handed[handed.length - 1]).toBe(last)
    const ai = handed.find((m) => AIMessage.isInstance(m)) as AIMessage
    expect(ai).toBeDefined()
    expect(ai).not.toBe(hanging)
    expect(ai).toBeInstanceOf(AIMessage)
    expect(ai.tool_calls ?? []).toEqual([])
    expect(ai.content).toBe('Let me check. 🛫')
    // The caller's messages are untouched.
    expect(hanging.tool_calls).toHaveLength(1)
  })

  it('passes other errors through and retries a rejection once', async () => {
    const fitting = fitAgentMessages({ budget: 100_000 })
    const messages = [
      new HumanMessage(userTurn(1, 300)),
      new AIMessage('ok'),
      new HumanMessage('next'),
    ]
    await expect(
      fitting.wrapModelCall({ messages, tools: [] }, async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    const sizes: number[] = []
    await fitting.wrapModelCall(
      { messages, tools: [] },
      async (request: { messages: BaseMessage[] }) => {
        sizes.push(request.messages.length)
        if (sizes.length === 1)
          throw new Error(
            "This model's maximum context length is 120 tokens. However, your messages resulted in 400 tokens.",
          )
        return new AIMessage('ok')
      },
    )
    // The long first turn no longer fits the learnt window; the two short ones do.
    expect(sizes).toEqual([3, 2])
    // The provider counted 400 where we counted fewer: the window is scaled down by that ratio.
    expect(fitting.feedback.limit).toBeLessThan(120)
    expect(fitting.feedback.limit).toBeGreaterThanOrEqual(60)
  })
})

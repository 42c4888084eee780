import {
  Agent,
  type AgentInputItem,
  MemorySession,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  tool,
  user,
} from '@openai/agents'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isLedger } from '../../test/helpers/ledger.js'
import { type LimitedServer, startLimitedServer } from '../../test/helpers/limited-server.js'
import { SYSTEM_PROMPT, userTurn } from '../../test/helpers/turns.js'
import { ProviderFeedback } from '../context/limits/learned-limit.js'
import { fitAgentModel, fitModelInput, fittedSession } from './openai-agents.js'

setTracingDisabled(true)

const lookup = tool({
  name: 'lookup',
  description: 'Look up a reservation',
  parameters: z.object({ query: z.string() }),
  execute: async ({ query }) => `Reservation ${query}: ${userTurn(7, 60)}`,
})

type Wire = { type?: string; role?: string; call_id?: string; content?: unknown }

/** The Responses API's rule: a function call output follows the call with its id. */
function checkPairs(input: Wire[]) {
  const called = new Set<string>()
  for (const item of input) {
    if (item.type === 'function_call') called.add(item.call_id as string)
    if (item.type === 'function_call_output') expect(called.has(item.call_id as string)).toBe(true)
  }
}

describe('OpenAI Agents SDK against a Responses loopback server', () => {
  let server: LimitedServer
  let agent: Agent
  beforeAll(async () => {
    server = await startLimitedServer({ window: 4200 })
    const client = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })
    agent = new Agent({
      name: 'airline',
      instructions: SYSTEM_PROMPT,
      model: new OpenAIResponsesModel(client, 'gpt-4o'),
      modelSettings: { maxTokens: 400 },
      tools: [lookup],
    })
  })
  afterAll(async () => {
    await server.close()
  })

  it('callModelInputFilter: an 8-turn loop sees one rejection; the caller keeps the full history', async () => {
    server.requests.length = 0
    const filter = fitModelInput({ model: 'gpt-4o', reserve: 400 })
    let history: AgentInputItem[] = []
    for (let k = 0; k < 8; k++) {
      const input = [...history, user(userTurn(k, 500))]
      const context = { turn: k }
      const go = () => run(agent, input, { context, callModelInputFilter: filter })
      const result = await go().catch((error) => {
        if (!filter.learn(error, context)) throw error
        return go()
      })
      history = result.history
    }
    expect(server.rejections).toBe(1)
    expect(filter.feedback.limit).toBeLessThanOrEqual(4200)
    const accepted = server.requests.filter((r) => !r.rejected)
    expect(accepted.length).toBeGreaterThanOrEqual(16)
    for (const r of accepted) {
      expect(r.tokens + 400).toBeLessThanOrEqual(4200)
      expect(r.body.instructions).toBe(SYSTEM_PROMPT)
      const input = r.body.input as Wire[]
      checkPairs(input)
      expect(input.some((i) => i.role === 'user')).toBe(true)
    }
    // The model saw fewer items than the caller holds, once the window bound.
    const last = accepted[accepted.length - 1]?.body.input as unknown[]
    expect(last.length).toBeLessThan(history.length)
    expect(history.filter((i) => 'role' in i && i.role === 'user')).toHaveLength(8)
  })

  it('fittedSession: the session stores everything, the model sees a fitted history', async () => {
    server.requests.length = 0
    const feedback = new ProviderFeedback()
    const stored = new MemorySession()
    const session = fittedSession(stored, {
      model: 'gpt-4o',
      reserve: 400,
      instructions: SYSTEM_PROMPT,
      feedback,
    })
    const filter = fitModelInput({ model: 'gpt-4o', reserve: 400, feedback })
    for (let k = 0; k < 8; k++) {
      const context = { turn: k }
      const go = (input: AgentInputItem[]) =>
        run(agent, input, { session, context, callModelInputFilter: filter })
      const turn = [user(userTurn(k, 500))]
      await go(turn).catch(async (error) => {
        if (!filter.learn(error, context)) throw error
        // A rejected run may have stored the turn already: send it again only if it did not.
        const all = await session.allItems()
        const kept = all.some((i) => JSON.stringify(i).includes(`Turn ${k}:`))
        return go(kept ? [] : turn)
      })
    }
    expect(server.rejections).toBe(1)
    const all = await session.allItems()
    const users = all.filter((i) => 'role' in i && i.role === 'user')
    expect(users).toHaveLength(8)
    const fitted = await session.getItems()
    expect(fitted.length).toBeLessThan(all.length)
    // Each is a stored item, but the ledger of what was left out.
    for (const item of fitted) if (!isLedger(item)) expect(all).toContainEqual(item)
    for (const r of server.requests.filter((r) => !r.rejected)) {
      expect(r.tokens + 400).toBeLessThanOrEqual(4200)
      checkPairs(r.body.input as Wire[])
    }
  })

  it('fitAgentModel: the wrapped model learns the window itself; 8 turns, one rejection, no catch', async () => {
    server.requests.length = 0
    const client = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })
    const model = fitAgentModel(new OpenAIResponsesModel(client, 'gpt-4o'), {
      model: 'gpt-4o',
      reserve: 400,
    })
    const fitted = new Agent({
      name: 'airline',
      instructions: SYSTEM_PROMPT,
      model,
      modelSettings: { maxTokens: 400 },
      tools: [lookup],
    })
    let history: AgentInputItem[] = []
    for (let k = 0; k < 8; k++) {
      const result = await run(fitted, [...history, user(userTurn(k, 500))])
      history = result.history
    }
    expect(server.rejections).toBe(1)
    expect(model.feedback.limit).toBeLessThanOrEqual(4200)
    // The usage each response reported went into the calibration (the server bills as it counts).
    expect(model.feedback.usageFactor).toBeGreaterThanOrEqual(1)
    expect(model.feedback.toJSON().ratio).toBeGreaterThan(0.8)
    for (const r of server.requests.filter((r) => !r.rejected)) {
      expect(r.tokens + 400).toBeLessThanOrEqual(4200)
      checkPairs(r.body.input as Wire[])
    }
    // Streamed runs go through the same model.
    const streamed = await run(fitted, [...history, user(userTurn(9, 500))], { stream: true })
    for await (const _ of streamed) {
      // drained
    }
    await streamed.completed
    expect(server.rejections).toBe(1)
    const last = server.requests[server.requests.length - 1]
    expect(last?.body.stream).toBe(true)
    expect((last?.tokens ?? 0) + 400).toBeLessThanOrEqual(4200)
    expect((last?.body.input as unknown[] | undefined)?.length).toBeLessThan(history.length + 1)
  })
})

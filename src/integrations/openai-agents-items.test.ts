import {
  Agent,
  type AgentInputItem,
  MemorySession,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
} from '@openai/agents'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LimitedServer, startLimitedServer } from '../../test/helpers/limited-server.js'
import { userTurn } from '../../test/helpers/turns.js'
import { responsesViolations } from '../../test/oracle/responses.js'
import { InvalidOptionError } from '../errors.js'
import type { TokenCounter } from '../tokens/counter.js'
import { exactCounter } from '../tokens/counters.js'
import { fitModelInput, fittedSession } from './openai-agents.js'
import { decodeItemsWithCodec } from './responses-items.js'

setTracingDisabled(true)

type Item = Record<string, unknown>

/** A model turn as the Responses API returns it: reasoning, a web search, text, two calls. */
function turn(k: number): Item[] {
  return [
    {
      type: 'reasoning',
      id: `rs_${k}`,
      summary: [],
      encrypted_content: `enc.${k}.${'Z'.repeat(40)}`,
    },
    {
      type: 'web_search_call',
      id: `ws_${k}`,
      status: 'completed',
      action: { type: 'search', query: `fares 𝔘 ${k}` },
    },
    {
      type: 'message',
      role: 'assistant',
      id: `msg_${k}`,
      status: 'completed',
      content: [{ type: 'output_text', text: `Looking at ${k}.`, annotations: [] }],
    },
    {
      type: 'function_call',
      id: `fc_${k}a`,
      call_id: `call.${k}.a`,
      name: 'lookup',
      arguments: '{}',
    },
    {
      type: 'function_call',
      id: `fc_${k}b`,
      call_id: `call.${k}.b`,
      name: 'lookup',
      arguments: '{"q":"__proto__"}',
    },
  ]
}

/** A Responses history: a compaction item, then turns of user text, model turns and outputs. */
function history(turns: number): Item[] {
  const out: Item[] = [{ type: 'compaction', id: 'cmp_1', encrypted_content: `C${'c'.repeat(80)}` }]
  for (let k = 0; k < turns; k++) {
    out.push({ type: 'message', role: 'user', content: k % 3 === 2 ? ' ' : userTurn(k, 40) })
    out.push(...turn(k))
    out.push({ type: 'function_call_output', call_id: `call.${k}.a`, output: userTurn(50 + k, 20) })
    out.push({ type: 'function_call_output', call_id: `call.${k}.b`, output: '' })
  }
  out.push({ type: 'message', role: 'user', content: 'And now?' })
  return out
}

describe('fitModelInput: items it does not need to change go as given', () => {
  it('with room for everything, every item is the caller’s own object, in order', () => {
    const items = history(4)
    const filter = fitModelInput({ model: 'gpt-4o', budget: 100_000 })
    const out = filter({ modelData: { input: items, instructions: 'Be brief.' } }).input
    expect(out).toHaveLength(items.length)
    for (const [i, item] of out.entries()) expect(item).toBe(items[i])
    expect(responsesViolations(out, {}, items)).toEqual([])
  })

  it('the Agents SDK’s own item shapes (hosted calls, reasoning with provider data, compaction) too', () => {
    const items = [
      { type: 'compaction', encrypted_content: 'cmp.data' },
      { type: 'message', role: 'user', content: 'hello' },
      { type: 'reasoning', id: 'rs_1', content: [], providerData: { encrypted_content: 'zzz' } },
      {
        type: 'hosted_tool_call',
        id: 'ws_1',
        name: 'web_search_call',
        status: 'completed',
        providerData: { type: 'web_search_call', action: { type: 'search', query: 'q' } },
      },
      {
        type: 'message',
        role: 'assistant',
        id: 'msg_1',
        status: 'completed',
        content: [{ type: 'output_text', text: 'hi' }],
      },
      { type: 'function_call', id: 'fc_1', callId: 'c.1', name: 'f', arguments: '{}' },
      {
        type: 'function_call_result',
        callId: 'c.1',
        name: 'f',
        status: 'completed',
        output: { type: 'text', text: 'ok' },
      },
      { type: 'message', role: 'user', content: 'more' },
    ] as AgentInputItem[]
    const out = fitModelInput({ model: 'gpt-4o', budget: 100_000 })({
      modelData: { input: items, instructions: 'sys' },
    }).input
    expect(out).toHaveLength(items.length)
    for (const [i, item] of out.entries()) expect(item).toBe(items[i])
  })

  it('at every budget: the latest compaction kept, no id without its reasoning, pairs whole', () => {
    const items = history(8)
    const lengths: number[] = []
    for (const budget of [700, 1000, 1500, 2200, 3000, 5000]) {
      const out = fitModelInput({ model: 'gpt-4o', budget, reserve: 0 })({
        modelData: { input: items },
      }).input
      expect(responsesViolations(out, {}, items), `budget ${budget}`).toEqual([])
      lengths.push(out.length)
    }
    // The budgets bind: some of them leave turns out.
    expect(Math.min(...lengths)).toBeLessThan(items.length)
  })
})

describe('fitModelInput over a growing history', () => {
  it('a history handed again, even as copies, is read and counted once: only the new items cost', () => {
    const base = exactCounter({ model: 'gpt-4o' })
    const counted: unknown[] = []
    const counter: TokenCounter = {
      ...base,
      countMessage: (m) => {
        counted.push(m)
        return base.countMessage(m)
      },
    }
    const items = history(6)
    const filter = fitModelInput({ budget: 100_000, counter })
    filter({ modelData: { input: items } })
    // The next call: copies of the same items (as a session hands them), then one more turn.
    const grown = [
      ...structuredClone(items),
      { type: 'message', role: 'user', content: 'One more.' },
    ]
    counted.length = 0
    const out = filter({ modelData: { input: grown } }).input
    const warm = counted.length
    counted.length = 0
    fitModelInput({ budget: 100_000, counter })({ modelData: { input: structuredClone(grown) } })
    const cold = counted.length
    const old = decodeItemsWithCodec(items).messages.length
    // Cold: every message counted; warm: the new one, then the same account of what is sent.
    expect(cold).toBeGreaterThanOrEqual(old + 1)
    expect(warm).toBeLessThanOrEqual(cold - old + 1)
    expect(out).toHaveLength(grown.length)
    for (const [i, item] of out.entries()) expect(item).toBe(grown[i])
  })

  it('the same message twice in one history is two messages, both sent', () => {
    const twice = [
      { type: 'message', role: 'user', content: 'ok' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
      { type: 'message', role: 'user', content: 'ok' },
    ]
    const filter = fitModelInput({ model: 'gpt-4o', budget: 100_000 })
    filter({ modelData: { input: twice } })
    const out = filter({ modelData: { input: structuredClone(twice) } }).input
    expect(out).toHaveLength(3)
    expect(responsesViolations(out)).toEqual([])
  })
})

describe('fittedSession(...).getItems(limit)', () => {
  it('at every limit: whole model turns, the latest compaction, no output without its call', async () => {
    const items = history(5) as AgentInputItem[]
    const session = new MemorySession()
    await session.addItems(items)
    const fitted = fittedSession(session, { model: 'gpt-4o', budget: 100_000 })
    expect(await fitted.getItems()).toEqual(items)
    for (let limit = 0; limit <= items.length + 2; limit++) {
      const out = (await fitted.getItems(limit)) as Item[]
      expect(out.length, `limit ${limit}`).toBeLessThanOrEqual(limit)
      if (limit === 0) {
        expect(out).toEqual([])
        continue
      }
      expect(responsesViolations(out, {}, items as Item[]), `limit ${limit}`).toEqual([])
      // The newest items are there: the last user message is always within a limit of 2.
      if (limit >= 2) expect(out.at(-1)).toEqual(items.at(-1))
      // Every item is a stored one as it was stored, in the stored order (the session hands copies).
      const stored = items.map((x) => JSON.stringify(x))
      let at = -1
      for (const x of out) {
        const k = stored.indexOf(JSON.stringify(x))
        expect(k).toBeGreaterThan(at)
        at = k
      }
    }
    await expect(fitted.getItems(-1)).rejects.toBeInstanceOf(InvalidOptionError)
  })
})

/** The same history in the Agents SDK's own item shapes. */
function agentItems(items: Item[]): AgentInputItem[] {
  return items.map((x): Item => {
    switch (x.type) {
      case 'reasoning':
        return {
          type: 'reasoning',
          id: x.id,
          content: [],
          providerData: { encrypted_content: x.encrypted_content },
        }
      case 'web_search_call':
        return {
          type: 'hosted_tool_call',
          id: x.id,
          name: 'web_search_call',
          status: 'completed',
          providerData: { type: 'web_search_call', action: x.action },
        }
      case 'function_call':
        return {
          type: 'function_call',
          id: x.id,
          callId: x.call_id,
          name: x.name,
          arguments: x.arguments,
        }
      case 'function_call_output':
        return {
          type: 'function_call_result',
          callId: x.call_id,
          name: 'lookup',
          status: 'completed',
          output: { type: 'text', text: x.output },
        }
      case 'message':
        return x.role === 'assistant'
          ? { ...x, content: [{ type: 'output_text', text: (x.content as Item[])[0]?.text }] }
          : x
      default:
        return x
    }
  }) as AgentInputItem[]
}

describe('fitModelInput in a real run against a loopback Responses server', () => {
  let server: LimitedServer
  beforeAll(async () => {
    server = await startLimitedServer({ window: 100_000 })
  })
  afterAll(async () => {
    await server.close()
  })

  it('compaction, reasoning and the hosted call reach the wire as the history held them', async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: server.url, maxRetries: 0 })
    const agent = new Agent({
      name: 'airline',
      instructions: 'Help with bookings.',
      model: new OpenAIResponsesModel(client, 'gpt-4o'),
    })
    const source = history(3)
    const items = agentItems(source)
    await run(agent, items, {
      callModelInputFilter: fitModelInput({ model: 'gpt-4o', budget: 100_000 }),
    })
    const input = server.requests[0]?.body.input as Item[]
    expect(responsesViolations(input)).toEqual([])
    const ids = (t: string, list: Item[]) => list.filter((x) => x.type === t).map((x) => x.id)
    expect(ids('reasoning', input)).toEqual(ids('reasoning', source))
    expect(ids('web_search_call', input)).toEqual(ids('web_search_call', source))
    expect(input.filter((x) => x.type === 'reasoning').map((x) => x.encrypted_content)).toEqual(
      source.filter((x) => x.type === 'reasoning').map((x) => x.encrypted_content),
    )
    const types = input.map((x) => x.type)
    expect(types).toContain('compaction')
    expect(types.filter((t) => t === 'reasoning')).toHaveLength(3)
    expect(types.filter((t) => t === 'web_search_call')).toHaveLength(3)
    expect(input).toHaveLength(items.length)
  })
})

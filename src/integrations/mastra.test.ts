import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { isLedger } from '../../test/helpers/ledger.js'
import { type LimitedServer, startLimitedServer } from '../../test/helpers/limited-server.js'
import { quiet } from '../../test/helpers/quiet-mastra.js'
import { SYSTEM_PROMPT, userTurn } from '../../test/helpers/turns.js'
import { fitInputProcessor } from './mastra.js'

const lookup = createTool({
  id: 'lookup',
  description: 'Look up a reservation',
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ context }) => `Reservation ${context.query}: ${userTurn(7, 60)}`,
})

describe('Mastra input processor against a loopback server', () => {
  let server: LimitedServer
  beforeAll(async () => {
    server = await startLimitedServer({ window: 4200 })
  })
  afterAll(async () => {
    vi.useRealTimers()
    await server.close()
  })

  it('an 8-turn agent loop: one rejection, every later request within the window', async () => {
    server.requests.length = 0
    const processor = fitInputProcessor({
      model: 'gpt-4o',
      reserve: 400,
      instructions: SYSTEM_PROMPT,
    })
    // What Mastra hands the processor and what it gets back.
    const calls: { input: unknown[]; output: unknown[] }[] = []
    const fit = processor.processInput.bind(processor)
    processor.processInput = (args) => {
      const output = fit(args)
      calls.push({ input: [...args.messages], output })
      return output
    }
    const agent = quiet(
      new Agent({
        name: 'airline',
        instructions: SYSTEM_PROMPT,
        model: { id: 'openai/gpt-4o', url: server.url, apiKey: 'k' },
        tools: { lookup },
        inputProcessors: [processor],
      }),
    )
    // biome-ignore lint/suspicious/noExplicitAny: Mastra's message list accepts several shapes
    const messages: any[] = []
    // Mastra orders a conversation by each message's createdAt, stamped from the clock as it
    // reads messages and makes replies; messages stamped in one millisecond could sort either
    // way, and the loop's steps (and so its requests) changed with the machine's speed. The
    // clock stands still within a call, so every stamp comes from Mastra's own order
    // (each one after the last), and moves a second between turns.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2025, 0, 1) })
    for (let k = 0; k < 8; k++) {
      vi.setSystemTime(Date.UTC(2025, 0, 1) + (k + 1) * 60_000)
      messages.push({ role: 'user', content: userTurn(k, 500) })
      const go = () =>
        agent.generate(messages, {
          maxSteps: 3,
          modelSettings: { maxOutputTokens: 400, maxRetries: 0 },
        })
      const result = await go().catch((error) => {
        if (!processor.feedback.learn(error)) throw error
        return go()
      })
      messages.push(...(result.response.messages ?? []))
    }
    vi.useRealTimers()
    expect(server.rejections).toBe(1)
    expect(processor.feedback.limit).toBeLessThanOrEqual(4200)
    const accepted = server.requests.filter((r) => !r.rejected)
    expect(accepted.length).toBeGreaterThanOrEqual(16)
    for (const r of accepted) {
      expect(r.tokens + 400).toBeLessThanOrEqual(4200)
      const wire = r.body.messages as {
        role: string
        content: unknown
        tool_calls?: { id: string }[]
        tool_call_id?: string
      }[]
      expect(wire[0]?.role).toBe('system')
      expect(JSON.stringify(wire[0]?.content)).toContain(SYSTEM_PROMPT)
      const called = new Set<string>()
      for (const m of wire) {
        for (const c of m.tool_calls ?? []) called.add(c.id)
        if (m.role === 'tool') expect(called.has(m.tool_call_id as string)).toBe(true)
      }
    }
    // Mastra's own message objects come back, in order, fewer once the window binds.
    for (const c of calls) {
      let at = -1
      for (const m of c.output) {
        // The one message the library writes: the ledger of what was left out.
        if (isLedger(m)) continue
        const k = c.input.indexOf(m)
        expect(k).toBeGreaterThan(at)
        at = k
      }
    }
    expect(calls.some((c) => c.output.length < c.input.length)).toBe(true)
  })
})

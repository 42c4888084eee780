import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { anthropicViolations } from '../../test/oracle/anthropic.js'
import { RUNS, SEED } from '../../test/properties/generators.js'
import { tauBench } from '../../test/tau-bench.js'
import { ChatContext } from '../context/chat/chat-context.js'
import { type FitResult, fitAsync } from '../context/fit.js'
import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { toAnthropic } from '../providers/anthropic-messages/codec.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { extractiveSummarizer } from './extractive.js'
import type { Summarizer } from './summarizer.js'
import { summarizing } from './summarizing.js'

const text = (ms: readonly Message[]) => JSON.stringify(ms)

/** A τ-bench conversation with this user's own e-mail address in its first user turn. */
function conversation(k: number, who: string): Message[] {
  const h = fromOpenAIChat(tauBench()[k % 50]?.traj ?? [])
  const at = h.findIndex((m) => m.role === 'user')
  const first = h[at] as Message
  h[at] = {
    ...first,
    content: `${String(first.content)} My e-mail is ${who}@example.com.`,
  } as Message
  return h
}

/** A summarizer that counts its calls. */
function counting(): Summarizer & { calls: number } {
  const inner = extractiveSummarizer()
  const s = {
    name: 'counting',
    calls: 0,
    summarize: (request: Parameters<Summarizer['summarize']>[0]) => {
      s.calls++
      return inner.summarize(request)
    },
  }
  return s
}

describe('a summary belongs to one conversation', () => {
  it(`one summarizing() shared by interleaved fitAsync calls never serves one user's summary to another (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(4), { minLength: 6, maxLength: 30 }),
        fc.integer({ min: 1500, max: 4000 }),
        async (order, budget) => {
          const strategy = summarizing({ trigger: 0.5, leaveLastN: 2 })
          const users = [0, 1, 2, 3, 4].map((u) => ({
            who: `user${u}-secret`,
            full: conversation(u * 7 + order.length, `user${u}-secret`),
            sent: [] as Message[],
          }))
          for (const u of order) {
            const user = users[u] as (typeof users)[number]
            const next = user.full.slice(0, user.sent.length + 4)
            if (next.length === user.sent.length) continue
            user.sent.push(...next.slice(user.sent.length))
            const r = await fitAsync(user.sent, { strategy, budget }).catch((e: unknown) => e)
            if (r instanceof Error) continue
            const out = text((r as { messages: Message[] }).messages)
            for (const other of users) if (other !== user) expect(out).not.toContain(other.who)
          }
        },
      ),
      { numRuns: Math.min(RUNS, 20), seed: SEED },
    )
  }, 120_000)

  it('with the defaults it summarizes again only when that gains room, not on every call', async () => {
    const summarizer = counting()
    const h = conversation(11, 'a')
    const ctx = new ChatContext({ strategy: summarizing({ summarizer }), budget: 2500 })
    let calls = 0
    for (const m of h) {
      await ctx.addMessage(m)
      if (m.role === 'user' || m.role === 'tool') {
        calls++
        await ctx.getMessages()
      }
    }
    expect(summarizer.calls).toBeGreaterThan(0)
    expect(summarizer.calls).toBeLessThan(calls / 2)
  })

  it('a new summary supersedes the older ones: the saved state stays within twice the history', async () => {
    const history: Message[] = []
    for (let k = 0; history.length < 440; k++) history.push(...conversation(k, `u${k}`).slice(1))
    const ctx = new ChatContext({
      strategy: summarizing({ leaveLastN: 2 }),
      budget: 4000,
      initialMessages: [{ role: 'system', content: 'You are an airline agent.' }],
    })
    for (const m of history.slice(0, 440)) {
      await ctx.addMessage(m)
      if (m.role === 'user') await ctx.getMessages()
    }
    const state = JSON.stringify(ctx.saveState())
    const messages = JSON.stringify(ctx.history())
    expect(ctx.summaries().length).toBeLessThanOrEqual(1)
    expect(state.length).toBeLessThanOrEqual(2 * messages.length)
  }, 120_000)

  it('a summary read back from a saved state is served only if it is a plain message', async () => {
    const h = conversation(3, 'x')
    const ctx = new ChatContext({ strategy: summarizing(), budget: 3000, provider: 'anthropic' })
    await ctx.addMessages(h)
    const state = ctx.saveState()
    const bad = {
      replaces: [1, 6] as [number, number],
      message: {
        role: 'assistant' as const,
        content: 'Summary',
        toolCalls: [{ id: 'call_x', name: 'lookup', arguments: '{}' }],
      },
    }
    const restored = ChatContext.fromState({ ...state, summaries: [bad] })
    expect(restored.summaries()).toEqual([])
    const sent = await restored.getMessages()
    expect(JSON.stringify(sent)).not.toContain('call_x')
    const { lost: _lost, ...request } = toAnthropic(sent)
    expect(anthropicViolations(request)).toEqual([])
  })

  it('options are checked when the strategy is made', () => {
    for (const [key, value] of [
      ['summarizer', 5],
      ['summarizer', {}],
      ['onEvent', 'log'],
      ['background', 'yes'],
      ['facts', 1],
      ['maxSummaryTokens', -3],
      ['signal', {}],
    ] as const) {
      expect(() => summarizing({ [key]: value } as never)).toThrow(InvalidOptionError)
      expect(() => summarizing({ [key]: value } as never)).toThrow(new RegExp(key))
    }
  })

  it(`one summarizing() shared by interleaved fitAsync calls and ChatContexts keeps every conversation's facts, summaries and ledger to itself (${Math.min(RUNS, 15)} runs)`, async () => {
    // Requests that carried a summary or a ledger, and those that carried their own marker in one.
    let synthetic = 0
    let ownMarkCarried = 0
    await fc.assert(
      fc.asyncProperty(
        // Which conversation takes its next turn, and whether it goes through fitAsync or its context.
        fc.array(fc.tuple(fc.nat(3), fc.boolean()), { minLength: 8, maxLength: 40 }),
        fc.integer({ min: 1200, max: 3000 }),
        fc.constantFrom<'auto' | false>('auto', false),
        async (order, budget, ledger) => {
          const strategy = summarizing({ trigger: 0.5, leaveLastN: 2 })
          const users = [0, 1, 2, 3].map((u) => {
            // Markers only this conversation holds: an e-mail in its first user turn and an
            // identifier in every tool result, which facts and ledgers carry.
            const who = `owner${u}x${order.length}`
            const full = conversation(u * 11 + order.length, who).map((m) =>
              m.role === 'tool'
                ? { ...m, content: `${String(m.content)} ref ZQ${u}K${order.length}RT` }
                : m,
            )
            const ctx = new ChatContext({ strategy, budget, ledger })
            return { marks: [who, `ZQ${u}K${order.length}RT`], full, sent: [] as Message[], ctx }
          })
          for (const [u, viaContext] of order) {
            const user = users[u] as (typeof users)[number]
            const at = user.full.findIndex((m, k) => k >= user.sent.length + 3 && m.role === 'user')
            const next = user.full.slice(user.sent.length, at < 0 ? user.full.length : at + 1)
            if (next.length === 0) continue
            user.sent.push(...next)
            await user.ctx.addMessages(next)
            const r = await (viaContext
              ? user.ctx.fitAsync()
              : fitAsync(user.sent, { strategy, budget, ledger })
            ).catch((e: unknown) => e)
            if (r instanceof Error) continue
            const result = r as FitResult
            const out = text(result.messages)
            for (const other of users)
              if (other !== user) for (const mark of other.marks) expect(out).not.toContain(mark)
            if (result.inserted.length > 0) {
              synthetic++
              const made = text(result.inserted.map((i) => i.message))
              if (user.marks.some((mark) => made.includes(mark))) ownMarkCarried++
            }
          }
        },
      ),
      { numRuns: Math.min(RUNS, 15), seed: SEED },
    )
    expect(synthetic).toBeGreaterThan(0)
    expect(ownMarkCarried).toBeGreaterThan(0)
  }, 180_000)
})

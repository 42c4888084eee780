import { describe, expect, it } from 'vitest'
import { tauBench } from '../../../test/tau-bench.js'
import { InvalidInputError, InvalidStateError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { fromOpenAIChat } from '../../providers/openai-chat/codec.js'
import { errorsOf, validate } from '../../providers/validate.js'
import { buffered } from '../../strategies/buffered.js'
import { LEDGER_HEADING } from '../../strategies/ledger.js'
import { tokenLimited } from '../../strategies/token-limited.js'
import type { TokenCounter } from '../../tokens/counter.js'
import { exactCounter } from '../../tokens/counters.js'
import { fit } from '../fit.js'
import { ChatContext } from './chat-context.js'

const sys: Message = { role: 'system', content: 'You are an airline agent.' }
const user = (t: string): Message => ({ role: 'user', content: t })

/** A counter that records how often messages are counted. */
function countingCounter(): TokenCounter & { calls: number } {
  const inner = exactCounter()
  const c = {
    ...inner,
    calls: 0,
    countMessage(m: Message) {
      // The ledger is new text each time the cut moves: counted when made, not a history message.
      if (!(typeof m.content === 'string' && m.content.startsWith(LEDGER_HEADING))) c.calls++
      return inner.countMessage(m)
    },
    countMessages(ms: readonly Message[]) {
      return inner.replyPriming + ms.reduce((n, m) => n + c.countMessage(m), 0)
    },
  }
  return c
}

describe('ChatContext', () => {
  it('serves the same messages as fit over the same history, turn after turn', async () => {
    const traj = fromOpenAIChat(tauBench()[3]?.traj ?? [])
    for (const provider of ['openai', 'anthropic'] as const) {
      const ctx = new ChatContext({ budget: 3000, provider })
      for (let i = 0; i < traj.length; i++) {
        ctx.addMessage(traj[i] as Message)
        const expected = (() => {
          try {
            return fit(traj.slice(0, i + 1), { budget: 3000, provider }).messages
          } catch (e) {
            return e
          }
        })()
        if (expected instanceof Error)
          await expect(ctx.getMessages()).rejects.toThrow(expected.message)
        else expect(await ctx.getMessages(), `turn ${i}`).toEqual(expected)
      }
    }
  })

  it('counts each message once: getMessages counts nothing on a valid history', () => {
    const counter = countingCounter()
    const ctx = new ChatContext({ budget: 8000, counter, initialMessages: [sys] })
    const traj = fromOpenAIChat(tauBench()[7]?.traj ?? []).slice(1)
    let added = 1
    for (let round = 0; round < 5; round++) {
      for (const m of traj) {
        ctx.addMessage(m)
        added++
        if (m.role !== 'assistant' || !m.toolCalls) ctx.getMessagesSync()
      }
    }
    expect(counter.calls).toBe(added)
    expect(ctx.length).toBe(added)
  })

  it('keeps its history from the caller: added messages are copied, served ones frozen', async () => {
    const m = user('hello')
    const ctx = new ChatContext({ initialMessages: [sys] })
    ctx.addMessage(m)
    ;(m as { content: string }).content = 'edited by caller'
    const out = await ctx.getMessages()
    expect(() => {
      ;(out[1] as { content: string }).content = 'edited output'
    }).toThrow(TypeError)
    out.pop()
    expect(ctx.history()[1]).toEqual(user('hello'))
    expect(await ctx.getMessages()).toHaveLength(2)
    // The full account gives fresh copies the caller may edit.
    const copy = (await ctx.fit()).messages
    ;(copy[1] as { content: string }).content = 'fine'
    expect(ctx.history()[1]).toEqual(user('hello'))
  })

  it('rejects an invalid message with a typed error naming its position', () => {
    const ctx = new ChatContext()
    ctx.addMessage(user('a'))
    expect(() => ctx.addMessage({ role: 'tool', content: 'x' } as unknown as Message)).toThrow(
      InvalidInputError,
    )
    expect(() => ctx.addMessage({ role: 'tool', content: 'x' } as unknown as Message)).toThrow(
      /message 1/,
    )
    expect(ctx.length).toBe(1)
  })

  it('serves a valid view while a tool call waits for its result', async () => {
    const ctx = new ChatContext({ initialMessages: [sys], budget: 1000 })
    ctx.addMessage(user('book it'))
    ctx.addMessage({ role: 'assistant', toolCalls: [{ id: 'c1', name: 'book', arguments: '{}' }] })
    expect(errorsOf(validate(await ctx.getMessages()))).toEqual([])
    ctx.addMessage({ role: 'tool', toolCallId: 'c1', content: 'booked' })
    expect((await ctx.getMessages()).map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
    ])
  })

  it('clear() brings back the initial messages; clear({ initial: false }) empties it (AutoGen)', async () => {
    const ctx = new ChatContext({ initialMessages: [sys] })
    ctx.addMessage(user('a'))
    ctx.clear()
    expect(await ctx.getMessages()).toEqual([sys])
    ctx.clear({ initial: false })
    expect(await ctx.getMessages()).toEqual([])
    expect(ctx.initialMessages).toEqual([sys])
  })

  it('saveState -> loadState -> getMessages gives the same view, through JSON', async () => {
    const ctx = new ChatContext({ strategy: buffered({ size: 4 }), initialMessages: [sys] })
    for (const m of fromOpenAIChat(tauBench()[0]?.traj ?? []).slice(1)) ctx.addMessage(m)
    const state = JSON.parse(JSON.stringify(ctx.saveState()))
    const other = new ChatContext({ strategy: buffered({ size: 4 }) })
    other.loadState(state)
    expect(await other.getMessages()).toEqual(await ctx.getMessages())
    const rebuilt = ChatContext.fromState(state)
    expect(rebuilt.strategy.name).toBe('buffered')
    expect(await rebuilt.getMessages()).toEqual(await ctx.getMessages())
    expect(rebuilt.initialMessages).toEqual([sys])
  })

  it('refuses a state from a newer version or with a bad message, and stays as it was', async () => {
    const ctx = new ChatContext({ strategy: tokenLimited({ limit: 500 }) })
    ctx.addMessage(user('keep me'))
    const good = ctx.saveState()
    expect(() => ctx.loadState({ ...good, version: 99 })).toThrow(InvalidStateError)
    expect(() => ctx.loadState({ ...good, version: 99 })).toThrow(/newer/)
    const bad = { ...good, messages: [user('x'), { role: 'user', content: 5 }] }
    expect(() => ctx.loadState(bad)).toThrow(/message 1, field content/)
    expect(() => ctx.loadState({ nope: true })).toThrow(InvalidStateError)
    expect(ctx.history()).toEqual([user('keep me')])
  })

  it('fit explains the current view: kept, dropped and fates', () => {
    const ctx = new ChatContext({ budget: 2500, initialMessages: [sys] })
    for (const m of fromOpenAIChat(tauBench()[1]?.traj ?? []).slice(1)) ctx.addMessage(m)
    const r = ctx.fit()
    expect(r.kept.length + r.dropped.length).toBe(ctx.length)
    expect(r.messages).toEqual(ctx.getMessagesSync())
    expect(r.tokens.total).toBeLessThanOrEqual(2500)
  })
})

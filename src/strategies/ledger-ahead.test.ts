import { describe, expect, it, vi } from 'vitest'
import { tauBench } from '../../test/tau-bench.js'
import { ChatContext } from '../context/chat/chat-context.js'
import { fit } from '../context/fit.js'
import type { Message } from '../messages/message.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { estimateCounter, exactCounter } from '../tokens/counters.js'

// Facts are read where the ledger looks for them; calls made while the caller's code runs
// (a call's own work) are told apart from those made when the process is idle.
const reads = vi.hoisted(() => ({ busy: 0, idle: 0, inIdle: false }))
vi.mock('../messages/quoted-facts.js', async (original) => {
  const m = await original<typeof import('../messages/quoted-facts.js')>()
  return {
    ...m,
    quotableFacts: (...args: Parameters<typeof m.quotableFacts>) => {
      if (reads.inIdle) reads.idle++
      else reads.busy++
      return m.quotableFacts(...args)
    },
  }
})

/** An idle turn, as an agent's wait on the model gives one (macrotasks run; the mark says whose reads they are). */
async function idleTurn(): Promise<void> {
  reads.inIdle = true
  await new Promise((resolve) => setImmediate(resolve))
  await new Promise((resolve) => setImmediate(resolve))
  reads.inIdle = false
}

const stream: Message[] = tauBench()
  .slice(0, 6)
  .flatMap((r, k) => fromOpenAIChat(r.traj).slice(k === 0 ? 0 : 1))

describe('the ledger reads ahead of the cut while the process waits', () => {
  it('sends the same requests whether or not the process was idle between calls', async () => {
    const counter = estimateCounter()
    const idle = new ChatContext({ budget: 6000, counter })
    const busy = new ChatContext({ budget: 6000, counter })
    let calls = 0
    for (const m of stream) {
      idle.addMessage(m)
      busy.addMessage(m)
      if (m.role === 'assistant') continue
      const a = idle.getMessagesSync()
      const b = busy.getMessagesSync()
      expect(a).toEqual(b)
      if (a.some((x) => x.role === 'user' && String(x.content).startsWith('[Earlier messages')))
        calls++
      await idleTurn()
    }
    // The ledger was there: the comparison covered it.
    expect(calls).toBeGreaterThan(20)
  })

  it('finds the facts of the messages it drops already read, when the loop waited between calls', async () => {
    const counter = estimateCounter()
    const ctx = new ChatContext({ budget: 6000, counter })
    let busyAfterWarmup = 0
    let idleReads = 0
    let k = 0
    for (const m of stream) {
      ctx.addMessage(m)
      if (m.role === 'assistant') continue
      k++
      const before = reads.busy
      ctx.getMessagesSync()
      if (k > 10) busyAfterWarmup += reads.busy - before
      const idleBefore = reads.idle
      await idleTurn()
      idleReads += reads.idle - idleBefore
    }
    expect(idleReads).toBeGreaterThan(50)
    // A message whose facts a call needs was read while waiting, unless the cut jumped past
    // what was read ahead (a result larger than the window): a handful at most.
    expect(busyAfterWarmup).toBeLessThanOrEqual(5)
  })

  it('reads nothing ahead for a history far inside its budget; a fit over an array is the same after an idle turn', async () => {
    const counter = estimateCounter()
    const small = new ChatContext({ budget: 200_000, counter })
    const idleBefore = reads.idle
    for (const m of stream.slice(0, 40)) {
      small.addMessage(m)
      if (m.role !== 'assistant') small.getMessagesSync()
      await idleTurn()
    }
    expect(reads.idle - idleBefore).toBe(0)
    // A fit over a plain array gives the same result before and after an idle turn.
    const history = stream.slice(0, 120)
    const first = fit(history, { budget: 5000, counter })
    await idleTurn()
    const second = fit(history, { budget: 5000, counter })
    expect(second.messages).toEqual(first.messages)
    expect(second.fates).toEqual(first.fates)
  })

  it('fills most of the room a stable cut keeps for it: it reads further back than a moving cut does', () => {
    const counter = exactCounter()
    const ctx = new ChatContext({ budget: 6000, stable: true })
    const wide = tauBench()
      .slice(0, 12)
      .flatMap((r, k) => fromOpenAIChat(r.traj).slice(k === 0 ? 0 : 1))
    const sizes: number[] = []
    for (const m of wide) {
      ctx.addMessage(m)
      if (m.role === 'assistant') continue
      const ledger = ctx
        .getMessagesSync()
        .find((x) => x.role === 'user' && String(x.content).startsWith('[Earlier messages'))
      if (ledger) sizes.push(counter.countMessage(ledger))
    }
    expect(sizes.length).toBeGreaterThan(150)
    // Its room here is 1,000 tokens (the default maxTokens); a window of 6,000 tokens of
    // dropped messages fills 61% of it on these trajectories, one of 12,000 tokens 79%.
    const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length
    expect(mean).toBeGreaterThan(700)
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1000)
  })
})

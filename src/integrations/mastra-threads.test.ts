import { describe, expect, it } from 'vitest'
import { userTurn } from '../../test/helpers/turns.js'
import { fitInputProcessor } from './mastra.js'

/** A Mastra message (content format 2) of a thread. */
let made = 0
function message(
  thread: string,
  role: 'user' | 'assistant',
  parts: unknown[],
): {
  id: string
  role: 'user' | 'assistant'
  createdAt: Date
  threadId: string
  resourceId: string
  content: { format: 2; parts: unknown[] }
} {
  made++
  return {
    id: `m${made}`,
    role,
    createdAt: new Date(Date.UTC(2025, 0, 1) + made * 1000),
    threadId: thread,
    resourceId: 'user-1',
    content: { format: 2, parts },
  }
}

const text = (thread: string, role: 'user' | 'assistant', k: number, words: number) =>
  message(thread, role, [{ type: 'text', text: userTurn(k, words) }])

/** An assistant step that called a tool and holds its result. */
const toolStep = (thread: string, k: number, words: number) =>
  message(thread, 'assistant', [
    {
      type: 'tool-invocation',
      toolInvocation: {
        state: 'result',
        toolCallId: `call-${thread}-${k}`,
        toolName: 'lookup',
        args: { query: String(k) },
        result: userTurn(500 + k, words),
      },
    },
  ])

/** A thread of ordinary turns, each about `words` words. */
const ordinary = (thread: string, turns: number, words: number) =>
  Array.from({ length: turns }, (_, k) => [
    text(thread, 'user', k, words),
    text(thread, 'assistant', 50 + k, 30),
  ]).flat()

const options = { model: 'gpt-4o', budget: 3000, reserve: 300 }

describe('Mastra input processor serving many threads', () => {
  it("one thread's large tool step changes nothing for another thread", () => {
    const shared = fitInputProcessor(options)
    const alone = fitInputProcessor(options)
    const b = [...ordinary('b', 6, 250), text('b', 'user', 99, 40)]
    const before = shared.processInput({ messages: b })
    // Thread a: a tool step of about 1,500 tokens.
    const a = [text('a', 'user', 1, 40), toolStep('a', 1, 1200), text('a', 'user', 2, 40)]
    shared.processInput({ messages: a })
    const after = shared.processInput({ messages: b })
    expect(after).toEqual(alone.processInput({ messages: b }))
    expect(after).toEqual(before)
    // Thread b still fits what it did: no room taken for thread a's step.
    expect(after.length).toBe(b.length)
  })

  it('a thread keeps room for its own largest step, until it is forgotten', () => {
    const processor = fitInputProcessor(options)
    const big = [text('a', 'user', 1, 40), toolStep('a', 1, 1200), text('a', 'user', 2, 40)]
    processor.processInput({ messages: big })
    const next = [...ordinary('a', 6, 250), text('a', 'user', 3, 40)]
    const kept = processor.processInput({ messages: next })
    // Room for the thread's own large step is kept: fewer of its messages go.
    expect(kept.length).toBeLessThan(next.length)
    processor.forgetThread('a', 'user-1')
    expect(processor.processInput({ messages: next }).length).toBe(next.length)
  })

  it('messages without a thread share one entry, as before', () => {
    const processor = fitInputProcessor(options)
    const strip = <T extends { threadId?: string; resourceId?: string }>(m: T) => {
      const { threadId: _t, resourceId: _r, ...rest } = m
      return rest as T
    }
    processor.processInput({
      messages: [text('x', 'user', 1, 40), toolStep('x', 1, 1200), text('x', 'user', 2, 40)].map(
        strip,
      ),
    })
    const next = [...ordinary('y', 6, 250), text('y', 'user', 3, 40)].map(strip)
    expect(processor.processInput({ messages: next }).length).toBeLessThan(next.length)
  })
})

describe('Mastra processor: a rejection read against its own thread', () => {
  it("learns from the rejected thread's count, not the thread fitted last", () => {
    const processor = fitInputProcessor({ model: 'gpt-4o', reserve: 300 })
    const long = [...ordinary('a', 8, 250), text('a', 'user', 9, 40)]
    processor.processInput({ messages: long })
    // Thread b is fitted after thread a's request went out.
    processor.processInput({ messages: [text('b', 'user', 1, 20)] })
    const error = new Error(
      "This model's maximum context length is 1500 tokens. However, your messages resulted in 3000 tokens.",
    )
    expect(processor.learn(error, { threadId: 'a', resourceId: 'user-1' })).toBeDefined()
    // Scaled by thread a's own count (about 2,500 of the 3,000 given): not down to the floor.
    expect(processor.feedback.limit).toBeGreaterThan(1200)
    const other = fitInputProcessor({ model: 'gpt-4o', reserve: 300 })
    other.processInput({ messages: long })
    other.processInput({ messages: [text('b', 'user', 1, 20)] })
    // Without a thread no request's counts are known: the window as stated, never scaled by
    // thread b's count (750, the floor, if the processor left its last fit in the feedback).
    other.feedback.learn(error)
    expect(other.feedback.limit).toBe(1500)
  })
})

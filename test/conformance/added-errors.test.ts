// A message added to a context one at a time that nests too deep is refused with a typed
// error naming its place in the history, in every provider format (Gemini named its place
// within the added list before).
import { describe, expect, it } from 'vitest'
import { ChatContext, InvalidInputError } from '../../src/index.js'

const deep = (levels: number) => {
  let d: unknown = { v: 1 }
  for (let k = 0; k < levels; k++) d = { x: d }
  return d
}

/** Three plain turns in each format, then a model turn carrying a value nested `levels` deep. */
const cases = (levels: number): Record<string, [unknown[], unknown]> => ({
  'openai-chat': [
    [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ],
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      extra: deep(levels),
    },
  ],
  anthropic: [
    [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ],
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'c1', name: 'f', input: deep(levels) }],
    },
  ],
  'openai-responses': [
    [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ],
    { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}', extra: deep(levels) },
  ],
  gemini: [
    [
      { role: 'user', parts: [{ text: 'a' }] },
      { role: 'model', parts: [{ text: 'b' }] },
      { role: 'user', parts: [{ text: 'c' }] },
    ],
    { role: 'model', parts: [{ functionCall: { name: 'f', args: deep(levels) } }] },
  ],
})

describe('a message added one at a time that nests too deep', () => {
  for (const [format, [head, bad]] of Object.entries(cases(3000))) {
    it(`${format}: is a typed error naming its place in the history, and the context keeps what it had`, async () => {
      const context = new ChatContext({ format: format as never, budget: 10_000 })
      for (const m of head) await context.addMessage(m as never)
      const before = context.getMessagesSync()
      let error: unknown
      try {
        await context.addMessage(bad as never)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(InvalidInputError)
      expect((error as InvalidInputError).index).toBe(head.length)
      expect((error as Error).message).toMatch(/nested deeper than/)
      expect(context.getMessagesSync()).toEqual(before)
    })
  }

  it('a value nested well within the limit is taken in every format (the check can pass)', async () => {
    for (const [format, [head, ok]] of Object.entries(cases(20))) {
      const context = new ChatContext({ format: format as never, budget: 10_000 })
      for (const m of [...head, ok]) await context.addMessage(m as never)
      expect(context.length, format).toBe(head.length + 1)
    }
  })
})

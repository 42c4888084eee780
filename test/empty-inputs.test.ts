import { describe, expect, it } from 'vitest'
import {
  ChatContext,
  fit,
  fitAsync,
  fromOpenAIChat,
  InvalidInputError,
  type Message,
  validate,
} from '../src/index.js'
import { readOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { messageSchema } from '../src/schemas.js'

/** Empty means empty: no history, or a message with nothing in it, is a typed error, never a silent empty answer. */
describe('empty inputs are typed errors', () => {
  const where = (f: () => unknown) => {
    try {
      f()
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidInputError)
      const { index, field } = e as InvalidInputError
      return { index, field }
    }
    throw new Error('did not throw')
  }

  it('fit, fitAsync and validate refuse an empty history', async () => {
    expect(where(() => fit([], { budget: 100 }))).toEqual({ index: undefined, field: 'messages' })
    expect(where(() => fit([]))).toEqual({ index: undefined, field: 'messages' })
    expect(where(() => validate([]))).toEqual({ index: undefined, field: 'messages' })
    await expect(fitAsync([], { budget: 100 })).rejects.toBeInstanceOf(InvalidInputError)
  })

  it('an assistant message with nothing in it is refused, at its index; one that only calls tools, refuses or thinks is not', () => {
    const user: Message = { role: 'user', content: 'hi' }
    const empty = { role: 'assistant' } as Message
    const input = [user, empty, { role: 'user', content: 'well?' } as Message]
    const copy = structuredClone(input)
    expect(where(() => fit(input, { budget: 1000 }))).toEqual({ index: 1, field: 'content' })
    expect(input).toEqual(copy)
    expect(where(() => validate(input))).toEqual({ index: 1, field: 'content' })
    expect(messageSchema.safeParse(empty).success).toBe(false)
    for (const fine of [
      { role: 'assistant', toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] },
      { role: 'assistant', refusal: 'no' },
      { role: 'assistant', thought: 'hmm' },
      { role: 'assistant', content: '' },
    ] as Message[]) {
      expect(messageSchema.safeParse(fine).success).toBe(true)
      expect(() => validate([user, fine])).not.toThrow()
    }
    // An empty tool-call list is no tool call.
    const noCalls = { role: 'assistant', toolCalls: [] } as Message
    expect(where(() => fit([user, noCalls], { budget: 1000 }))).toEqual({
      index: 1,
      field: 'content',
    })
  })

  it('OpenAI chat: content is optional on assistant messages only', () => {
    for (const role of ['system', 'developer', 'user'])
      for (const content of [undefined, null])
        expect(where(() => readOpenAIChat([{ role, content }]))).toEqual({
          index: 0,
          field: 'content',
        })
    expect(
      where(() =>
        readOpenAIChat([
          {
            role: 'assistant',
            tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'a' },
        ]),
      ),
    ).toEqual({ index: 1, field: 'content' })
    // Read, then refused by fit: an assistant message with content null and no tool calls.
    const read = fromOpenAIChat([
      { role: 'user', content: 'x' },
      { role: 'assistant', content: null },
    ])
    expect(where(() => fit(read, { budget: 100 }))).toEqual({ index: 1, field: 'content' })
    // With tool calls, content null is the ordinary shape.
    expect(
      fromOpenAIChat([
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
      ]),
    ).toHaveLength(2)
  })

  it('an empty ChatContext still starts: adding nothing is not fitting nothing', async () => {
    const ctx = new ChatContext({ budget: 1000 })
    await ctx.addMessage({ role: 'user', content: 'hi' })
    expect(await ctx.getMessages()).toHaveLength(1)
  })
})

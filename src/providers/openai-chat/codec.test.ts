import { describe, expect, it } from 'vitest'
import { tauBench } from '../../../test/tau-bench.js'
import { InvalidInputError } from '../../errors.js'
import { errorsOf, validate } from '../validate.js'
import { fromOpenAIChat, readOpenAIChat, toOpenAIChat } from './codec.js'

describe('OpenAI chat codec', () => {
  it('decodes all 200 τ-bench trajectories, validates them clean, and encodes them back deep-equal', () => {
    const records = tauBench()
    expect(records).toHaveLength(200)
    let messages = 0
    for (const r of records) {
      const decoded = fromOpenAIChat(r.traj)
      messages += decoded.length
      expect(errorsOf(validate(decoded, { provider: 'openai' })), `task ${r.task_id}`).toEqual([])
      expect(toOpenAIChat(decoded)).toEqual(r.traj)
    }
    expect(messages).toBe(5308)
  })

  it('round-trips developer, legacy function, refusal, parts, null content and unknown fields', () => {
    const input = [
      { role: 'developer', content: 'be brief' },
      {
        role: 'user',
        name: 'ana',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'https://e.x/a.png', detail: 'low' } },
          { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
          { type: 'file', file: { file_id: 'file-1', filename: 'a.pdf' } },
        ],
      },
      { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":1}' } },
      { role: 'function', name: 'lookup', content: 'found' },
      {
        role: 'assistant',
        content: [{ type: 'refusal', refusal: 'no' }],
        refusal: null,
        audio: null,
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
          { id: 'b', type: 'function', function: { name: 'g', arguments: '{"x": 1.50}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'ra' },
      { role: 'tool', tool_call_id: 'b', content: [{ type: 'text', text: 'rb' }] },
      { role: 'assistant', content: 'done' },
    ]
    const decoded = readOpenAIChat({ messages: input })
    expect(toOpenAIChat(decoded)).toEqual(input)
    expect(decoded[2]).toMatchObject({ role: 'assistant', toolCalls: [{ name: 'lookup' }] })
    expect(decoded[3]).toMatchObject({
      role: 'tool',
      toolName: 'lookup',
      toolCallId: decoded[2]?.role === 'assistant' ? decoded[2].toolCalls?.[0]?.id : '',
    })
    // Arguments are kept as the exact string, never re-serialized.
    expect(decoded[5]).toMatchObject({ toolCalls: [{}, { arguments: '{"x": 1.50}' }] })
    expect(decoded[6]).toMatchObject({ toolName: 'f' })
    expect(errorsOf(validate(decoded))).toEqual([])
  })

  it.each([
    [[{ role: 'wizard', content: 'x' }], /message 0, field role: unknown role "wizard"/],
    [
      [
        { role: 'user', content: 'a' },
        { role: 'tool', content: 'x' },
      ],
      /message 1, field tool_call_id: expected a string/,
    ],
    [
      [
        {
          role: 'assistant',
          tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: { x: 1 } } }],
        },
      ],
      /message 0, field tool_calls.0.function.arguments: expected a string, got an object/,
    ],
    [[{ role: 'user', content: 5 }], /message 0, field content/],
    [[42], /message 0, field message: expected an object/],
    [{ nope: 1 }, /field messages/],
  ])('refuses bad input with a typed error naming index and field (%#)', (input, pattern) => {
    let error: unknown
    try {
      readOpenAIChat(input)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(InvalidInputError)
    expect((error as Error).message).toMatch(pattern)
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fit } from '../context/fit.js'
import { InvalidInputError } from '../errors.js'
import type { AssistantMessage } from '../messages/message.js'
import { dropThoughts } from '../transforms/drop-thoughts.js'
import { decode, detectFormat, encode } from './detect.js'
import {
  encodeOpenAIResponses,
  fromOpenAIResponses,
  toOpenAIResponses,
} from './openai-responses.js'

const fixture = JSON.parse(
  readFileSync(
    new URL('../../test/fixtures/formats/openai-responses.json', import.meta.url),
    'utf8',
  ),
)
const { model: _model, ...request } = fixture

describe('OpenAI Responses codec', () => {
  it('round-trips a request: instructions, compaction, reasoning with encrypted_content, calls, outputs, built-in and custom tool items, unknown fields', () => {
    const decoded = fromOpenAIResponses(fixture)
    const { output, lost } = encodeOpenAIResponses(decoded, { request: true })
    expect(output).toEqual(request)
    expect(lost).toEqual([])
    // A bare list round-trips as a bare list.
    expect(toOpenAIResponses(fromOpenAIResponses(fixture.input))).toEqual(fixture.input)
  })

  it('keeps a reasoning item inside the assistant message of the items it produced', () => {
    const m = fromOpenAIResponses(fixture)
    expect(m.map((x) => x.role)).toEqual([
      'system',
      'system',
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    const call = m[4] as AssistantMessage
    expect(call.thought).toBe('**Looking up the reservation**')
    expect(call.toolCalls?.map((c) => c.id)).toEqual(['call_Ab1.x', 'call_Ab2'])
    expect(m[5]).toMatchObject({
      role: 'tool',
      toolCallId: 'call_Ab1.x',
      toolName: 'get_reservation_details',
    })
    expect(m[10]).toMatchObject({ role: 'tool', toolCallId: 'call_patch', content: 'done' })
    expect(m[11]).toEqual({ role: 'assistant', content: 'Done.' })
  })

  it('is detected from a request object and from a bare list', () => {
    expect(detectFormat(fixture)).toBe('openai-responses')
    expect(detectFormat(fixture.input)).toBe('openai-responses')
    expect(detectFormat({ input: 'hello' })).toBe('openai-responses')
    expect(decode({ instructions: 'be brief', input: 'hello' }).messages).toEqual([
      expect.objectContaining({ role: 'system', content: 'be brief' }),
      expect.objectContaining({ role: 'user', content: 'hello' }),
    ])
    expect(
      encode(decode({ input: 'hello' }).messages, 'openai-responses', { request: true }).output,
    ).toEqual({
      input: 'hello',
    })
  })

  it('leaves out a dropped reasoning item, and with it the ids of the items it produced', () => {
    const decoded = fromOpenAIResponses(fixture.input)
    const dropped = fit(decoded, { transforms: [dropThoughts()] }).messages
    const items = toOpenAIResponses(dropped) as unknown as Record<string, unknown>[]
    expect(items.filter((x) => x.type === 'reasoning')).toEqual([])
    const calls = items.filter((x) => x.type === 'function_call')
    expect(calls).toHaveLength(2)
    for (const c of calls) expect(c).not.toHaveProperty('id')
    // The answer that followed the second reasoning item goes by role, without its id.
    expect(items).toContainEqual({
      type: 'message',
      role: 'assistant',
      content: 'Your flight HAT170 can move to the 18th.I cannot waive the fee.',
    })
    // Items of turns without reasoning keep theirs.
    expect(items).toContainEqual(expect.objectContaining({ type: 'custom_tool_call', id: 'ctc_1' }))
  })

  it('ids: omit sends no message or call ids; reasoning keeps its id', () => {
    const items = toOpenAIResponses(fromOpenAIResponses(fixture.input), {
      ids: 'omit',
    }) as unknown as Record<string, unknown>[]
    for (const x of items)
      if (x.type !== 'reasoning' && x.type !== 'compaction' && x.type !== 'web_search_call')
        expect(x).not.toHaveProperty('id')
    expect(items.filter((x) => x.type === 'reasoning').map((x) => x.id)).toEqual([
      'rs_0a1',
      'rs_0a2',
    ])
  })

  it('store: false sends reasoning only with encrypted_content, and then not its items ids', () => {
    const input = [
      { role: 'user', content: 'hi' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
    ]
    const m = fromOpenAIResponses(input)
    expect(toOpenAIResponses(m)).toEqual(input)
    const { output, lost } = encodeOpenAIResponses(m, { store: false })
    expect(output).toEqual([
      { role: 'user', content: 'hi' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
    ])
    expect(lost).toEqual([{ index: 1, what: expect.stringContaining('rs_1') }])
  })

  it('never sends a reasoning item with nothing of its own after it', () => {
    const input = [
      { role: 'user', content: 'hi' },
      { type: 'reasoning', id: 'rs_a', summary: [], encrypted_content: 'x' },
      { type: 'reasoning', id: 'rs_b', summary: [], encrypted_content: 'y' },
      {
        type: 'message',
        id: 'msg_b',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'ok', annotations: [] }],
      },
      { type: 'reasoning', id: 'rs_c', summary: [], encrypted_content: 'z' },
    ]
    const items = toOpenAIResponses(fromOpenAIResponses(input)) as unknown as Record<
      string,
      unknown
    >[]
    expect(items.filter((x) => x.type === 'reasoning').map((x) => x.id)).toEqual(['rs_b'])
  })

  it('converts from other formats: text as messages by role, calls as function_call items', () => {
    const items = toOpenAIResponses([
      { role: 'system', content: 'policy' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', url: 'https://x/y.png' },
        ],
      },
      {
        role: 'assistant',
        content: 'checking',
        toolCalls: [{ id: 'c.1', name: 'f', arguments: '{"a":1}' }],
      },
      { role: 'tool', toolCallId: 'c.1', content: 'r', isError: true },
    ])
    expect(items).toEqual([
      { role: 'system', content: 'policy' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'look' },
          { type: 'input_image', image_url: 'https://x/y.png', detail: 'auto' },
        ],
      },
      { role: 'assistant', content: 'checking' },
      { type: 'function_call', call_id: 'c.1', name: 'f', arguments: '{"a":1}' },
      { type: 'function_call_output', call_id: 'c.1', output: 'r' },
    ])
  })

  it('rejects malformed items with a typed error naming the item and field', () => {
    const bad = (input: unknown) => () => fromOpenAIResponses(input)
    expect(bad([{ type: 'function_call', call_id: '', name: 'f', arguments: '{}' }])).toThrow(
      /message 0, field call_id/,
    )
    expect(bad([{ role: 'robot', content: 'x' }])).toThrow(InvalidInputError)
    expect(bad([{ type: 'reasoning', summary: [] }])).toThrow(/field id/)
    expect(bad([{ type: 'compaction' }])).toThrow(/encrypted_content/)
    expect(bad({ input: 3 })).toThrow(/input/)
    expect(bad([null])).toThrow(/message 0/)
  })

  it('round-trips edge items: an empty assistant message, an assistant message by role, an empty content list', () => {
    const input = [
      { role: 'user', content: '' },
      { role: 'assistant', content: '' },
      { role: 'assistant', content: 'by role' },
      { type: 'message', id: 'msg_e', role: 'assistant', status: 'completed', content: [] },
      { role: 'user', content: [] },
    ]
    expect(toOpenAIResponses(fromOpenAIResponses(input))).toEqual(input)
  })
})

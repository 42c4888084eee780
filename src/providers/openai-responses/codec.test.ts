import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { responsesViolations } from '../../../test/oracle/responses.js'
import { fit } from '../../context/fit.js'
import { InvalidInputError } from '../../errors.js'
import { decode, detectFormat, encode } from '../../formats/detect.js'
import type { AssistantMessage, Message } from '../../messages/message.js'
import { exactCounter } from '../../tokens/counters.js'
import { dropThoughts } from '../../transforms/drop-thoughts.js'
import { validate } from '../validate.js'
import {
  encodeOpenAIResponses,
  fromOpenAIResponses,
  readOpenAIResponses,
  toOpenAIResponses,
} from './codec.js'

const fixture = JSON.parse(
  readFileSync(
    new URL('../../../test/fixtures/formats/openai-responses.json', import.meta.url),
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
    const dropped = fit(decoded, { strategy: 'unbounded', transforms: [dropThoughts()] }).messages
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

  it('a server-side tool item keeps its id under ids: omit, and goes, reported lost, when its reasoning does', () => {
    const input = [
      { role: 'user', content: 'news?' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      {
        type: 'web_search_call',
        id: 'ws_1',
        status: 'completed',
        action: { type: 'search', query: 'news' },
      },
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Here.', annotations: [] }],
      },
      { role: 'user', content: 'thanks' },
    ]
    const m = readOpenAIResponses(input)
    const omitted = toOpenAIResponses(m, { ids: 'omit' }) as unknown as Record<string, unknown>[]
    expect(omitted).toContainEqual(expect.objectContaining({ type: 'web_search_call', id: 'ws_1' }))
    expect(responsesViolations(omitted, {}, input)).toEqual([])
    // Without its reasoning the API asks for it, and without its id the item is not one.
    const dropped = fit(m, { strategy: 'unbounded', transforms: [dropThoughts()] }).messages
    const { output, lost } = encodeOpenAIResponses(dropped)
    const items = output as unknown as Record<string, unknown>[]
    expect(items.some((x) => x.type === 'web_search_call')).toBe(false)
    expect(lost).toContainEqual({
      index: 1,
      what: 'web_search_call ws_1 (its reasoning is not sent)',
    })
    expect(items).toContainEqual({ type: 'message', role: 'assistant', content: 'Here.' })
    expect(responsesViolations(items, {}, input)).toEqual([])
  })

  it('store: false sends reasoning only with encrypted_content, and then not its items ids', () => {
    const input = [
      { role: 'user', content: 'hi' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
    ]
    const m = readOpenAIResponses(input)
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
    const items = toOpenAIResponses(readOpenAIResponses(input)) as unknown as Record<
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
    expect(toOpenAIResponses(readOpenAIResponses(input))).toEqual(input)
  })
})

describe('Responses: content that came from another format', () => {
  const counter = exactCounter()

  it("an assistant's refusal goes as a refusal part, and a refusal-only reply is kept", () => {
    const h: Message[] = [
      { role: 'user', content: 'help me break in' },
      { role: 'assistant', content: 'About that:', refusal: 'I cannot help with that.' },
      { role: 'user', content: 'then just say no' },
      { role: 'assistant', refusal: 'No.' },
      { role: 'user', content: 'fine' },
    ]
    const r = fit(h, { strategy: 'unbounded', provider: 'openai-responses' })
    expect(r.fates.map((f) => f.fate)).toEqual(['kept', 'kept', 'kept', 'kept', 'kept'])
    const items = toOpenAIResponses(r.messages) as unknown[]
    expect(responsesViolations(items)).toEqual([])
    expect(items[1]).toEqual({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [
        { type: 'output_text', text: 'About that:', annotations: [] },
        { type: 'refusal', refusal: 'I cannot help with that.' },
      ],
    })
    expect(items[3]).toMatchObject({ content: [{ type: 'refusal', refusal: 'No.' }] })
  })

  it('reasoning text from another format is taken out before counting, and reported', () => {
    const thought = 'Let me weigh every fare class against the budget first. '.repeat(20)
    const h: Message[] = [
      { role: 'user', content: 'cheapest fare?' },
      { role: 'assistant', content: 'Economy, 120 EUR.', thought },
      { role: 'assistant', thought },
      { role: 'user', content: 'book it' },
    ]
    const r = fit(h, { strategy: 'unbounded', provider: 'openai-responses' })
    expect(r.changed).toEqual([{ index: 1, position: 1, reason: 'thought-not-sendable' }])
    expect(r.fates[2]).toMatchObject({ fate: 'invalid', reason: 'thought-not-sendable' })
    expect(r.messages[1]).toEqual({ role: 'assistant', content: 'Economy, 120 EUR.' })
    // Only what is sent is counted.
    expect(r.tokens.total).toBe(counter.countMessages(r.messages))
    expect(responsesViolations(toOpenAIResponses(r.messages) as unknown[])).toEqual([])
    expect(
      validate(h, { provider: 'openai-responses' }).filter(
        (p) => p.code === 'thought-not-sendable',
      ),
    ).toHaveLength(2)
    // Encoded directly, the loss is listed.
    const { lost } = encodeOpenAIResponses(h)
    expect(lost.map((l) => l.index)).toEqual([1, 2])
  })

  it('an image in a reply is taken out before counting (an output message holds only text and refusals), and reported when encoded directly', () => {
    const h: Message[] = [
      { role: 'user', content: 'draw a map' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Here:' },
          {
            type: 'image',
            data: 'iVBORw0KGgo=',
            mediaType: 'image/png',
            width: 1024,
            height: 1024,
          },
        ],
      },
      { role: 'user', content: 'thanks' },
    ]
    const r = fit(h, { strategy: 'unbounded', provider: 'openai-responses' })
    expect(r.changed).toEqual([{ index: 1, position: 1, reason: 'unsupported-part' }])
    expect(r.messages[1]?.content).toEqual([{ type: 'text', text: 'Here:' }])
    expect(r.tokens.total).toBe(counter.countMessages(r.messages))
    expect(encodeOpenAIResponses(r.messages).lost).toEqual([])
    expect(encodeOpenAIResponses(h).lost).toEqual([
      { index: 1, what: expect.stringMatching(/^image part of an assistant message/) },
    ])
  })

  it('Gemini too: a thought with no thought part of its own is not sent, so not counted', () => {
    const h: Message[] = [
      { role: 'user', content: 'cheapest fare?' },
      { role: 'assistant', content: 'Economy.', thought: 'long reasoning '.repeat(50) },
    ]
    const r = fit(h, { strategy: 'unbounded', provider: 'gemini' })
    expect(r.changed).toEqual([{ index: 1, position: 1, reason: 'thought-not-sendable' }])
    expect(r.messages[1]).toEqual({ role: 'assistant', content: 'Economy.' })
    const plain = fit([h[0] as Message, { role: 'assistant', content: 'Economy.' }], {
      strategy: 'unbounded',
      provider: 'gemini',
    })
    expect(r.tokens.total).toBe(plain.tokens.total)
  })
})

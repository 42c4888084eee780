import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { describe, expect, it } from 'vitest'
import { ChatContext } from '../src/context/chat/chat-context.js'
import { fit } from '../src/context/fit.js'
import { InvalidInputError, InvalidOptionError } from '../src/errors.js'
import { fromLangChain, toLangChain } from '../src/formats/langchain.js'
import { toAnthropic } from '../src/providers/anthropic-messages/codec.js'
import { toGemini } from '../src/providers/gemini/codec.js'
import { toOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { toOpenAIResponses } from '../src/providers/openai-responses/codec.js'
import { errorsOf, validate } from '../src/providers/validate.js'
import { geminiViolations } from './oracle/gemini.js'
import { responsesViolations } from './oracle/responses.js'

const history = [
  { role: 'system' as const, content: 'policy' },
  { role: 'user' as const, content: 'book a flight' },
]
const params = {
  type: 'object',
  properties: { city: { type: 'string', description: 'Where to.' }, seats: { type: 'integer' } },
  required: ['city'],
}

describe('tools in every SDK shape', () => {
  it('OpenAI chat, Responses, Anthropic and Gemini definitions of one tool are counted alike', () => {
    const count = (tools: unknown[]) =>
      fit(history, { budget: 5000, tools: tools as never }).tokens.tools
    const plain = count([{ name: 'book', description: 'Books a flight.', parameters: params }])
    expect(plain).toBeGreaterThan(10)
    expect(
      count([
        {
          type: 'function',
          function: { name: 'book', description: 'Books a flight.', parameters: params },
        },
      ]),
    ).toBe(plain)
    expect(
      count([
        {
          type: 'function',
          name: 'book',
          description: 'Books a flight.',
          parameters: params,
          strict: true,
        },
      ]),
    ).toBe(plain)
    expect(count([{ name: 'book', description: 'Books a flight.', input_schema: params }])).toBe(
      plain,
    )
    const upper = {
      type: 'OBJECT',
      properties: {
        city: { type: 'STRING', description: 'Where to.' },
        seats: { type: 'INTEGER' },
      },
      required: ['city'],
    }
    expect(count([{ name: 'book', description: 'Books a flight.', parameters: upper }])).toBe(plain)
    expect(
      count([
        {
          functionDeclarations: [
            { name: 'book', description: 'Books a flight.', parametersJsonSchema: params },
          ],
        },
      ]),
    ).toBe(plain)
  })
  it('a tool without a name is refused with the option named', () => {
    expect(() =>
      fit(history, { budget: 5000, tools: [{ type: 'function', function: {} }] as never }),
    ).toThrow(InvalidOptionError)
    expect(() =>
      fit(history, { budget: 5000, tools: [{ type: 'function', function: {} }] as never }),
    ).toThrow(/tools.0.name/)
  })
})

describe('fromLangChain takes BaseMessage instances', () => {
  it('decodes them as their serialized form: roles, tool calls with exact args, tool results', () => {
    const instances = [
      new SystemMessage('policy'),
      new HumanMessage('hi'),
      new AIMessage({ content: '', tool_calls: [{ id: 't1', name: 'f', args: { a: 1 } }] }),
      new ToolMessage({ tool_call_id: 't1', content: 'ok' }),
    ]
    const m = fromLangChain(instances)
    expect(m).toEqual(fromLangChain(instances.map((x) => x.toJSON())))
    expect(m.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'tool'])
    expect(m[2]).toMatchObject({ toolCalls: [{ id: 't1', name: 'f', arguments: '{"a":1}' }] })
    expect(errorsOf(validate(m))).toEqual([])
    expect(toLangChain(m)[3]).toMatchObject({
      lc: 1,
      kwargs: { tool_call_id: 't1', content: 'ok' },
    })
  })
})

describe('ChatContext takes SDK messages as they come', () => {
  it('OpenAI chat: a completion reply with tool calls (null content, refusal, annotations), then the tool result', async () => {
    const ctx = new ChatContext({ budget: 4000, format: 'openai-chat', initialMessages: history })
    await ctx.addMessage({
      role: 'assistant',
      content: null,
      refusal: null,
      annotations: [],
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'book', arguments: '{"city":"Lisbon"}' },
        },
      ],
    })
    await ctx.addMessage({ role: 'tool', tool_call_id: 'call_1', content: 'booked' })
    const out = await ctx.getMessages()
    expect(out.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
    expect(toOpenAIChat(out)[2]).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      annotations: [],
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'book', arguments: '{"city":"Lisbon"}' },
        },
      ],
    })
  })

  it('Anthropic: a reply with tool_use, then a user turn of tool results: one call, its result', async () => {
    const ctx = new ChatContext({
      budget: 4000,
      provider: 'anthropic',
      format: 'anthropic',
      initialMessages: history,
    })
    await ctx.addMessage({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'Booking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'book', input: { city: 'Lisbon' } },
      ],
    })
    await ctx.addMessage({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'booked' }],
    })
    const out = await ctx.getMessages()
    expect(errorsOf(validate(out, { provider: 'anthropic' }))).toEqual([])
    expect(toAnthropic(out).messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Booking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'book', input: { city: 'Lisbon' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'booked' }],
      },
    ])
  })

  it('Responses: a response output (reasoning, call) added whole, then the call output', async () => {
    const ctx = new ChatContext({
      budget: 4000,
      provider: 'openai-responses',
      format: 'openai-responses',
      initialMessages: history,
    })
    const output = [
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAA' },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_1',
        name: 'book',
        arguments: '{}',
        status: 'completed',
      },
    ]
    await ctx.addMessages(output)
    await ctx.addMessage({ type: 'function_call_output', call_id: 'call_1', output: 'booked' })
    const items = toOpenAIResponses(await ctx.getMessages(), { store: false })
    expect(items.slice(2)).toEqual([
      ...output,
      { type: 'function_call_output', call_id: 'call_1', output: 'booked' },
    ])
    expect(responsesViolations(items, { store: false })).toEqual([])
  })

  it('Gemini: a candidate content with a signed call, then the response turn', async () => {
    const ctx = new ChatContext({
      budget: 4000,
      provider: 'gemini',
      format: 'gemini',
      initialMessages: history,
    })
    const turn = {
      role: 'model',
      parts: [
        { functionCall: { name: 'book', args: { city: 'Lisbon' } }, thoughtSignature: 'c2ln' },
      ],
    }
    await ctx.addMessage(turn)
    await ctx.addMessage({
      role: 'user',
      parts: [{ functionResponse: { name: 'book', response: { output: 'booked' } } }],
    })
    const request = toGemini(await ctx.getMessages())
    expect(request.contents[1]).toEqual(turn)
    expect(geminiViolations(request, [turn])).toEqual([])
  })

  it("format 'auto' tells each by its shape; a message of no known shape is a typed error naming it", async () => {
    const ctx = new ChatContext({ budget: 4000, format: 'auto' })
    await ctx.addMessage({ role: 'user', content: 'hi' })
    await ctx.addMessage({ role: 'model', parts: [{ text: 'hello' }] })
    await ctx.addMessage(new HumanMessage('and you?'))
    expect((await ctx.getMessages()).map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    // A compile error too: no format has a message of that shape.
    // @ts-expect-error
    await expect(async () => ctx.addMessage({ foo: 1 })).rejects.toThrow(InvalidInputError)
    // @ts-expect-error
    expect(() => ctx.addMessage({ foo: 1 })).toThrow(/message 3/)
    expect(ctx.length).toBe(3)
  })
})

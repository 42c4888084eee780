import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { geminiViolations } from '../../../test/oracle/gemini.js'
import { fit } from '../../context/fit.js'
import { InvalidInputError } from '../../errors.js'
import { decode, detectFormat, encode } from '../../formats/detect.js'
import type { AssistantMessage, Message } from '../../messages/message.js'
import { dropThoughts } from '../../transforms/drop-thoughts.js'
import { encodeGemini, fromGemini, toGemini } from './codec.js'

const fixture = JSON.parse(
  readFileSync(new URL('../../../test/fixtures/formats/gemini.json', import.meta.url), 'utf8'),
)
const { model: _model, ...request } = fixture

describe('Gemini codec', () => {
  it('round-trips a request: system instruction, thought parts, signatures byte for byte, calls with and without ids, responses, media', () => {
    const { output, lost } = encodeGemini(fromGemini(fixture))
    expect(output).toEqual(request)
    expect(lost).toEqual([])
    expect(encode(fromGemini(fixture.contents), 'gemini', { request: false }).output).toEqual(
      fixture.contents,
    )
  })

  it('decodes a call turn into one assistant message and its response turn into tool messages paired by id, else by name', () => {
    const m = fromGemini(fixture)
    expect(m.map((x) => x.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ])
    const calls = m[2] as AssistantMessage
    expect(calls.thought).toBe('Looking up the reservation first.')
    expect(calls.toolCalls?.map((c) => c.id)).toEqual(['fc-1', 'fc-2'])
    expect(m[3]).toMatchObject({ toolCallId: 'fc-1', content: '{"flights":["HAT170"]}' })
    expect(m[4]).toMatchObject({
      toolCallId: 'fc-2',
      content: '{"membership":"gold","nested":{"a":[1,2]}}',
    })
    const unnamed = (m[5] as AssistantMessage).toolCalls?.[0]?.id
    expect(m[6]).toMatchObject({ toolCallId: unnamed, isError: true, content: 'no seats' })
  })

  it('is detected from a request and from a bare contents list', () => {
    expect(detectFormat(fixture)).toBe('gemini')
    expect(detectFormat(fixture.contents)).toBe('gemini')
    expect(decode({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }).format).toBe('gemini')
  })

  it('sends a dropped thought nowhere but keeps every signature on its own part', () => {
    const r = fit(fromGemini(fixture), { strategy: 'unbounded', transforms: [dropThoughts()] })
    const out = toGemini(r.messages)
    const parts = out.contents.flatMap((c) => c.parts ?? [])
    expect(parts.some((p) => p.thought)).toBe(false)
    expect(parts.filter((p) => p.thoughtSignature).map((p) => p.thoughtSignature)).toEqual([
      'CiQBVKhc7sAbpT0dXk3yQ+signature/one==',
      'CiQBsecond+sig==',
      'CiQBlast+part+sig==',
    ])
  })

  it('puts tool results in a user turn of their own, even when they came with text', () => {
    const out = toGemini(
      fromGemini([
        { role: 'user', parts: [{ text: 'go' }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'f', response: { output: 'x' } } }, { text: 'and?' }],
        },
      ]),
    )
    expect(out.contents).toEqual([
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: 'x' } } }] },
      { role: 'user', parts: [{ text: 'and?' }] },
    ])
  })

  it('converts from other formats: system instruction, calls with their ids, results as output or error', () => {
    const out = toGemini([
      { role: 'system', content: 'policy' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', toolCalls: [{ id: 'call_1', name: 'f', arguments: '{"a":1}' }] },
      { role: 'tool', toolCallId: 'call_1', content: 'boom', isError: true },
    ])
    expect(out).toEqual({
      systemInstruction: { parts: [{ text: 'policy' }] },
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'f', args: { a: 1 } } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'call_1', name: 'f', response: { error: 'boom' } } }],
        },
      ],
    })
  })

  it('rejects malformed contents with a typed error naming the turn and field', () => {
    const bad = (input: unknown) => () => fromGemini(input)
    expect(bad([{ role: 'assistant', parts: [] }])).toThrow(/message 0, field role/)
    expect(bad([{ role: 'model', parts: [{ functionCall: { args: {} } }] }])).toThrow(
      /functionCall.name/,
    )
    expect(bad([{ role: 'user', parts: 'x' }])).toThrow(InvalidInputError)
    expect(bad({ contents: {} })).toThrow(/contents/)
  })

  it('round-trips edge turns: empty text parts, a turn without a role, a part of an unknown kind', () => {
    const contents = [
      { role: 'user', parts: [{ text: '' }] },
      { role: 'model', parts: [{ text: '' }] },
      { parts: [{ text: 'no role' }] },
      { role: 'model', parts: [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }] },
      { role: 'user', parts: [{ codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } }] },
    ]
    expect(encodeGemini(fromGemini(contents), { bare: true }).output.contents).toEqual(contents)
  })
})

describe('Gemini: media a tool returned', () => {
  const call = {
    role: 'assistant' as const,
    toolCalls: [{ id: 'c1', name: 'screenshot', arguments: '{}' }],
  }
  const png = { type: 'image' as const, data: 'iVBORw0KGgo=', mediaType: 'image/png' }
  const responseOf = (messages: Message[]) => {
    const { output, lost } = encodeGemini(messages)
    expect(geminiViolations(output)).toEqual([])
    expect(lost).toEqual([])
    return output.contents[2]?.parts?.[0]?.functionResponse
  }

  it('an image-only result goes in the response parts, not as an empty output', () => {
    const fr = responseOf([
      { role: 'user', content: 'show me' },
      call,
      { role: 'tool', toolCallId: 'c1', content: [png] },
    ])
    expect(fr).toEqual({
      id: 'c1',
      name: 'screenshot',
      response: { output: '' },
      parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }],
    })
  })

  it('an error with text and an image keeps both, and a linked image goes as file data', () => {
    const fr = responseOf([
      { role: 'user', content: 'show me' },
      call,
      {
        role: 'tool',
        toolCallId: 'c1',
        isError: true,
        content: [
          { type: 'text', text: 'page failed to load' },
          png,
          { type: 'image', url: 'https://example.com/last.png' },
        ],
      },
    ])
    expect(fr?.response).toEqual({ error: 'page failed to load' })
    expect(fr?.parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/last.png' } },
    ])
  })

  it('a response with parts decodes to a tool message holding them, counted, and encodes back as it came', () => {
    const contents = [
      { role: 'user', parts: [{ text: 'show me' }] },
      { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'screenshot', args: {} } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'c1',
              name: 'screenshot',
              response: { output: 'the page' },
              parts: [
                {
                  inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=', displayName: 'p.png' },
                },
              ],
            },
          },
        ],
      },
    ]
    const m = fromGemini(contents)
    expect(m[2]?.content).toEqual([
      { type: 'text', text: 'the page' },
      { ...png, providerMetadata: { gemini: { blobExtra: { displayName: 'p.png' } } } },
    ])
    expect(encodeGemini(m, { bare: true }).output.contents).toEqual(contents)
    const withImage = fit(m, { strategy: 'unbounded', provider: 'gemini' }).tokens.total
    const without = fit([...m.slice(0, 2), { ...(m[2] as Message), content: 'the page' }], {
      strategy: 'unbounded',
      provider: 'gemini',
    }).tokens.total
    expect(withImage).toBeGreaterThan(without)
  })
})

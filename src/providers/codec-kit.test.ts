import { describe, expect, it } from 'vitest'
import { toAnthropic } from './anthropic-messages/encode.js'
import { fieldsOf, isJson, isList, jsonField, stringField } from './codec-kit.js'
import { toGemini } from './gemini/encode.js'
import { toOpenAIChat } from './openai-chat/encode.js'
import { toOpenAIResponses } from './openai-responses/encode.js'

/** Values of every kind a wire or a hand-edited metadata field may hold. */
const objects: unknown[] = [
  {},
  [],
  [1, 'a'],
  Object.create(null),
  JSON.parse('{"__proto__": {"polluted": true}, "type": "text"}'),
  new Date(0),
]
const others: unknown[] = [null, undefined, '', ' ', 'ab', '𝒳', 0, Number.NaN, true, 1n, () => 1]

describe('the wire readers every codec shares', () => {
  it('isJson takes every object (arrays included) and nothing else', () => {
    for (const v of objects) expect(isJson(v)).toBe(true)
    for (const v of others) expect(isJson(v)).toBe(false)
  })

  it('isList takes arrays only: not strings, array-likes or typed arrays', () => {
    expect(isList([])).toBe(true)
    expect(isList([null])).toBe(true)
    for (const v of [...others, {}, { length: 0 }, new Uint8Array(2), 'abc'])
      expect(isList(v)).toBe(false)
  })

  it('fieldsOf gives an object itself, and no fields at all for anything else (a string is never spread by character)', () => {
    for (const v of objects) expect(fieldsOf(v)).toBe(v)
    for (const v of others) {
      expect(fieldsOf(v)).toEqual({})
      expect(Object.keys({ ...fieldsOf(v) })).toEqual([])
    }
  })

  it('jsonField and stringField read a field of the kind asked for, an own __proto__ key as data', () => {
    const from = JSON.parse(
      '{"__proto__": {"a": 1}, "text": "hi", "n": 5, "none": null, "list": [1], "s": "x"}',
    )
    expect(jsonField(from, '__proto__')).toEqual({ a: 1 })
    expect(jsonField(from, 'list')).toEqual([1])
    for (const key of ['text', 'n', 'none', 'missing']) expect(jsonField(from, key)).toBeUndefined()
    expect(stringField(from, 'text')).toBe('hi')
    expect(stringField(from, 's')).toBe('x')
    for (const key of ['n', 'none', 'list', '__proto__', 'missing'])
      expect(stringField(from, key)).toBeUndefined()
    expect(Object.getPrototypeOf(from)).toBe(Object.prototype)
  })
})

describe('metadata edited by hand into the wrong kind', () => {
  const hostile = ['ab', 7, null, true]
  /** The keys a value of a string spread would add: "0", "1". */
  const spreadKeys = (v: unknown) => JSON.stringify(v).match(/"[01]":/g) ?? []

  it('is left out of what a codec writes, never spread by character or read as an object', () => {
    for (const bad of hostile) {
      const gemini = toGemini([
        { role: 'user', content: 'hi', providerMetadata: { gemini: { extra: bad } } },
        {
          role: 'assistant',
          content: 'ok',
          toolCalls: [
            {
              id: 'c1',
              name: 'f',
              arguments: '{}',
              providerMetadata: { gemini: { callExtra: bad, partExtra: bad } },
            },
          ],
          providerMetadata: { gemini: { layout: [bad, { t: 'call' }] } },
        },
      ])
      expect(spreadKeys(gemini)).toEqual([])
      expect(gemini.contents.map((c) => c.role)).toEqual(['user', 'model'])
      expect(gemini.contents[1]?.parts?.map((p) => p.functionCall?.name ?? p.text)).toEqual([
        'f',
        'ok',
      ])

      const chat = toOpenAIChat([
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          toolCalls: [
            {
              id: 'c1',
              name: 'f',
              arguments: '{}',
              providerMetadata: { 'openai-chat': { extra: bad } },
            },
          ],
        },
      ])
      expect(spreadKeys(chat)).toEqual([])
      expect(chat[1]).toMatchObject({ tool_calls: [{ id: 'c1', function: { name: 'f' } }] })

      const responses = toOpenAIResponses([
        { role: 'user', content: 'hi', providerMetadata: { 'openai-responses': { extra: bad } } },
        {
          role: 'assistant',
          content: 'ok',
          providerMetadata: { 'openai-responses': { layout: [bad], part: bad } },
        },
      ])
      expect(spreadKeys(responses)).toEqual([])

      const anthropic = toAnthropic([
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: 'ok',
          thought: 't',
          providerMetadata: { anthropic: { layout: [bad, { t: 'text' }] } },
        },
      ])
      expect(anthropic.messages[1]?.content).toEqual([{ type: 'text', text: 'ok' }])
    }
  })
})

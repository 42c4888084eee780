import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { meaning } from '../../test/meaning.js'
import { tauBench } from '../../test/tau-bench.js'
import { fit } from '../context/fit.js'
import { InvalidInputError } from '../errors.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { repair } from '../providers/repair.js'
import { errorsOf, validate } from '../providers/validate.js'
import { fromAutoGen, readAutoGen, toAutoGen } from './autogen.js'
import { convert, decode, detectFormat, encode, FORMATS } from './detect.js'
import { fromLangChain, readLangChain, toLangChain } from './langchain.js'

const load = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/formats/${name}`, import.meta.url), 'utf8'))
const autogen = load('autogen-state.json')
const langchain = load('langchain.json')

describe('AutoGen codec', () => {
  it('round-trips a ChatCompletionContextState: parallel calls, errors, thought, sources', () => {
    const m = fromAutoGen(autogen)
    expect(m.map((x) => x.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ])
    expect(m[4]).toMatchObject({ toolCallId: 'call_2', isError: true, toolName: 'get_weather' })
    expect(m[5]).toMatchObject({ thought: 'One call failed.' })
    expect({ ...autogen, messages: toAutoGen(m) }).toEqual(autogen)
    expect(errorsOf(validate(m))).toEqual([])
  })
  it('refuses unknown message types and bad calls with typed errors', () => {
    expect(() => readAutoGen([{ type: 'Nope' }])).toThrow(
      /message 0, field type: unknown message type "Nope"/,
    )
    expect(() =>
      readAutoGen([
        { type: 'AssistantMessage', content: [{ id: 'a', name: 'f', arguments: {} }], source: 'x' },
      ]),
    ).toThrow(/field content.0.arguments/)
  })
})

describe('LangChain codec', () => {
  it('round-trips messages_to_dict and lc constructor forms, tool calls with their args', () => {
    const m = fromLangChain(langchain)
    expect(m.map((x) => x.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ])
    expect(m[2]).toMatchObject({
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    })
    expect(toLangChain(m)).toEqual(langchain)
    expect(errorsOf(validate(m))).toEqual([])
  })
  it('refuses an unknown type with a typed error', () => {
    expect(() => readLangChain([{ type: 'robot', data: {} }])).toThrow(InvalidInputError)
  })
})

describe('detectFormat, decode, convert', () => {
  it('recognises each fixture and τ-bench', () => {
    expect(detectFormat(load('anthropic.json'))).toBe('anthropic')
    expect(detectFormat(load('ai-sdk.json'))).toBe('ai-sdk')
    expect(detectFormat(autogen)).toBe('autogen')
    expect(detectFormat(langchain)).toBe('langchain')
    expect(detectFormat(tauBench()[0]?.traj)).toBe('openai-chat')
  })
  it('refuses what matches no format, with a clear sentence', () => {
    expect(() => detectFormat({ hello: 1 })).toThrow(/not a conversation/)
    expect(() => detectFormat([{ foo: 1 }])).toThrow(/match no known format/)
    expect(() => decode([], 'klingon' as never)).toThrow(/unknown format "klingon"/)
  })
  it('converts τ-bench into every format and back with the meaning kept; strategies stay valid per provider', () => {
    for (const r of tauBench().slice(0, 40)) {
      const canonical = fromOpenAIChat(r.traj)
      for (const to of FORMATS) {
        const { output, lost } = convert(r.traj, { from: 'openai-chat', to })
        // AutoGen's AssistantMessage holds text or calls, not both: the text is reported lost.
        const dropped = new Set(lost.map((l) => l.index))
        if (to !== 'autogen') expect(lost, to).toEqual([])
        for (const l of lost) expect(l.what).toMatch(/text beside tool calls/)
        const json = JSON.parse(JSON.stringify(output))
        const back = decode(json, to)
        // With no tool messages an AI SDK or Responses list is also a valid OpenAI chat list.
        const hasTools = canonical.some((m) => m.role === 'tool')
        const ambiguous = (to === 'ai-sdk' || to === 'openai-responses') && !hasTools
        expect(detectFormat(json)).toBe(ambiguous ? 'openai-chat' : to)
        const expected = meaning(canonical).map((m, k) => (dropped.has(k) ? { ...m, text: '' } : m))
        expect(meaning(back.messages), to).toEqual(expected)
        const provider =
          to === 'anthropic' || to === 'openai-responses' || to === 'gemini' ? to : 'openai'
        const fitted = fit(repair(back.messages, { provider }).messages, {
          budget: 6000,
          provider,
          strategy: 'tokenLimited',
        })
        expect(errorsOf(validate(fitted.messages, { provider }))).toEqual([])
        expect(() => encode(fitted.messages, to)).not.toThrow()
      }
    }
  })
  it('says what a target cannot carry', () => {
    const { lost } = convert(load('anthropic.json'), { to: 'openai-chat' })
    expect(lost).toEqual([
      { index: 2, what: 'reasoning text and any signature (OpenAI chat has no field for them)' },
    ])
  })
})

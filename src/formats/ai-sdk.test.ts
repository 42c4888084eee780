import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { meaning } from '../../test/meaning.js'
import { tauBench } from '../../test/tau-bench.js'
import { fit } from '../context/fit.js'
import { InvalidInputError } from '../errors.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { errorsOf, validate } from '../providers/validate.js'
import { fromAISDK, readAISDK, toAISDK } from './ai-sdk.js'

const fixture = JSON.parse(
  readFileSync(new URL('../../test/fixtures/formats/ai-sdk.json', import.meta.url), 'utf8'),
)

describe('Vercel AI SDK ModelMessage codec', () => {
  it('round-trips every part kind and output variant, providerOptions kept', () => {
    expect(toAISDK(fromAISDK(fixture))).toEqual(fixture)
  })

  it('decodes one tool message per result, reasoning into `thought`, inputs as exact JSON strings', () => {
    const m = fromAISDK(fixture)
    expect(m.map((x) => x.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
    ])
    expect(m[2]).toMatchObject({
      thought: 'Look it up first.',
      toolCalls: [{ arguments: '{"reservation_id":"ZFA04Y"}' }, { id: 'call_2' }],
    })
    expect(m[4]).toMatchObject({ isError: true, content: 'user not found' })
    expect(errorsOf(validate(m))).toEqual([])
  })

  it('every strategy output on it is valid and re-encodes', () => {
    const r = fit(fromAISDK(fixture), { strategy: 'buffered', size: 3 })
    expect(errorsOf(validate(r.messages))).toEqual([])
    const encoded = toAISDK(r.messages)
    expect(encoded.at(-1)?.role).toBe('tool')
  })

  it('converts all 200 τ-bench trajectories to the AI SDK shape and back with their meaning kept', () => {
    for (const r of tauBench()) {
      const canonical = fromOpenAIChat(r.traj)
      const back = fromAISDK(JSON.parse(JSON.stringify(toAISDK(canonical))))
      expect(meaning(back)).toEqual(meaning(canonical))
    }
  })

  it.each([
    [[{ role: 'robot', content: 'x' }], /message 0, field role/],
    [
      [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'f' }] }],
      /message 0, field content.0.output/,
    ],
    [
      [{ role: 'assistant', content: [{ type: 'tool-call', toolName: 'f', input: {} }] }],
      /field content.0.toolCallId/,
    ],
    [
      [{ role: 'user', content: [{ type: 'video' }] }],
      /field content.0.type: unknown part type "video"/,
    ],
  ])('refuses bad input with a typed error (%#)', (input, pattern) => {
    expect(() => readAISDK(input)).toThrow(InvalidInputError)
    expect(() => readAISDK(input)).toThrow(pattern)
  })
})

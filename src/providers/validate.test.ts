import { describe, expect, it } from 'vitest'
import { geminiViolations } from '../../test/oracle/gemini.js'
import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { toUnits } from '../messages/units.js'
import { toGemini } from './gemini/codec.js'
import { repair } from './repair.js'
import { errorsOf, validate } from './validate.js'

const sys: Message = { role: 'system', content: 'policy' }
const user = (t: string): Message => ({ role: 'user', content: t })
const say = (t: string): Message => ({ role: 'assistant', content: t })
const call = (...ids: string[]): Message => ({
  role: 'assistant',
  toolCalls: ids.map((id) => ({ id, name: `fn_${id}`, arguments: '{}' })),
})
const result = (id: string): Message => ({ role: 'tool', toolCallId: id, content: `r${id}` })

describe('toUnits', () => {
  it('groups the preamble, parallel tool calls with all their results, and plain messages', () => {
    const h = [
      sys,
      sys,
      user('q'),
      call('a', 'b'),
      result('b'),
      result('a'),
      say('ok'),
      result('z'),
    ]
    expect(toUnits(h).map((u) => [u.kind, u.start, u.end, u.complete])).toEqual([
      ['system', 0, 2, true],
      ['message', 2, 3, true],
      ['exchange', 3, 6, true],
      ['message', 6, 7, true],
      ['orphan', 7, 8, true],
    ])
  })
  it('marks an exchange whose results are missing as incomplete', () => {
    expect(toUnits([user('q'), call('a', 'b'), result('a')])[1]).toMatchObject({
      complete: false,
      end: 3,
    })
  })
})

describe('validate', () => {
  it('reports an orphaned result, a missing result and a duplicate id with indices', () => {
    const h = [user('q'), call('a'), result('a'), result('x'), call('a'), say('x'), call('c')]
    const codes = validate(h).map((p) => [p.index, p.code])
    expect(codes).toEqual([
      [3, 'orphan-tool-result'],
      [4, 'duplicate-tool-call-id'],
      [4, 'missing-tool-result'],
      [6, 'missing-tool-result'],
    ])
  })
  it('reports a result that does not directly follow its call', () => {
    const p = validate([user('q'), call('a'), say('hm'), result('a')])
    expect(p.map((x) => x.code)).toContain('orphan-tool-result')
    expect(p.find((x) => x.code === 'orphan-tool-result')?.message).toMatch(
      /does not directly follow/,
    )
  })
  it('applies Anthropic rules: the first message must be from the user', () => {
    const h = [sys, say('hello'), user('q')]
    expect(validate(h, { provider: 'openai' })).toEqual([])
    expect(errorsOf(validate(h, { provider: 'anthropic' })).map((p) => p.code)).toEqual([
      'first-not-user',
    ])
  })
  it('warns about consecutive same-role turns under Anthropic but not across a tool turn', () => {
    const h = [user('q'), call('a'), result('a'), user('more'), say('x'), say('y')]
    const p = validate(h, { provider: 'anthropic' })
    expect(p.map((x) => [x.index, x.code, x.severity])).toEqual([
      [5, 'consecutive-same-role', 'warning'],
    ])
  })
  it('refuses a provider that is not in the table, as validate and repair alike', () => {
    for (const bad of ['__proto__', 'toString', 'OpenAI', 'claude', 7, {}]) {
      expect(() => validate([], { provider: bad as never })).toThrow(InvalidOptionError)
      expect(() => repair([], { provider: bad as never })).toThrow(InvalidOptionError)
    }
    // null is no provider given: OpenAI chat's rules, as undefined.
    const h: Message[] = [{ role: 'user', content: [] }]
    expect(validate(h, { provider: null as never })).toEqual(validate(h))
  })

  it('Gemini: an empty text part is refused unless it carries its thought signature, as the API and the oracle say', () => {
    const part = (gemini: Record<string, unknown>) => ({
      type: 'text' as const,
      text: '',
      providerMetadata: { gemini },
    })
    const turn = (gemini: Record<string, unknown>): Message[] => [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [part(gemini), { type: 'text', text: 'hello' }] },
      { role: 'user', content: 'and?' },
    ]
    for (const [gemini, kept] of [
      [{}, false],
      [{ other: 1 }, false],
      [{ thoughtSignature: 'c2ln' }, true],
    ] as const) {
      const h = turn(gemini)
      const problems = validate(h, { provider: 'gemini' }).map((p) => p.code)
      expect(problems.includes('empty-text-part'), JSON.stringify(gemini)).toBe(!kept)
      const fixed = repair(h, { provider: 'gemini' }).messages
      const body = toGemini(fixed) as { contents: unknown }
      expect(geminiViolations(body)).toEqual([])
      expect(fixed[1]?.content).toHaveLength(kept ? 2 : 1)
    }
  })

  it('flags empty content', () => {
    expect(validate([user('')], { provider: 'anthropic' })[0]).toMatchObject({
      code: 'empty-content',
      severity: 'error',
    })
  })
})

describe('repair', () => {
  it('removes orphans and unanswered calls, keeps text, and never mutates its input', () => {
    const withText: Message = { ...call('b', 'c'), content: 'checking' }
    const h = [
      sys,
      user('q'),
      result('x'),
      call('a'),
      result('a'),
      withText,
      result('b'),
      call('d'),
    ]
    const frozen = structuredClone(h)
    const r = repair(h)
    expect(h).toEqual(frozen)
    expect(r.removed).toEqual([
      { index: 2, code: 'orphan-tool-result' },
      { index: 7, code: 'missing-tool-result' },
    ])
    expect(r.changed).toEqual([{ index: 5, code: 'missing-tool-result' }])
    expect(validate(r.messages)).toEqual([])
    expect(r.messages[4]).toMatchObject({ content: 'checking', toolCalls: [{ id: 'b' }] })
  })
  it('for Anthropic, drops what comes before the first user message', () => {
    const r = repair([sys, say('hi'), user('q')], { provider: 'anthropic' })
    expect(r.messages).toEqual([sys, user('q')])
    expect(errorsOf(validate(r.messages, { provider: 'anthropic' }))).toEqual([])
  })
})

describe('duplicate tool call ids', () => {
  const h = [user('q'), call('a'), result('a'), user('again'), call('a'), result('a'), say('ok')]
  it('are a warning for OpenAI (real traces reuse ids) and an error for Anthropic', () => {
    expect(validate(h, { provider: 'openai' }).map((p) => p.severity)).toEqual(['warning'])
    expect(errorsOf(validate(h, { provider: 'anthropic' })).map((p) => [p.index, p.code])).toEqual([
      [4, 'duplicate-tool-call-id'],
    ])
  })
  it('are renamed in the call and its result by an Anthropic repair', () => {
    const r = repair(h, { provider: 'anthropic' })
    expect(validate(r.messages, { provider: 'anthropic' })).toEqual([])
    expect(r.messages[4]).toMatchObject({ toolCalls: [{ id: 'a_2' }] })
    expect(r.messages[5]).toMatchObject({ toolCallId: 'a_2' })
    expect(r.changed.map((c) => c.index)).toEqual([4, 5])
  })
  it('within one message are an error for every provider; repair keeps the first', () => {
    const twice = [user('q'), call('a', 'a'), result('a')]
    expect(errorsOf(validate(twice)).map((p) => p.code)).toEqual(['duplicate-tool-call-id'])
    expect(validate(repair(twice).messages)).toEqual([])
  })
})

describe('an assistant image or file part', () => {
  const image = { type: 'image' as const, url: 'https://example.com/a.png' }
  const h: Message[] = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: [{ type: 'text', text: 'see' }, image] },
    { role: 'assistant', content: [{ type: 'file', data: 'AAAA', mediaType: 'application/pdf' }] },
  ]
  it('is an error for OpenAI chat only', () => {
    expect(errorsOf(validate(h)).map((p) => [p.index, p.code])).toEqual([
      [1, 'unsupported-part'],
      [2, 'unsupported-part'],
    ])
    expect(errorsOf(validate(h, { provider: 'anthropic' }))).toEqual([])
  })
  it('is taken out by an OpenAI repair; a reply with nothing else goes', () => {
    const r = repair(h)
    expect(r.messages).toEqual([
      h[0],
      { role: 'assistant', content: [{ type: 'text', text: 'see' }] },
    ])
    expect(r.changed).toEqual([{ index: 1, code: 'unsupported-part' }])
    expect(r.removed).toEqual([{ index: 2, code: 'unsupported-part' }])
    expect(validate(r.messages)).toEqual([])
    expect(h[1]?.content).toHaveLength(2)
  })
})

import { describe, expect, it } from 'vitest'
import { fit } from '../context/fit.js'
import { fromGemini } from './gemini/codec.js'
import { fromOpenAIResponses, toOpenAIResponses } from './openai-responses/codec.js'
import { repair } from './repair.js'
import { errorsOf, validate } from './validate.js'

const compacted = fromOpenAIResponses({
  instructions: 'policy',
  input: [
    { role: 'user', content: 'old question' },
    { role: 'assistant', content: 'old answer' },
    { type: 'compaction', id: 'cmp_1', encrypted_content: 'Y29tcGFjdGVk' },
    { role: 'user', content: 'new question' },
  ],
})

describe('openai-responses rules', () => {
  it('items before the latest compaction are superseded: a warning, and repair takes them out', () => {
    const problems = validate(compacted, { provider: 'openai-responses' })
    expect(problems.map((p) => [p.index, p.code, p.severity])).toEqual([
      [1, 'superseded-by-compaction', 'warning'],
      [2, 'superseded-by-compaction', 'warning'],
    ])
    const r = repair(compacted, { provider: 'openai-responses' })
    expect(r.origin).toEqual([0, 3, 4])
    expect(r.removed).toEqual([
      { index: 1, code: 'superseded-by-compaction' },
      { index: 2, code: 'superseded-by-compaction' },
    ])
  })

  it('the compaction item joins the preamble: kept at a budget that leaves room for nothing else', () => {
    const r = fit(compacted, { provider: 'openai-responses', budget: 60 })
    expect(toOpenAIResponses(r.messages)).toEqual([
      { role: 'system', content: 'policy' },
      { type: 'compaction', id: 'cmp_1', encrypted_content: 'Y29tcGFjdGVk' },
      { role: 'user', content: 'new question' },
    ])
    // Other providers are not told about compaction: nothing is taken out for them.
    expect(repair(compacted, { provider: 'openai' }).removed).toEqual([])
  })

  it('a message holding only reasoning is reported and taken out; store: false reports reasoning it cannot replay', () => {
    const m = fromOpenAIResponses([
      { role: 'user', content: 'hi' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'hmm' }] },
    ])
    expect(validate(m, { provider: 'openai-responses' })).toEqual([
      expect.objectContaining({
        index: 1,
        code: 'reasoning-without-following-item',
        severity: 'warning',
      }),
    ])
    expect(repair(m, { provider: 'openai-responses' }).removed).toEqual([
      { index: 1, code: 'reasoning-without-following-item' },
    ])
    const calls = fromOpenAIResponses([
      { role: 'user', content: 'hi' },
      { type: 'reasoning', id: 'rs_2', summary: [] },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c', output: 'x' },
    ])
    expect(validate(calls, { provider: 'openai-responses' })).toEqual([])
    expect(validate(calls, { provider: 'openai-responses', store: false })).toEqual([
      expect.objectContaining({ index: 1, code: 'reasoning-not-replayable' }),
    ])
  })

  it('encrypted reasoning is counted while the message keeps its reasoning', () => {
    const item = (enc: string) =>
      fromOpenAIResponses([
        { type: 'reasoning', id: 'rs', summary: [], encrypted_content: enc },
        { role: 'assistant', content: 'ok' },
      ])
    const small = fit(item('a'), { strategy: 'unbounded' }).tokens.messages
    const large = fit(item('a'.repeat(4000)), { strategy: 'unbounded' }).tokens.messages
    expect(large - small).toBe(1000 - 1)
  })
})

describe('gemini rules', () => {
  const turns = [
    { role: 'model', parts: [{ text: 'Welcome back.' }] },
    { role: 'user', parts: [{ text: 'book it' }] },
    {
      role: 'model',
      parts: [{ functionCall: { name: 'book', args: {} }, thoughtSignature: 'c2ln' }],
    },
    { role: 'user', parts: [{ functionResponse: { name: 'book', response: { output: 'ok' } } }] },
    { role: 'user', parts: [{ text: 'and the hotel?' }] },
    { role: 'model', parts: [{ functionCall: { name: 'hotel', args: {} } }] },
    { role: 'user', parts: [{ functionResponse: { name: 'hotel', response: { output: 'ok' } } }] },
  ]
  const m = fromGemini({ systemInstruction: 'policy', contents: turns })

  it('the history starts with a user turn: an error, repaired by dropping what comes before it', () => {
    const problems = validate(m, { provider: 'gemini' })
    expect(errorsOf(problems).map((p) => [p.index, p.code])).toEqual([[1, 'first-not-user']])
    const r = repair(m, { provider: 'gemini' })
    expect(r.removed).toEqual([{ index: 1, code: 'first-not-user' }])
    expect(errorsOf(validate(r.messages, { provider: 'gemini' }))).toEqual([])
  })

  it('an unsigned call in the current turn of a signed history is a warning; a later system message too', () => {
    const problems = validate(m, { provider: 'gemini' })
    expect(problems.filter((p) => p.severity === 'warning').map((p) => [p.index, p.code])).toEqual([
      [6, 'missing-thought-signature'],
    ])
    const withSystem = [
      ...m.slice(0, 3),
      { role: 'system' as const, content: 'note' },
      ...m.slice(3),
    ]
    expect(validate(withSystem, { provider: 'gemini' }).map((p) => p.code)).toContain(
      'system-not-leading',
    )
  })

  it('fit keeps the newest user turn first when the budget takes the rest', () => {
    const r = fit(m, { provider: 'gemini', budget: 120 })
    expect(r.messages[0]?.role).toBe('system')
    expect(r.messages[1]?.role).toBe('user')
    expect(errorsOf(validate(r.messages, { provider: 'gemini' }))).toEqual([])
  })

  it('a turn that would have no parts is an error, and repair takes it out', () => {
    const h = [
      { role: 'user' as const, content: 'hi' },
      { role: 'assistant' as const, content: [], thought: 'from another format' },
      { role: 'user' as const, content: '' },
      { role: 'assistant' as const, content: 'ok' },
    ]
    expect(errorsOf(validate(h, { provider: 'gemini' })).map((p) => [p.index, p.code])).toEqual([
      [1, 'empty-content'],
      [2, 'empty-content'],
    ])
    const r = repair(h, { provider: 'gemini' })
    expect(r.origin).toEqual([0, 3])
    expect(errorsOf(validate(r.messages, { provider: 'gemini' }))).toEqual([])
    // A thought part of its own is something to send.
    const own = fromGemini([
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ text: 'pondering', thought: true }] },
    ])
    expect(repair(own, { provider: 'gemini' }).removed).toEqual([])
  })
})

describe('a ChatContext on the new providers repairs what their rules take out', () => {
  it('Responses: items superseded by a compaction item added later are not sent; the compaction is', async () => {
    const { ChatContext } = await import('../context/chat/chat-context.js')
    const ctx = new ChatContext({
      budget: 4000,
      provider: 'openai-responses',
      format: 'openai-responses',
    })
    await ctx.addMessages([
      { role: 'user', content: 'old question' },
      { role: 'assistant', content: 'old answer' },
    ])
    expect(await ctx.getMessages()).toHaveLength(2)
    await ctx.addMessages([
      { type: 'compaction', encrypted_content: 'Y29tcGFjdGVk' },
      { role: 'user', content: 'new question' },
    ])
    expect(toOpenAIResponses(await ctx.getMessages())).toEqual([
      { type: 'compaction', encrypted_content: 'Y29tcGFjdGVk' },
      { role: 'user', content: 'new question' },
    ])
  })

  it('Gemini: a stored turn that would have no parts is not sent', async () => {
    const { ChatContext } = await import('../context/chat/chat-context.js')
    const ctx = new ChatContext({ budget: 4000, provider: 'gemini' })
    await ctx.addMessages([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'hello?' },
    ])
    expect((await ctx.getMessages()).map((m) => m.content)).toEqual(['hi', 'hello?'])
  })
})

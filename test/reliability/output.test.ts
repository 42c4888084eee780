// What is sent must be what the provider accepts: checked with the oracles in test/oracle,
// written from the providers' rules, never with the library's own validate().
import type { ModelMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { fit } from '../../src/context/fit.js'
import { InvalidInputError } from '../../src/errors.js'
import { fromAISDK } from '../../src/formats/ai-sdk.js'
import { encode } from '../../src/formats/detect.js'
import type { Message } from '../../src/messages/message.js'
import { toAnthropic } from '../../src/providers/anthropic-messages/codec.js'
import { toGemini } from '../../src/providers/gemini/codec.js'
import { toOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { repair } from '../../src/providers/repair.js'
import type { View } from '../../src/strategies/types.js'
import { dropThoughts } from '../../src/transforms/drop-thoughts.js'
import { truncateMessages } from '../../src/transforms/truncate-messages.js'
import { anthropicViolations } from '../oracle/anthropic.js'
import { geminiViolations } from '../oracle/gemini.js'
import { openAIChatViolations } from '../oracle/openai.js'

function wire(messages: Message[]) {
  const { lost: _lost, ...anthropic } = toAnthropic(messages)
  return { openai: toOpenAIChat(messages), anthropic }
}

function fitsBoth(history: Message[], options: Parameters<typeof fit>[1] = {}) {
  // Every message kept: what repair does is what is tested.
  const a = fit(history, { strategy: 'unbounded', ...options, provider: 'anthropic' })
  const o = fit(history, { strategy: 'unbounded', ...options, provider: 'openai' })
  expect(anthropicViolations(wire(a.messages).anthropic)).toEqual([])
  expect(openAIChatViolations(wire(o.messages).openai)).toEqual([])
  return { a, o }
}

describe('empty content is repaired, not sent', () => {
  it('an empty assistant message between two user turns', () => {
    const h: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'again' },
    ]
    const { a } = fitsBoth(h)
    expect(a.fates[1]).toMatchObject({ fate: 'invalid', reason: 'empty-content' })
    expect(a.messages.map((m) => m.content)).toEqual(['hi', 'again'])
  })

  it.each([
    ['only a thought', { role: 'assistant', thought: 'let me think' }],
    ['only a refusal', { role: 'assistant', refusal: 'I cannot help with that' }],
    ['only a thought beside empty text', { role: 'assistant', content: '', thought: 'hmm' }],
    ['an empty part list', { role: 'assistant', content: [] }],
    ['an empty text part', { role: 'assistant', content: [{ type: 'text', text: '' }] }],
    ['white space only', { role: 'assistant', content: [{ type: 'text', text: ' \n\t' }] }],
  ] as [string, Message][])('an assistant reply with %s', (_, reply) => {
    fitsBoth([{ role: 'user', content: 'question' }, reply, { role: 'user', content: 'well?' }])
  })

  it('an empty text part beside an image reaches Anthropic without the empty part', () => {
    const h: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: '' },
          { type: 'image', url: 'https://example.com/a.png' },
        ],
      },
    ]
    const { a } = fitsBoth(h)
    expect(a.messages[0]?.content).toEqual([{ type: 'image', url: 'https://example.com/a.png' }])
    expect(a.changed).toEqual([{ index: 0, position: 0, reason: 'empty-text-part' }])
  })

  it('dropThoughts does not leave an empty reply behind', () => {
    const h: Message[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', thought: 'long reasoning' },
      { role: 'user', content: 'q2' },
    ]
    for (const provider of ['openai', 'anthropic'] as const) {
      const r = fit(h, { strategy: 'unbounded', provider, transforms: [dropThoughts()] })
      expect(r.messages.map((m) => m.role)).toEqual(['user', 'user'])
      expect(r.fates[1]?.fate).not.toBe('kept')
    }
    // The transform on its own: the reply goes instead of staying with content ''.
    const changes = dropThoughts().apply({ messages: h } as unknown as View)
    expect(changes.get(1)).toBeNull()
  })
})

describe('Anthropic without a user message', () => {
  it.each([
    ['only a system prompt', [{ role: 'system', content: 'policy' }]],
    ['only assistant replies', [{ role: 'assistant', content: 'hello' }]],
    [
      'a user message that is empty',
      [
        { role: 'system', content: 'policy' },
        { role: 'user', content: '   ' },
        { role: 'assistant', content: 'hello' },
      ],
    ],
  ] as [string, Message[]][])('%s: a typed error, never a request with no messages', (_, h) => {
    expect(() => fit(h, { provider: 'anthropic' })).toThrow(InvalidInputError)
    expect(() => fit(h, { provider: 'anthropic' })).toThrow(/no user message/)
  })

  it.each([
    ['only a system prompt', [{ role: 'system', content: 'policy' }]],
    [
      'an orphaned tool result',
      [
        { role: 'system', content: 'policy' },
        { role: 'tool', toolCallId: 'x', content: 'orphan' },
      ],
    ],
    [
      'an empty user message',
      [
        { role: 'system', content: 'policy' },
        { role: 'user', content: '' },
      ],
    ],
  ] as [string, Message[]][])('Gemini, %s: a typed error, never empty contents', (_, h) => {
    expect(() => fit(h, { provider: 'gemini', budget: 10_000 })).toThrow(InvalidInputError)
    const ctx = new ChatContext({ provider: 'gemini', budget: 10_000 })
    ctx.addMessages(h)
    expect(() => ctx.getMessagesSync()).toThrow(/no user message/)
    // Sent as it is, the request would have no contents.
    expect(toGemini(repair(h, { provider: 'gemini' }).messages).contents).toEqual([])
  })
})

describe('Gemini never gets an empty text part', () => {
  const S: Message = { role: 'system', content: 'policy' }
  const image: Message['content'] = [
    { type: 'text', text: '' },
    { type: 'image', url: 'https://example.com/i.png' },
  ]
  it.each([
    ['beside an image in a user turn', [S, { role: 'user', content: image }]],
    [
      'beside an image in a model turn',
      [S, { role: 'user', content: 'hi' }, { role: 'assistant', content: image }],
    ],
  ] as [string, Message[]][])('%s: taken out, the rest sent, fit and ChatContext alike', (_, h) => {
    // Sent as it came, the oracle says no.
    expect(geminiViolations(toGemini(h))).not.toEqual([])
    const r = fit(h, { provider: 'gemini', budget: 10_000 })
    const out = toGemini(r.messages)
    expect(geminiViolations(out)).toEqual([])
    expect(JSON.stringify(out)).toContain('https://example.com/i.png')
    const ctx = new ChatContext({ provider: 'gemini', budget: 10_000 })
    ctx.addMessages(h)
    expect(toGemini(ctx.getMessagesSync())).toEqual(out)
  })
})

describe('truncation never splits a character', () => {
  const emoji = '😀🎉👍🏽'.repeat(400)
  const astralLetters = '𝒜𝒷𝒸'.repeat(500)
  it.each(['head', 'tail', 'both'] as const)('keep %s, every cap from 1 to 60', (keep) => {
    for (const text of [emoji, astralLetters, `a${emoji}`, `${astralLetters}b`]) {
      for (let cap = 1; cap <= 60; cap += 1) {
        const r = fit([{ role: 'user', content: text }], {
          strategy: 'unbounded',
          provider: 'anthropic',
          transforms: [truncateMessages({ maxTokensPerMessage: cap, keep })],
        })
        const out = r.messages[0]?.content as string
        expect(out.length).toBeLessThan(text.length)
        expect(anthropicViolations(wire(r.messages).anthropic)).toEqual([])
      }
    }
  })
})

describe('repair is linear in parallel tool calls', () => {
  it('60,000 parallel calls with their results are repaired at once (a hang guard, not a timing)', () => {
    const n = 60_000
    const h: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        toolCalls: Array.from({ length: n }, (_, k) => ({
          id: `c${k}`,
          name: 'f',
          arguments: '{}',
        })),
      },
      ...Array.from(
        { length: n },
        (_, k): Message => ({ role: 'tool', toolCallId: `c${k}`, content: 'ok' }),
      ),
    ]
    // On a quadratic check this takes 15 s or more; the test's time limit is 10 s.
    const r = repair(h, { provider: 'anthropic' })
    expect(r.messages).toHaveLength(n + 2)
    expect(r.removed).toEqual([])
  }, 10_000)
})

describe('OpenAI chat takes only text and refusal parts from the assistant', () => {
  const image = { type: 'image' as const, url: 'https://example.com/chart.png' }
  const history: Message[] = [
    { role: 'user', content: 'plot the fares' },
    { role: 'assistant', content: [{ type: 'text', text: 'Here is the chart.' }, image] },
    { role: 'user', content: 'and again, no words' },
    { role: 'assistant', content: [image] },
    { role: 'user', content: 'thanks' },
  ]

  it('fit takes the image out of a reply with text, and a reply that held only an image goes', () => {
    const r = fit(history, { strategy: 'unbounded', provider: 'openai' })
    expect(openAIChatViolations(toOpenAIChat(r.messages))).toEqual([])
    expect(r.messages[1]?.content).toEqual([{ type: 'text', text: 'Here is the chart.' }])
    expect(r.changed).toEqual([{ index: 1, position: 1, reason: 'unsupported-part' }])
    expect(r.fates[3]).toMatchObject({ fate: 'invalid', reason: 'unsupported-part' })
    expect(r.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user'])
    // What is not sent is not counted.
    expect(r.tokens.total).toBe(
      fit(r.messages, { strategy: 'unbounded', provider: 'openai' }).tokens.total,
    )
    // The input is not touched.
    expect(history[1]?.content).toHaveLength(2)
  })

  it('a reply with calls keeps them when its only part was an image', () => {
    const h: Message[] = [
      { role: 'user', content: 'look it up' },
      {
        role: 'assistant',
        content: [{ type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf' }],
        toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }],
      },
      { role: 'tool', toolCallId: 'c1', content: 'found' },
    ]
    const r = fit(h, { strategy: 'unbounded', provider: 'openai' })
    const wire = toOpenAIChat(r.messages)
    expect(openAIChatViolations(wire)).toEqual([])
    expect(wire[1]).toMatchObject({ role: 'assistant', content: null })
    expect(r.changed).toEqual([{ index: 1, position: 1, reason: 'unsupported-part' }])
  })

  it('ChatContext sends the same as fit, and other providers keep the image', async () => {
    const ctx = new ChatContext({ provider: 'openai' })
    await ctx.addMessages(history)
    expect(openAIChatViolations(toOpenAIChat(await ctx.getMessages()))).toEqual([])
    expect(await ctx.getMessages()).toEqual(
      fit(history, { strategy: 'unbounded', provider: 'openai' }).messages,
    )
    expect(
      fit(history, { strategy: 'unbounded', provider: 'anthropic' }).messages[1]?.content,
    ).toHaveLength(2)
  })

  it('toOpenAIChat does not write an image into an assistant message, and convert says so', () => {
    expect(openAIChatViolations(toOpenAIChat(history.slice(0, 3)))).toEqual([])
    const { lost } = encode(history.slice(0, 3), 'openai-chat')
    expect(lost).toEqual([{ index: 1, what: expect.stringMatching(/^image part of an assistant/) }])
  })

  it('an AI SDK assistant message with a file part reaches OpenAI chat without it', () => {
    const sdk: ModelMessage[] = [
      { role: 'user', content: 'make a logo' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Done:' },
          { type: 'file', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        ],
      },
      { role: 'user', content: 'nice' },
    ]
    const r = fit(fromAISDK(sdk), { strategy: 'unbounded', provider: 'openai' })
    expect(openAIChatViolations(toOpenAIChat(r.messages))).toEqual([])
    expect(r.fates[1]).toMatchObject({ fate: 'changed', reason: 'unsupported-part' })
    expect(r.changed.map((c) => c.reason)).toEqual(['unsupported-part'])
  })
})

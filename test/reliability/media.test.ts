// Images and files where a provider takes only text: a tool result (OpenAI chat), a system
// message (OpenAI chat, Anthropic's `system`), a later system message sent as user text
// (Gemini). Checked on the wire with the oracles in test/oracle, never with validate().
import { describe, expect, it } from 'vitest'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { fit } from '../../src/context/fit.js'
import { encode } from '../../src/formats/detect.js'
import type { ContentPart, Message } from '../../src/messages/message.js'
import { toAnthropic } from '../../src/providers/anthropic-messages/codec.js'
import { encodeGemini, toGemini } from '../../src/providers/gemini/codec.js'
import { toOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { repair } from '../../src/providers/repair.js'
import { validate } from '../../src/providers/validate.js'
import { exactCounter, providerCounter } from '../../src/tokens/counters.js'
import { CLEARED, clearToolResults } from '../../src/transforms/clear-tool-results.js'
import { anthropicViolations } from '../oracle/anthropic.js'
import { geminiViolations } from '../oracle/gemini.js'
import { openAIChatViolations } from '../oracle/openai.js'
import { deepFreeze } from '../properties/generators.js'

const counter = exactCounter()
const shot: ContentPart = {
  type: 'image',
  url: 'https://example.com/screen.png',
  width: 1024,
  height: 768,
}
const pdf: ContentPart = { type: 'file', data: 'JVBERi0xLjQ=', mediaType: 'application/pdf' }

const openaiWire = (messages: readonly Message[]) =>
  openAIChatViolations(JSON.parse(JSON.stringify(toOpenAIChat(messages))))
const anthropicWire = (messages: readonly Message[]) => {
  const { lost: _lost, ...request } = toAnthropic(messages)
  return anthropicViolations(JSON.parse(JSON.stringify(request)))
}

/** An agent that took two screenshots in one turn, then answered. */
function screenshots(): Message[] {
  return [
    { role: 'system', content: 'You drive a browser.' },
    { role: 'user', content: 'Open the page and tell me what you see.' },
    {
      role: 'assistant',
      toolCalls: [
        { id: 'call_a', name: 'screenshot', arguments: '{"tab":1}' },
        { id: 'call_b', name: 'read_pdf', arguments: '{"tab":2}' },
        { id: 'call_c', name: 'title', arguments: '{}' },
      ],
    },
    {
      role: 'tool',
      toolCallId: 'call_a',
      toolName: 'screenshot',
      content: [{ type: 'text', text: 'tab 1 captured' }, shot],
    },
    { role: 'tool', toolCallId: 'call_b', toolName: 'read_pdf', content: [pdf] },
    { role: 'tool', toolCallId: 'call_c', toolName: 'title', content: 'Example Domain' },
    { role: 'assistant', content: 'A page titled Example Domain.' },
    { role: 'user', content: 'Thanks.' },
  ]
}

describe('OpenAI chat: an image or file in a tool result', () => {
  it('moves to one user message after the results of its exchange, said where it came from', () => {
    const h = deepFreeze(screenshots())
    const r = fit(h, { strategy: 'unbounded', provider: 'openai' })
    expect(openaiWire(r.messages)).toEqual([])
    expect(r.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
      'user',
      'assistant',
      'user',
    ])
    expect(r.messages[3]).toEqual({ ...h[3], content: [{ type: 'text', text: 'tab 1 captured' }] })
    expect(r.messages[4]).toEqual({ ...h[4], content: '' })
    expect(r.messages[5]).toEqual(h[5])
    expect(r.messages[6]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Images returned by screenshot (call call_a):' },
        shot,
        { type: 'text', text: 'Files returned by read_pdf (call call_b):' },
        pdf,
      ],
    })
    // Each tool result is placed where it is sent as a tool message, and reported once.
    expect(r.fates[3]).toMatchObject({ fate: 'changed', reason: 'media-moved', position: 3 })
    expect(r.fates[4]).toMatchObject({ fate: 'changed', reason: 'media-moved', position: 4 })
    expect(r.fates[5]).toMatchObject({ fate: 'kept', position: 5 })
    expect(r.changed.map((c) => [c.index, c.position])).toEqual([
      [3, 3],
      [4, 4],
    ])
    expect(r.kept).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    // Everything sent is counted, the moved parts included.
    expect(r.tokens.total).toBe(counter.countMessages(r.messages))
  })

  it('the exchange and its moved images are kept or dropped as one', () => {
    const h = deepFreeze(screenshots())
    const all = fit(h, { strategy: 'unbounded', provider: 'openai', counter })
    // Room for the newest turn and the preamble, not for the screenshot exchange.
    const exchange =
      all.tokens.messages - counter.countMessages([h[0], h[1], h[6], h[7]] as Message[])
    const seen = new Set<string>()
    for (const cut of [1, 2, exchange - 1, exchange, exchange + 1]) {
      const budget = all.tokens.total - cut
      const r = fit(h, {
        provider: 'openai',
        counter,
        budget,
        strategy: 'tokenLimited',
        ledger: false,
      })
      expect(openaiWire(r.messages)).toEqual([])
      const calls = r.messages.findIndex((m) => m.role === 'assistant' && m.toolCalls)
      const images = r.messages.findIndex(
        (m) =>
          m.role === 'user' &&
          Array.isArray(m.content) &&
          m.content.some((p) => p.type === 'image'),
      )
      // Either the whole exchange with its user message of images right after, or none of it.
      if (calls < 0) expect(images).toBe(-1)
      else expect(images).toBe(calls + 4)
      seen.add(calls < 0 ? 'dropped' : 'kept')
      expect(r.tokens.total).toBeLessThanOrEqual(budget)
    }
    expect([...seen].sort()).toEqual(['dropped', 'kept'])
  })

  it('fit and ChatContext send the same messages, and the context counts the moved parts', async () => {
    const h = screenshots()
    const ctx = new ChatContext({ provider: 'openai', counter })
    // One message at a time: the exchange is repaired again as each result arrives.
    for (const m of h) {
      await ctx.addMessage(m)
      expect(await ctx.getMessages()).toEqual(
        fit(h.slice(0, ctx.history().length), {
          strategy: 'unbounded',
          provider: 'openai',
          counter,
        }).messages,
      )
    }
    const a = await ctx.getMessages()
    const b = fit(h, { strategy: 'unbounded', provider: 'openai', counter }).messages
    expect(a).toEqual(b)
    expect(ctx.fit().tokens.total).toBe(counter.countMessages(b))
  })

  it('validate names the problem; repair does not touch its input', () => {
    const h = deepFreeze(screenshots())
    expect(
      validate(h)
        .filter((p) => p.severity === 'error')
        .map((p) => [p.index, p.code]),
    ).toEqual([
      [3, 'media-moved'],
      [4, 'media-moved'],
    ])
    const r = repair(h)
    expect(validate(r.messages)).toEqual([])
    expect(r.origin).toEqual([0, 1, 2, 3, 4, 5, 3, 6, 7])
    expect(r.changed).toEqual([
      { index: 3, code: 'media-moved' },
      { index: 4, code: 'media-moved' },
    ])
    // Other providers take media in a tool result: nothing moves.
    expect(repair(h, { provider: 'anthropic' }).messages).toEqual(h)
  })

  it('an exchange with an unanswered call still gets its images after the results', () => {
    const h = screenshots()
    const trimmed = [...h.slice(0, 4), ...h.slice(6)]
    const r = fit(trimmed, { strategy: 'unbounded', provider: 'openai' })
    expect(openaiWire(r.messages)).toEqual([])
    expect(r.messages[2]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_a' }] })
    expect(r.messages[4]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Images returned by screenshot (call call_a):' }, shot],
    })
  })

  it('clearToolResults clears the moved images of a cleared result, and only those', async () => {
    const h = screenshots()
    const again = screenshots()
      .slice(1, 7)
      .map((m) =>
        m.role === 'assistant' && m.toolCalls
          ? { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, id: `${c.id}2` })) }
          : m.role === 'tool'
            ? { ...m, toolCallId: `${m.toolCallId}2` }
            : m,
      )
    const input = deepFreeze([...h.slice(0, 7), ...again, h[7] as Message])
    const options = { strategy: 'unbounded' as const, provider: 'openai' as const, counter }
    const plain = fit(input, options)
    const r = fit(input, {
      ...options,
      transforms: [clearToolResults({ keep: 1, excludeTools: ['read_pdf'] })],
    })
    expect(openaiWire(r.messages)).toEqual([])
    // The older exchange: the screenshot's result and its image cleared, the excluded PDF kept.
    expect(r.messages[3]).toMatchObject({ toolCallId: 'call_a', content: CLEARED })
    expect(r.messages[4]).toMatchObject({ toolCallId: 'call_b', content: '' })
    expect(r.messages[6]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: `Images returned by screenshot (call call_a): ${CLEARED}` },
        { type: 'text', text: 'Files returned by read_pdf (call call_b):' },
        pdf,
      ],
    })
    expect(r.fates[3]).toMatchObject({ fate: 'changed', reason: 'cleared' })
    // The newer exchange keeps its image.
    expect(r.messages.filter((m) => JSON.stringify(m).includes(shot.url as string))).toHaveLength(1)
    expect(r.tokens.total).toBeLessThan(plain.tokens.total - 300)
    expect(r.tokens.total).toBe(counter.countMessages(r.messages))
  })

  it('toOpenAIChat never writes media in a tool message; encode lists it as lost', () => {
    const h = screenshots()
    expect(openaiWire(h)).toEqual([])
    const { lost } = encode(h, 'openai-chat')
    expect(lost.map((l) => l.index)).toEqual([3, 4])
    expect(lost[0]?.what).toMatch(/image part of a tool message/)
    expect(lost[1]?.what).toMatch(/file part of a tool message/)
  })
})

describe('a system message with an image', () => {
  const preamble: Message = {
    role: 'system',
    content: [{ type: 'text', text: 'Brand guide:' }, shot],
  }
  const later: Message = { role: 'system', content: [{ type: 'text', text: 'New logo:' }, shot] }
  const h = (): Message[] => [
    preamble,
    { role: 'user', content: 'Draw a banner.' },
    { role: 'assistant', content: 'Done.' },
    later,
    { role: 'user', content: 'Again with the new logo.' },
  ]

  it.each(['openai', 'anthropic'] as const)(
    '%s: repair takes the image out, reported',
    (provider) => {
      const input = deepFreeze(h())
      const r = fit(input, { strategy: 'unbounded', provider })
      const wire = provider === 'openai' ? openaiWire : anthropicWire
      expect(wire(r.messages)).toEqual([])
      expect(r.fates[0]).toMatchObject({ fate: 'changed', reason: 'unsupported-part' })
      expect(r.fates[3]).toMatchObject({ fate: 'changed', reason: 'unsupported-part' })
      expect(r.messages[0]).toEqual({
        role: 'system',
        content: [{ type: 'text', text: 'Brand guide:' }],
      })
      // With no model named, Anthropic rules count as Claude is estimated.
      const used = provider === 'anthropic' ? providerCounter('anthropic') : counter
      expect(r.tokens.total).toBe(used.countMessages(r.messages))
      expect(
        validate(input, { provider })
          .filter((p) => p.code === 'unsupported-part')
          .map((p) => [p.index, p.severity]),
      ).toEqual([
        [0, 'error'],
        [3, 'error'],
      ])
    },
  )

  it('anthropic: a later system message kept as the first one still has no image in `system`', () => {
    const r = fit(deepFreeze(h().slice(1)), {
      provider: 'anthropic',
      strategy: 'buffered',
      size: 2,
    })
    expect(r.messages.map((m) => m.role)).toEqual(['system', 'user'])
    expect(anthropicWire(r.messages)).toEqual([])
  })

  it('a system message that held only an image is taken out', () => {
    const only: Message[] = [
      { role: 'system', content: [shot] },
      { role: 'user', content: 'hi' },
    ]
    for (const provider of ['openai', 'anthropic'] as const) {
      const r = fit(only, { strategy: 'unbounded', provider })
      expect(r.fates[0]).toMatchObject({ fate: 'invalid', reason: 'unsupported-part' })
      expect(r.messages).toEqual([{ role: 'user', content: 'hi' }])
    }
  })

  it('written directly, neither codec sends it: the image is listed as lost', () => {
    expect(openaiWire(h())).toEqual([])
    expect(encode(h(), 'openai-chat').lost.map((l) => l.index)).toEqual([0, 3])
    expect(anthropicWire(h())).toEqual([])
    const { lost, system } = toAnthropic(h())
    expect(system).toEqual([{ type: 'text', text: 'Brand guide:' }])
    expect(lost.some((l) => /image part of system message 0/.test(l.what))).toBe(true)
  })

  it('anthropic: a later system message keeps its text parts and sends its image in the user turn', () => {
    const { messages } = toAnthropic(h())
    expect(messages[2]?.content).toEqual([
      { type: 'text', text: '[system] New logo:' },
      { type: 'image', source: { type: 'url', url: shot.url } },
      { type: 'text', text: 'Again with the new logo.' },
    ])
  })
})

describe('Gemini: a later system message with an image', () => {
  const h: Message[] = [
    { role: 'user', content: 'Draw a banner.' },
    { role: 'assistant', content: 'Done.' },
    {
      role: 'system',
      content: [
        { type: 'text', text: 'New logo:' },
        { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        shot,
      ],
    },
    { role: 'user', content: 'Again.' },
  ]

  it('goes in the same user turn as inlineData and fileData parts', () => {
    const out = toGemini(h)
    expect(geminiViolations(JSON.parse(JSON.stringify(out)))).toEqual([])
    expect(out.contents[2]).toEqual({
      role: 'user',
      parts: [
        { text: '[system] New logo:' },
        { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
        { fileData: { mimeType: 'image/png', fileUri: shot.url } },
      ],
    })
    // Only the role is lost, not the images.
    expect(encodeGemini(h).lost.map((l) => l.what)).toEqual(['system message 2 sent as user text'])
  })

  it('through fit, counted as sent', () => {
    const r = fit(h, { strategy: 'unbounded', provider: 'gemini', counter })
    expect(r.messages[2]).toEqual(h[2])
    expect(toGemini(r.messages).contents[2]?.parts).toHaveLength(3)
  })
})

import { describe, expect, it } from 'vitest'
import { fit } from '../context/fit.js'
import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { readAnthropic, toAnthropic } from '../providers/anthropic-messages/codec.js'
import { errorsOf, validate } from '../providers/validate.js'
import { clearThinking } from './clear-thinking.js'
import { dropThoughts } from './drop-thoughts.js'

/** Three turns; the second is a tool loop of two assistant messages, the third does not reason. */
const request = {
  system: 'agent',
  messages: [
    { role: 'user', content: 'first' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'T1 😀', signature: 'sig-1' },
        { type: 'text', text: 'answer 1' },
      ],
    },
    { role: 'user', content: 'second' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'T2a', signature: 'sig-2a' },
        { type: 'redacted_thinking', data: 'opaque-2a' },
        { type: 'tool_use', id: 'toolu_1', name: 'look', input: { q: 1 } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'T2b', signature: 'sig-2b' },
        { type: 'text', text: 'answer 2' },
      ],
    },
    { role: 'user', content: 'third' },
    { role: 'assistant', content: [{ type: 'text', text: 'answer 3' }] },
    { role: 'user', content: 'fourth' },
  ],
}

/** What Anthropic would receive, read apart from the library: the thinking blocks per assistant turn. */
function thinkingPerAssistantMessage(wire: ReturnType<typeof toAnthropic>): string[][] {
  return wire.messages
    .filter((m) => m.role === 'assistant')
    .map((m) =>
      Array.isArray(m.content)
        ? (m.content as { type: string; thinking?: string; data?: string; signature?: string }[])
            .filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking')
            .map((b) =>
              b.type === 'thinking' ? `${b.thinking}|${b.signature}` : `redacted:${b.data}`,
            )
        : [],
    )
}

describe('clearThinking (Anthropic clear_thinking_20251015, client-side)', () => {
  const history = readAnthropic(request)
  const frozen = structuredClone(history)
  const run = (keep: Parameters<typeof clearThinking>[0]) => {
    const r = fit(history, {
      strategy: 'unbounded',
      transforms: [clearThinking(keep)],
      provider: 'anthropic',
    })
    expect(errorsOf(validate(r.messages, { provider: 'anthropic' }))).toEqual([])
    return { r, wire: thinkingPerAssistantMessage(toAnthropic(r.messages)) }
  }

  it('default keep is one turn: the newest turn that has an assistant message keeps its reasoning, a turn that did not reason still counts', () => {
    const { r, wire } = run(undefined)
    // The newest turn (answer 3) did not reason: every older thinking block goes.
    expect(wire).toEqual([[], [], [], []])
    expect(r.changed.map((c) => c.reason)).toEqual([
      'thought-dropped',
      'thought-dropped',
      'thought-dropped',
    ])
    expect(history).toEqual(frozen)
  })

  it('keep two turns: the tool loop keeps all its reasoning, signatures and redacted blocks byte for byte', () => {
    const { wire } = run({ keep: { type: 'thinking_turns', value: 2 } })
    expect(wire).toEqual([[], ['T2a|sig-2a', 'redacted:opaque-2a'], ['T2b|sig-2b'], []])
  })

  it("keep 'all' changes nothing; keep 0 clears every turn", () => {
    expect(run({ keep: 'all' }).r.changed).toEqual([])
    expect(run({ keep: { type: 'thinking_turns', value: 0 } }).wire).toEqual([[], [], [], []])
    expect(run({ keep: { type: 'thinking_turns', value: 9 } }).wire).toEqual([
      ['T1 😀|sig-1'],
      ['T2a|sig-2a', 'redacted:opaque-2a'],
      ['T2b|sig-2b'],
      [],
    ])
  })

  it('counts turns where dropThoughts counts messages with reasoning', () => {
    expect(run({ keep: { type: 'thinking_turns', value: 1 } }).wire).toEqual([[], [], [], []])
    const messages = thinkingPerAssistantMessage(
      toAnthropic(
        fit(history, {
          strategy: 'unbounded',
          transforms: [dropThoughts({ keepLast: 1 })],
          provider: 'anthropic',
        }).messages,
      ),
    )
    expect(messages).toEqual([[], ['redacted:opaque-2a'], ['T2b|sig-2b'], []])
  })

  it('refuses a keep that is not Anthropic-shaped, with a typed error', () => {
    for (const keep of [
      { type: 'thinking_turns', value: -1 },
      { type: 'thinking_turns', value: 1.5 },
      { type: 'tool_uses', value: 1 },
      'none',
      { __proto__: { type: 'thinking_turns', value: 1 } },
    ]) {
      expect(() => clearThinking({ keep } as never)).toThrow(InvalidOptionError)
    }
  })

  it('runs on OpenAI histories too (reasoning kept in `thought`)', () => {
    const h: Message[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'x', thought: 'old' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'y', thought: 'new' },
    ]
    const r = fit(h, { strategy: 'unbounded', transforms: [clearThinking()] })
    expect(
      r.messages.map((m) => (m.role === 'assistant' ? (m.thought ?? null) : undefined)),
    ).toEqual([undefined, null, undefined, 'new'])
  })
})

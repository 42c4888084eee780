import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { meaning } from '../../../test/meaning.js'
import { tauBench } from '../../../test/tau-bench.js'
import { fit } from '../../context/fit.js'
import { InvalidInputError } from '../../errors.js'
import { dropThoughts } from '../../transforms/drop-thoughts.js'
import { fromOpenAIChat } from '../openai-chat/codec.js'
import { repair } from '../repair.js'
import { errorsOf, validate } from '../validate.js'
import { fromAnthropic, readAnthropic, toAnthropic } from './codec.js'

const fixture = JSON.parse(
  readFileSync(new URL('../../../test/fixtures/formats/anthropic.json', import.meta.url), 'utf8'),
)

describe('Anthropic Messages codec', () => {
  it('round-trips every block kind: thinking and redacted thinking byte for byte, cache_control, documents, images', () => {
    const decoded = fromAnthropic(fixture)
    const { lost, ...encoded } = toAnthropic(decoded)
    expect(encoded).toEqual(fixture)
    expect(lost).toEqual([])
  })

  it('decodes tool results into tool messages followed by the user text, thinking into `thought`', () => {
    const m = fromAnthropic(fixture)
    expect(m.map((x) => x.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
      'assistant',
      'user',
    ])
    expect(m[2]).toMatchObject({
      thought: 'I should look the reservation up first.',
      toolCalls: [
        { id: 'toolu_01A', arguments: '{"reservation_id":"ZFA04Y"}' },
        { id: 'toolu_01B' },
      ],
    })
    expect(m[4]).toMatchObject({
      role: 'tool',
      toolCallId: 'toolu_01B',
      toolName: 'get_user_details',
      isError: true,
    })
    expect(errorsOf(validate(m, { provider: 'anthropic' }))).toEqual([])
  })

  it('keeps a dropped thought out of the request and keeps the rest valid', () => {
    const r = fit(fromAnthropic(fixture), {
      strategy: 'unbounded',
      transforms: [dropThoughts()],
      provider: 'anthropic',
    })
    const out = toAnthropic(r.messages)
    expect(JSON.stringify(out)).not.toMatch(/"type":"thinking"/)
    expect(JSON.stringify(out)).toMatch(/redacted_thinking/)
  })

  it('converts all 200 τ-bench trajectories to Anthropic and back with their meaning kept, valid after repair', () => {
    for (const r of tauBench()) {
      const canonical = fromOpenAIChat(r.traj)
      const { lost, ...anthropic } = toAnthropic(canonical)
      expect(lost).toEqual([])
      const back = fromAnthropic(JSON.parse(JSON.stringify(anthropic)))
      expect(meaning(back)).toEqual(meaning(canonical))
      const fixed = repair(back, { provider: 'anthropic' })
      expect(
        errorsOf(validate(fixed.messages, { provider: 'anthropic' })),
        `task ${r.task_id}`,
      ).toEqual([])
      // Tool results sit in the user turn right after their call.
      anthropic.messages.forEach((t, k) => {
        if (Array.isArray(t.content) && t.content.some((b) => b.type === 'tool_result'))
          expect(anthropic.messages[k - 1]?.role).toBe('assistant')
      })
    }
  })

  it('says what it cannot carry: a mid-history system message, reasoning without a signature', () => {
    const { lost } = toAnthropic([
      { role: 'user', content: 'a' },
      { role: 'system', content: 'be brief' },
      { role: 'assistant', content: 'b', thought: 'hmm' },
    ])
    expect(lost.map((l) => l.what)).toEqual([
      'system message 1 sent as user text',
      'reasoning of message 2 (no signature to send it back with)',
    ])
  })

  it.each<[unknown, RegExp]>([
    [{ messages: [{ role: 'robot', content: 'x' }] }, /message 0, field role/],
    [
      { messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] },
      /message 0, field content.0.tool_use_id/,
    ],
    [
      {
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', input: 'x' }] },
        ],
      },
      /message 0, field content.0.input: expected an object/,
    ],
    [{ messages: [{ role: 'user', content: 7 }] }, /message 0, field content/],
    // A tool result's own blocks are checked too: null or a bare value is a typed error, not a crash.
    ...[null, 7, 'text', []].map((block): [unknown, RegExp] => [
      {
        messages: [
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 't', content: [block] }],
          },
        ],
      },
      /message 0, field content.0.content.0: expected a block with a type/,
    ]),
    [{ nope: true }, /field messages/],
  ])('refuses bad input with a typed error (%#)', (input, pattern) => {
    expect(() => readAnthropic(input)).toThrow(InvalidInputError)
    expect(() => readAnthropic(input)).toThrow(pattern)
  })
})

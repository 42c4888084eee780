import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { messageIssue } from './check.js'
import { messageSchema } from './message.js'

// Values a field may be given: right, wrong and nasty.
const scalar = fc.oneof(
  fc.constantFrom('', ' ', 'x', '𝒳', '<|endoftext|>', 'a.b', '__proto__'),
  fc.constantFrom(0, -1, 1, 1.5, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY, -0),
  fc.constantFrom(true, false, null, undefined),
  fc.constantFrom([], {}, [1], { a: 1 }, { a: { b: 1 } }, { __proto__: null }),
)

const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.oneof(fc.string(), scalar) }),
  fc.record(
    {
      type: fc.constant('image'),
      url: fc.oneof(fc.string(), scalar),
      detail: fc.oneof(fc.constantFrom('auto', 'low', 'high', 'medium'), scalar),
      width: fc.oneof(fc.integer({ min: -2, max: 4000 }), scalar),
      height: fc.oneof(fc.integer({ min: 1, max: 4000 }), scalar),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    { type: fc.constantFrom('file', 'audio', 'TEXT'), filename: fc.oneof(fc.string(), scalar) },
    { requiredKeys: ['type'] },
  ),
  scalar,
)

const content = fc.oneof(fc.string(), fc.array(part, { maxLength: 3 }), scalar)

const toolCall = fc.oneof(
  fc.record(
    {
      id: fc.oneof(fc.constantFrom('call.1', 'a', ''), scalar),
      name: fc.oneof(fc.string(), scalar),
      arguments: fc.oneof(fc.constantFrom('{}', '{"a":1}'), scalar),
      providerMetadata: fc.oneof(fc.constant({ openai: { x: 1 } }), scalar),
    },
    { requiredKeys: ['id', 'name', 'arguments'] },
  ),
  scalar,
)

const message = fc.oneof(
  fc.record(
    {
      role: fc.oneof(
        fc.constantFrom('system', 'user', 'assistant', 'tool', 'robot', 'constructor'),
        scalar,
      ),
      content,
      name: fc.oneof(fc.string(), scalar),
      toolCalls: fc.oneof(fc.array(toolCall, { maxLength: 3 }), scalar),
      toolCallId: fc.oneof(fc.constantFrom('call.1', ''), scalar),
      thought: fc.oneof(fc.string(), scalar),
      isError: fc.oneof(fc.boolean(), scalar),
      providerMetadata: fc.oneof(
        fc.dictionary(fc.constantFrom('openai', '__proto__', 'a.b'), fc.oneof(scalar, fc.object())),
        scalar,
      ),
      extra: scalar,
    },
    { requiredKeys: [] },
  ),
  scalar,
)

describe('messageIssue: the message schema as plain checks', () => {
  it('accepts exactly what messageSchema accepts, and names the same field and reason', () => {
    fc.assert(
      fc.property(message, (m) => {
        const ours = messageIssue(m)
        const zod = messageSchema.safeParse(m)
        expect(ours === undefined).toBe(zod.success)
        if (zod.success || !ours) return
        const first = zod.error.issues[0]
        if (!first) throw new Error('zod rejected with no issue')
        // Inside content zod stops at "Invalid input"; ours goes on to the part and field.
        if (first.path[0] === 'content' && first.message === 'Invalid input') {
          expect(ours.path.slice(0, first.path.length)).toEqual(first.path)
        } else {
          expect({ path: ours.path, message: ours.message }).toEqual({
            path: first.path,
            message: first.message,
          })
        }
      }),
      { numRuns: 3000, seed: 15 },
    )
  })

  it('names the part and field inside content', () => {
    expect(messageIssue({ role: 'user', content: [{ type: 'image', width: 1.5 }] })).toEqual({
      path: ['content', 0, 'width'],
      message: 'Invalid input: expected int, received number',
    })
    expect(messageIssue({ role: 'user', content: [{ type: 'video' }] })).toEqual({
      path: ['content', 0, 'type'],
      message: "Invalid discriminator value. Expected 'text' | 'image' | 'file'",
    })
    expect(messageIssue({ role: 'user', content: 5 })).toEqual({
      path: ['content'],
      message: 'Invalid input: expected string or array, received number',
    })
  })

  it('accepts every valid message kind', () => {
    const ok = [
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '' },
          { type: 'image', url: 'x', width: 1 },
        ],
      },
      { role: 'assistant', toolCalls: [{ id: 'c.1', name: 'f', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c.1', content: '', isError: false },
      { role: 'user', content: 'x', providerMetadata: { openai: {} }, unknownKey: 1 },
    ]
    for (const m of ok) expect(messageIssue(m)).toBeUndefined()
  })
})

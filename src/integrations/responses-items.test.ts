import { describe, expect, it } from 'vitest'
import type { AssistantMessage } from '../messages/message.js'
import { decodeItemsWithCodec } from './responses-items.js'

describe('Agents SDK items read through the Responses codec', () => {
  it('maps camelCase items to the API shape; the codec reads reasoning, calls and outputs', () => {
    const items = [
      { role: 'user', content: 'Book it. 🛫' },
      {
        type: 'reasoning',
        id: 'rs.1',
        content: [{ type: 'input_text', text: 'The user wants a booking.' }],
        providerData: { encrypted_content: 'gAAAA.secret' },
      },
      { type: 'function_call', callId: 'call.1', name: 'book', arguments: '{"__proto__":{}}' },
      {
        type: 'function_call_result',
        callId: 'call.1',
        name: 'book',
        status: 'completed',
        output: { type: 'text', text: 'booked' },
      },
      { type: 'hosted_tool_call', name: 'web', id: 'ht_1' },
    ]
    const { messages, sources, owner } = decodeItemsWithCodec(items)
    expect(sources).toEqual([[0], [1, 2], [3], [4]])
    // Groups the codec read carry its round-trip metadata; the hosted call is this module's reading.
    const turn = messages.find(
      (m): m is AssistantMessage => m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0,
    )
    expect(turn?.toolCalls?.[0]?.id).toBe('call.1')
    expect(JSON.stringify(turn?.providerMetadata)).toContain('gAAAA.secret')
    const result = messages.find((m) => m.role === 'tool')
    expect(result).toMatchObject({ role: 'tool', toolCallId: 'call.1', content: 'booked' })
    expect(owner[owner.length - 1]).toBe(3)
    expect(JSON.stringify(messages[messages.length - 1])).toContain('hosted_tool_call')
  })
})

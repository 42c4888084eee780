import * as lc from '@langchain/core/messages'
import { describe, expect, it } from 'vitest'
import { InvalidOptionError } from '../errors.js'
import { fromLangChain } from '../formats/langchain.js'
import type { Message } from '../messages/message.js'
import { toLangChainMessages } from './langchain-messages.js'

const history: Message[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Where is my bag?' },
  { role: 'assistant', toolCalls: [{ id: 'c1', name: 'track', arguments: '{"tag":"A1"}' }] },
  { role: 'tool', toolCallId: 'c1', toolName: 'track', content: 'in Denver' },
  { role: 'assistant', content: 'It is in Denver.' },
]

describe('toLangChainMessages', () => {
  it('gives BaseMessage instances of the class of each role, calls and results included', () => {
    const out = toLangChainMessages(history, lc)
    expect(out.map((m) => m.constructor.name)).toEqual([
      'SystemMessage',
      'HumanMessage',
      'AIMessage',
      'ToolMessage',
      'AIMessage',
    ])
    for (const m of out) expect(m).toBeInstanceOf(lc.BaseMessage)
    expect((out[2] as lc.AIMessage).tool_calls).toEqual([
      expect.objectContaining({ id: 'c1', name: 'track', args: { tag: 'A1' } }),
    ])
    expect((out[3] as lc.ToolMessage).tool_call_id).toBe('c1')
    // And back: the same roles, texts and call.
    const back = fromLangChain(out)
    expect(back.map((m) => m.role)).toEqual(history.map((m) => m.role))
    expect(back.map((m) => m.content ?? '')).toEqual(history.map((m) => m.content ?? ''))
    expect(back[2]).toMatchObject({ toolCalls: [{ id: 'c1', name: 'track' }] })
  })

  it('instances read from instances come back as instances of the same classes', () => {
    const input = [new lc.HumanMessage('hi'), new lc.AIMessage('hello')]
    const out = toLangChainMessages(fromLangChain(input), lc)
    expect(out[0]).toBeInstanceOf(lc.HumanMessage)
    expect(out[1]).toBeInstanceOf(lc.AIMessage)
    expect(out[1]?.content).toBe('hello')
  })

  it('refuses what is not the classes, saying what to pass', () => {
    expect(() => toLangChainMessages(history, {} as never)).toThrow(InvalidOptionError)
    expect(() => toLangChainMessages(history, {} as never)).toThrow(
      /import \* as lc from '@langchain\/core\/messages'/,
    )
  })
})

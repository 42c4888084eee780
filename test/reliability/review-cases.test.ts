// Cases a review of the provider tables found: each failed before its fix.
import { describe, expect, it } from 'vitest'
import { fit } from '../../src/context/fit.js'
import { encode } from '../../src/formats/detect.js'
import { fitModelInput } from '../../src/integrations/openai-agents.js'
import { decodeItemsWithCodec } from '../../src/integrations/responses-items.js'
import type { Message } from '../../src/messages/message.js'
import { tokenLimited } from '../../src/strategies/token-limited.js'

const history: Message[] = [
  { role: 'system', content: 'You are a travel agent.' },
  { role: 'user', content: 'old question '.repeat(80) },
  { role: 'assistant', content: 'old answer '.repeat(80) },
  { role: 'system', content: 'From now on answer in French.' },
  { role: 'user', content: 'Where is my bag?' },
  { role: 'assistant', content: 'It is in Paris.' },
  { role: 'user', content: 'Thanks, when does it arrive?' },
]

describe('a user-first provider keeps a system message met on the way to a user turn', () => {
  for (const provider of ['gemini', 'anthropic'] as const)
    for (const strategy of [undefined, tokenLimited({ stable: true })])
      it(`${provider}, ${strategy ? 'stable' : 'default'} strategy`, () => {
        const r = fit(history, { provider, budget: 120, ...(strategy && { strategy }) })
        const body = JSON.stringify(
          encode(r.messages, provider === 'gemini' ? 'gemini' : 'anthropic').output,
        )
        expect(body).toContain('answer in French')
        expect(body).toContain('Where is my bag?')
        // The provider's rule, read from the wire: the first turn is the user's.
        const wire = encode(r.messages, provider === 'gemini' ? 'gemini' : 'anthropic').output as {
          contents?: { role: string }[]
          messages?: { role: string }[]
        }
        expect((wire.contents ?? wire.messages)?.[0]?.role).toBe('user')
      })
})

describe('the Agents SDK filter reads a reasoning item in either dialect', () => {
  const big = 'word '.repeat(500)
  const turn = (reasoning: object) => [
    { type: 'message', role: 'user', content: `old question ${'x '.repeat(50)}` },
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'old answer' }],
    },
    { type: 'message', role: 'user', content: 'hi' },
    reasoning,
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'answer' }],
    },
    { type: 'message', role: 'user', content: 'next' },
  ]
  // The SDK keeps the summary as `content` (input_text) and sends it to the API as `summary`.
  const sdk = {
    type: 'reasoning',
    id: 'rs_1',
    content: [{ type: 'input_text', text: big }],
    providerData: { encrypted_content: 'ENC' },
  }
  const api = {
    type: 'reasoning',
    id: 'rs_1',
    summary: [{ type: 'summary_text', text: big }],
    encrypted_content: 'ENC',
  }

  for (const [dialect, item] of [
    ['the SDK', sdk],
    ['the API', api],
  ] as const)
    it(`counts its summary (${dialect}) and never sends more than the budget`, () => {
      const filter = fitModelInput({ budget: 200 })
      const sent = JSON.stringify(
        filter({ modelData: { input: turn(item), instructions: 'be brief' } } as never).input,
      )
      expect(sent).not.toContain(big)
      // The summary is the reasoning the message carries when it is counted.
      const decoded = decodeItemsWithCodec(turn(item)).messages
      const reasoning = decoded.find((m) => m.role === 'assistant' && m.thought)
      expect(reasoning?.role === 'assistant' && reasoning.thought?.length).toBeGreaterThan(2000)
    })

  it('keeps the encrypted content where the item holds a non-string beside a string in providerData', () => {
    const item = { ...api, encrypted_content: 7, providerData: { encrypted_content: 'X' } }
    const decoded = decodeItemsWithCodec(turn(item)).messages
    expect(JSON.stringify(decoded)).toContain('"encrypted_content":"X"')
  })
})

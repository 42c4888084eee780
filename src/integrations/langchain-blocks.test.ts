import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from 'langchain'
import { describe, expect, it } from 'vitest'
import { userTurn } from '../../test/helpers/turns.js'
import { exactCounter } from '../tokens/counters.js'
import { fitAgentMessages } from './langchain.js'

/**
 * Every content block kind the installed `@langchain/core` defines (the `type` literals of its
 * `messages/content` type definitions, read from the package, so a kind a later version adds
 * fails the coverage check until it has a case here), each in a message of the role that
 * carries it: passed through as the caller's own instance when it fits, and gone only with
 * the whole of its message (and a tool call's result) when the fit drops it.
 */

/** The block `type` literals `@langchain/core`'s content types declare. */
function sdkBlockKinds(): string[] {
  const require = createRequire(import.meta.url)
  const dir = join(dirname(require.resolve('@langchain/core/messages')), 'content')
  const kinds = new Set<string>()
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.d.ts')))
    for (const m of readFileSync(join(dir, file), 'utf8').matchAll(
      /^\s*(?:readonly )?type: ("[a-z_-]+"(?: \| "[a-z_-]+")*);/gm,
    ))
      for (const k of (m[1] as string).matchAll(/"([a-z_-]+)"/g)) kinds.add(k[1] as string)
  return [...kinds].sort()
}

const words = (k: number, n: number) => `${userTurn(k, n)} 𝔘𝔫𝔦 🧳`
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

/** Each block kind, in the message (or messages: a call with its result) that carries it. */
const units: Record<string, () => BaseMessage[]> = {
  text: () => [new HumanMessage({ content: [{ type: 'text', text: words(1, 60) }] })],
  image_url: () => [
    new HumanMessage({
      content: [
        { type: 'text', text: 'This one?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    }),
  ],
  image: () => [
    new HumanMessage({
      content: [
        { type: 'text', text: 'And this?' },
        { type: 'image', mimeType: 'image/png', data: PNG },
      ],
    }),
  ],
  audio: () => [
    new HumanMessage({
      content: [{ type: 'audio', mimeType: 'audio/wav', url: 'https://example.com/a.wav' }],
    }),
  ],
  video: () => [
    new HumanMessage({
      content: [{ type: 'video', mimeType: 'video/mp4', url: 'https://example.com/v.mp4' }],
    }),
  ],
  file: () => [
    new HumanMessage({
      content: [{ type: 'file', mimeType: 'application/pdf', fileId: 'file-abc.1' }],
    }),
  ],
  'text-plain': () => [
    new HumanMessage({
      content: [{ type: 'text-plain', mimeType: 'text/plain', text: words(2, 60) }],
    }),
  ],
  reasoning: () => [
    new AIMessage({
      content: [
        { type: 'reasoning', reasoning: words(3, 40) },
        { type: 'text', text: 'The seat is 14C.' },
      ],
    }),
  ],
  refusal: () => [
    new AIMessage({ content: [{ type: 'refusal', refusal: 'I cannot share that.' }] }),
  ],
  citation: () => [
    new AIMessage({
      content: [
        {
          type: 'text',
          text: words(4, 30),
          annotations: [{ type: 'citation', url: 'https://example.com', citedText: 'fares' }],
        },
      ],
    }),
  ],
  non_standard: () => [
    new AIMessage({
      content: [
        { type: 'text', text: 'Noted.' },
        { type: 'non_standard', value: { kind: 'vendor', note: words(5, 20) } },
      ],
    }),
  ],
  tool_call: () => [
    new AIMessage({
      content: [{ type: 'tool_call', id: 'call.1', name: 'lookup', args: { query: '𝔘' } }],
      tool_calls: [{ id: 'call.1', name: 'lookup', args: { query: '𝔘' } }],
    }),
    new ToolMessage({ tool_call_id: 'call.1', name: 'lookup', content: words(6, 60) }),
  ],
  tool_call_chunk: () => [
    new AIMessage({
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call_chunk', id: 'call.2', name: 'lookup', args: '{"query":"a"}', index: 0 },
      ],
    }),
  ],
  invalid_tool_call: () => [
    new AIMessage({
      content: [{ type: 'text', text: 'Checking.' }],
      invalid_tool_calls: [
        {
          id: 'call.3',
          name: 'lookup',
          args: '{bad',
          error: 'not JSON',
          type: 'invalid_tool_call',
        },
      ],
    }),
  ],
  server_tool_call: () => [
    new AIMessage({
      content: [
        { type: 'server_tool_call', id: 'srv.1', name: 'web_search', args: { query: 'fares' } },
        {
          type: 'server_tool_call_result',
          toolCallId: 'srv.1',
          status: 'success',
          output: { hits: words(7, 40) },
        },
        { type: 'text', text: 'Found it.' },
      ],
    }),
  ],
  server_tool_call_chunk: () => [
    new AIMessage({
      content: [
        {
          type: 'server_tool_call_chunk',
          id: 'srv.2',
          name: 'web_search',
          args: '{"q":"x"}',
          index: 0,
        },
        { type: 'text', text: 'Searching.' },
      ],
    }),
  ],
}
// Carried inside another case: the result with its call, the data-block source kinds by image/audio/file.
const covered = new Set([...Object.keys(units), 'server_tool_call_result', 'url', 'id'])

/** A history with the unit between an older turn and the newest question. */
function history(unit: BaseMessage[]): BaseMessage[] {
  return [
    new HumanMessage(words(20, 300)),
    new AIMessage('Noted.'),
    ...unit,
    ...(unit.at(-1) instanceof HumanMessage ? [new AIMessage('Looking.')] : []),
    new HumanMessage('And the seat?'),
  ]
}

async function handed(messages: BaseMessage[], budget: number): Promise<BaseMessage[]> {
  const fitting = fitAgentMessages({ counter: exactCounter(), budget, reserve: 0 })
  let out: BaseMessage[] = []
  await fitting.wrapModelCall(
    { messages, systemPrompt: 'Be brief.', tools: [] },
    async (request: { messages: BaseMessage[] }) => {
      out = request.messages
      return new AIMessage('ok')
    },
  )
  return out
}

describe('LangChain content blocks: every kind @langchain/core defines', () => {
  it('the installed version defines no block kind without a case here', () => {
    const kinds = sdkBlockKinds()
    expect(kinds.length).toBeGreaterThanOrEqual(16)
    expect(kinds.filter((k) => !covered.has(k))).toEqual([])
  })

  it.each(Object.entries(units))(
    '%s: passes through as the caller’s own instances when it fits',
    async (_kind, make) => {
      const input = history(make())
      const out = await handed(input, 100_000)
      expect(out.length).toBe(input.length)
      for (const [i, m] of out.entries()) expect(m).toBe(input[i])
    },
  )

  it.each(Object.entries(units))(
    '%s: at every budget, gone only with the whole of its unit',
    async (_kind, make) => {
      const unit = make()
      const input = history(unit)
      let dropped = 0
      let sent = 0
      for (let budget = 10; budget <= 2500; budget += 10) {
        let out: BaseMessage[]
        try {
          out = await handed(input, budget)
        } catch (error) {
          expect((error as Error).name).toBe('ContextOverflowError')
          continue
        }
        sent++
        const present = unit.map((m) => out.includes(m))
        // Whole or not at all: a message with the block is never rebuilt without it.
        expect(new Set(present).size, `budget ${budget}`).toBe(1)
        if (!present[0]) dropped++
        expect(out.at(-1)).toBe(input.at(-1))
      }
      expect(sent).toBeGreaterThan(0)
      expect(dropped).toBeGreaterThan(0)
    },
  )
})

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { decode } from '../../src/advanced.js'
import { main } from '../../src/cli/main.js'
import {
  clearToolResults,
  estimateCounter,
  exactCounter,
  type Format,
  fit,
  InvalidInputError,
  InvalidOptionError,
  toAnthropic,
  toGemini,
} from '../../src/index.js'
import { readAnthropic } from '../../src/providers/anthropic-messages/codec.js'
import { anthropicViolations } from '../oracle/anthropic.js'

const searchResult = {
  type: 'search_result',
  source: 'https://example.com/baggage',
  title: 'Baggage policy',
  content: [{ type: 'text', text: 'Two checked bags are free in business class.' }],
  citations: { enabled: true },
}

describe('valid Anthropic blocks the codec does not model are carried, counted and sent', () => {
  const request = {
    system: 'You are an airline agent.',
    messages: [
      { role: 'user', content: [searchResult, { type: 'text', text: 'How many bags are free?' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'bags' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [searchResult] }],
      },
      { role: 'assistant', content: 'Two.' },
      { role: 'user', content: 'Thanks.' },
    ],
  }

  it('a search_result block in a user turn and in a tool result goes back as it came, and Anthropic accepts the request', () => {
    const r = fit(readAnthropic(request), { provider: 'anthropic', budget: 10_000 })
    const { lost, ...sent } = toAnthropic(r.messages)
    expect(lost).toEqual([])
    expect(sent).toEqual(request)
    expect(anthropicViolations(sent)).toEqual([])
  })

  it('it is counted as the JSON it is sent as', () => {
    const counter = exactCounter()
    const [, user] = readAnthropic(request)
    const blockTokens = o200k(JSON.stringify(searchResult)).length
    expect(counter.countMessage(user as never)).toBeGreaterThanOrEqual(blockTokens)
  })

  it('a transform that clears the result sends what it counted, not the whole block', () => {
    const r = fit(readAnthropic(request), {
      provider: 'anthropic',
      budget: 10_000,
      transforms: [clearToolResults({ keep: 0, trigger: 0 })],
    })
    const sent = toAnthropic(r.messages)
    const result = (sent.messages[2]?.content as { content?: unknown[] }[] | undefined)?.[0]
    expect(JSON.stringify(result)).not.toContain('Two checked bags')
    expect(anthropicViolations(sent)).toEqual([])
  })
})

describe('hosted and server tools beside function tools', () => {
  const fn = {
    type: 'function',
    name: 'lookup',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
  }
  const history = [{ role: 'user' as const, content: 'Find my booking.' }]

  it('a Responses tools list with web_search, file_search and mcp beside a function tool is accepted, each counted at least as its JSON', () => {
    const hosted = [
      { type: 'web_search' },
      { type: 'file_search', vector_store_ids: ['vs_1'] },
      { type: 'mcp', server_label: 'x', server_url: 'https://x' },
    ]
    const counter = exactCounter()
    const r = fit(history, {
      provider: 'openai-responses',
      budget: 5000,
      counter,
      tools: [fn, ...hosted] as never,
    })
    const withoutHosted = fit(history, {
      provider: 'openai-responses',
      budget: 5000,
      counter,
      tools: [fn] as never,
    })
    const hostedJson = hosted.reduce((n, t) => n + o200k(JSON.stringify(t)).length, 0)
    expect(r.tokens.tools - withoutHosted.tokens.tools).toBeGreaterThanOrEqual(hostedJson)
  })

  it("Anthropic's tools add their published overheads (bash 245, text editor 700)", () => {
    const counter = estimateCounter({ model: 'claude-sonnet-4-5' })
    const base = fit(history, { provider: 'anthropic', budget: 50_000, counter, tools: [] }).tokens
      .tools
    const bash = fit(history, {
      provider: 'anthropic',
      budget: 50_000,
      counter,
      tools: [{ type: 'bash_20250124', name: 'bash' }] as never,
    }).tokens.tools
    const editor = fit(history, {
      provider: 'anthropic',
      budget: 50_000,
      counter,
      tools: [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' }] as never,
    }).tokens.tools
    expect(bash - base).toBeGreaterThanOrEqual(245)
    expect(editor - base).toBeGreaterThanOrEqual(700)
    const search = fit(history, {
      provider: 'anthropic',
      budget: 50_000,
      counter,
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] as never,
    })
    expect(search.tokens.tools).toBeGreaterThan(0)
  })

  it("Gemini's built-in tools are accepted beside function declarations", () => {
    const r = fit(history, {
      provider: 'gemini',
      budget: 5000,
      tools: [
        { googleSearch: {} },
        { codeExecution: {} },
        { functionDeclarations: [{ name: 'lookup', parameters: { type: 'OBJECT' } }] },
      ] as never,
    })
    expect(r.tokens.tools).toBeGreaterThan(0)
  })

  it('a schema that contains itself or nests 3,000 deep is an InvalidOptionError naming the tool', () => {
    const cyclic: Record<string, unknown> = { type: 'object' }
    cyclic.properties = { self: cyclic }
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 3000; i++) deep = { type: 'object', properties: { a: deep } }
    for (const parameters of [cyclic, deep]) {
      const call = () =>
        fit(history, {
          budget: 5000,
          tools: [{ type: 'function', function: { name: 'f', parameters } }] as never,
        })
      expect(call).toThrow(InvalidOptionError)
      expect(call).toThrow(/tools\.0\.function\.parameters/)
    }
  })
})

describe('deeply nested input is a typed error naming the message and field, in every codec and the CLI', () => {
  let deep: Record<string, unknown> = { a: 1 }
  for (let i = 0; i < 5000; i++) deep = { a: deep }
  let deepText = '1'
  for (let i = 0; i < 5000; i++) deepText = `{"a":${deepText}}`

  const inputs: [Format, unknown][] = [
    [
      'openai-chat',
      [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: deepText } }],
        },
      ],
    ],
    [
      'anthropic',
      {
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: deep }] },
        ],
      },
    ],
    [
      'openai-responses',
      [
        { role: 'user', content: 'q' },
        { type: 'function_call', call_id: 'c', name: 'f', arguments: deepText },
      ],
    ],
    [
      'gemini',
      {
        contents: [
          { role: 'user', parts: [{ text: 'q' }] },
          { role: 'model', parts: [{ functionCall: { name: 'f', args: deep } }] },
        ],
      },
    ],
    [
      'ai-sdk',
      [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: deep }],
        },
      ],
    ],
  ]
  for (const [format, input] of inputs) {
    it(`${format}: decode, or fit of what it decodes, refuses it with InvalidInputError at message 1`, () => {
      const attempt = () =>
        fit(decode(input, format).messages, { budget: 100_000, provider: 'anthropic' })
      expect(attempt).toThrow(InvalidInputError)
      try {
        attempt()
      } catch (e) {
        expect((e as InvalidInputError).index).toBe(1)
        expect((e as InvalidInputError).field).toBeTruthy()
      }
    })
  }

  it('the CLI says so in one line and exits 2 (not 70)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-deep-'))
    const file = join(dir, 'deep.json')
    // Written by hand: JSON.stringify itself overflows on 5,000 levels.
    let input = '{"a":1}'
    for (let i = 0; i < 5000; i++) input = `{"a":${input}}`
    writeFileSync(
      file,
      `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":${input}}]}]}`,
    )
    const out: string[] = []
    const err: string[] = []
    const code = await main(['fit', file, '--budget', '3000'], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      color: false,
    })
    expect(code).toBe(2)
    expect(err.join('\n').split('\n')).toHaveLength(1)
    expect(err.join('\n')).toMatch(/message 1/)
  })
})

describe('a Gemini step repaired keeps its thought signature', () => {
  it('when the signed first call of a parallel step goes (no response), the first call kept carries the signature', () => {
    const source = {
      contents: [
        { role: 'user', parts: [{ text: 'go' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'a', name: 'f', args: {} }, thoughtSignature: 'c2lnbmVk' },
            { functionCall: { id: 'b', name: 'g', args: {} } },
            { functionCall: { id: 'c', name: 'h', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'b', name: 'g', response: { ok: 1 } } },
            { functionResponse: { id: 'c', name: 'h', response: { ok: 1 } } },
          ],
        },
        { role: 'user', parts: [{ text: 'again' }] },
      ],
    }
    const r = fit(decode(source, 'gemini').messages, { provider: 'gemini', budget: 10_000 })
    const { contents } = toGemini(r.messages)
    const step = contents[1] as {
      parts: { functionCall?: { id: string }; thoughtSignature?: string }[]
    }
    expect(step.parts.map((p) => p.functionCall?.id)).toEqual(['b', 'c'])
    expect(step.parts[0]?.thoughtSignature).toBe('c2lnbmVk')
    expect(step.parts[1]?.thoughtSignature).toBeUndefined()
  })
})

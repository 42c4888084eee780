import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fit } from '../../src/context/fit.js'
import { decode, encode as encodeWire, type Format } from '../../src/formats/detect.js'
import { exactCounter } from '../../src/tokens/counters.js'
import { clearToolResults } from '../../src/transforms/clear-tool-results.js'
import { truncateMessages } from '../../src/transforms/truncate-messages.js'
import { RUNS, SEED } from '../properties/generators.js'
import { wireTokens } from './wire-count.js'

/**
 * Counted is what is sent: the request body a codec writes, its texts counted apart from the
 * library (o200k on every string value but ids, types, roles and statuses), never exceeds
 * what the fit said it sends. Each case carries what a codec keeps whole (Responses hosted
 * items and their outputs, Anthropic server tool blocks, Gemini code execution parts), at a
 * size the budget cannot hold, with transforms that shorten what they may.
 */
const big = (words: number, seed: string) =>
  Array.from({ length: words }, (_, k) => `${seed}${k % 97} result line ${k}`).join(' ')

function cases(size: number): [Format, unknown][] {
  return [
    [
      'openai-responses',
      [
        { role: 'user', content: 'Find the baggage policy and show my screen.' },
        {
          type: 'web_search_call',
          id: 'ws_1',
          status: 'completed',
          action: { type: 'search', query: 'baggage policy' },
        },
        {
          type: 'file_search_call',
          id: 'fs_1',
          status: 'completed',
          queries: ['baggage'],
          results: [{ file_id: 'f1', filename: 'policy.md', score: 0.9, text: big(size, 'bag') }],
        },
        {
          type: 'computer_call',
          id: 'cu_1',
          call_id: 'c1',
          status: 'completed',
          action: { type: 'screenshot' },
          pending_safety_checks: [],
        },
        {
          type: 'computer_call_output',
          call_id: 'c1',
          output: {
            type: 'computer_screenshot',
            image_url: `data:image/png;base64,${'A'.repeat(size)}`,
          },
        },
        {
          type: 'local_shell_call',
          id: 'sh_1',
          call_id: 'c2',
          status: 'completed',
          action: { type: 'exec', command: ['cat', 'policy.md'], env: {} },
        },
        { type: 'local_shell_call_output', call_id: 'c2', output: big(size, 'out') },
        { role: 'user', content: 'Thanks. Summarize.' },
      ],
    ],
    [
      'anthropic',
      {
        system: 'You are an airline agent.',
        messages: [
          { role: 'user', content: 'Search the baggage policy.' },
          {
            role: 'assistant',
            content: [
              {
                type: 'server_tool_use',
                id: 'srvtoolu_1',
                name: 'web_search',
                input: { query: 'baggage policy' },
              },
              {
                type: 'web_search_tool_result',
                tool_use_id: 'srvtoolu_1',
                content: [
                  {
                    type: 'web_search_result',
                    url: 'https://example.com',
                    title: 'Policy',
                    encrypted_content: 'E'.repeat(40),
                    page_age: big(size, 'age'),
                  },
                ],
              },
              { type: 'text', text: 'Two bags are free.' },
            ],
          },
          { role: 'user', content: 'Thanks.' },
        ],
      },
    ],
    [
      'gemini',
      {
        contents: [
          { role: 'user', parts: [{ text: 'Compute the fare.' }] },
          {
            role: 'model',
            parts: [
              { executableCode: { language: 'PYTHON', code: `print(${big(size, 'x')})` } },
              { codeExecutionResult: { outcome: 'OUTCOME_OK', output: big(size, 'fare') } },
              { text: 'The fare is 329.' },
            ],
          },
          { role: 'user', parts: [{ text: 'Thanks.' }] },
        ],
      },
    ],
  ]
}

describe('counted is what is sent', () => {
  it(`every provider's request, transforms applied, sends at most what was counted (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 50, max: 1500 }),
        fc.integer({ min: 400, max: 20_000 }),
        fc.constantFrom('none', 'truncate', 'clear', 'both'),
        (size, budget, transforms) => {
          for (const [format, source] of cases(size)) {
            const provider =
              format === 'anthropic'
                ? 'anthropic'
                : format === 'gemini'
                  ? 'gemini'
                  : 'openai-responses'
            const list = [
              ...(transforms === 'truncate' || transforms === 'both'
                ? [truncateMessages({ maxTokensPerMessage: 60 })]
                : []),
              ...(transforms === 'clear' || transforms === 'both'
                ? [clearToolResults({ keep: 0, trigger: 0 })]
                : []),
            ]
            let r: ReturnType<typeof fit>
            try {
              r = fit(decode(source, format).messages, {
                provider,
                budget,
                counter: exactCounter(),
                transforms: list,
              })
            } catch {
              continue // a typed overflow: nothing is sent
            }
            const { output } = encodeWire(r.messages, format)
            expect(wireTokens(output)).toBeLessThanOrEqual(r.tokens.total)
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })
})

import { describe, expect, it } from 'vitest'
import { userTurn } from '../../test/helpers/turns.js'
import type { TokenCounter } from '../tokens/counter.js'
import { exactCounter } from '../tokens/counters.js'
import { fitEachStep, fitMiddleware } from './ai-sdk.js'

/**
 * Every content part the AI SDK v6 provider prompt defines (`LanguageModelV3Prompt`: text,
 * file, reasoning, tool-call, tool-result, provider-executed calls and results, and the tool
 * message's `tool-approval-response`), and the `tool-approval-request` a `ModelMessage` holds,
 * through `fitMiddleware`: unchanged, as the caller's own objects, unless the fit drops the
 * whole unit they belong to.
 */

const model = { provider: 'openai.responses', modelId: 'gpt-4o', doGenerate: async () => ({}) }

async function fitted(prompt: unknown[], extra: { budget?: number } = {}) {
  const mw = fitMiddleware({ model: 'gpt-4o', ...extra })
  const out = await mw.transformParams({ params: { prompt, maxOutputTokens: 200 }, model })
  return out.prompt as unknown[]
}

const system = { role: 'system', content: 'You are a helpful agent.' }
const user = (k: number, words = 20) => ({
  role: 'user',
  content: [{ type: 'text', text: userTurn(k, words) }],
})

/** An MCP call the provider runs once approved: its call, then the approval alone. */
const mcpCall = (id: string) => ({
  role: 'assistant',
  content: [
    {
      type: 'tool-call',
      toolCallId: id,
      toolName: 'mcp.delete_file',
      input: { path: '/tmp/a' },
      providerExecuted: true,
    },
  ],
})
const approval = (id: string, approved = true) => ({
  role: 'tool',
  content: [{ type: 'tool-approval-response', approvalId: `ap-${id}`, approved, reason: 'ok' }],
})

const cases: [string, unknown[]][] = [
  ['tool-approval-response answering a provider-run call', [mcpCall('m1'), approval('m1')]],
  [
    'tool-approval-response beside a tool-result',
    [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'rm', input: { p: 'a' } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'ap-c1', approved: false },
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'rm',
            output: { type: 'execution-denied', reason: 'no' },
          },
        ],
      },
    ],
  ],
  [
    'tool-approval-request beside its call',
    [
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c2', toolName: 'rm', input: { p: 'b' } },
          { type: 'tool-approval-request', approvalId: 'ap-c2', toolCallId: 'c2' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'ap-c2', approved: true },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'rm',
            output: { type: 'text', value: 'removed' },
          },
        ],
      },
    ],
  ],
  [
    'provider-executed tool-call and tool-result',
    [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Searching.' },
          {
            type: 'tool-call',
            toolCallId: 'ws1',
            toolName: 'web_search',
            input: { query: 'fares' },
            providerExecuted: true,
          },
          {
            type: 'tool-result',
            toolCallId: 'ws1',
            toolName: 'web_search',
            output: { type: 'json', value: { results: [{ url: 'https://example.com' }] } },
          },
          { type: 'text', text: 'Found some.' },
        ],
      },
    ],
  ],
  [
    'reasoning, file and text with provider options',
    [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in it?', providerOptions: { openai: { x: 1 } } },
          { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0xLjQK', filename: 'a.pdf' },
        ],
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: 'Reading the file.',
            providerOptions: { openai: { id: 'r' } },
          },
          { type: 'text', text: 'A letter.' },
        ],
      },
    ],
  ],
]

describe('fitMiddleware passes every AI SDK part through', () => {
  it.each(cases)('%s, when everything fits', async (_name, turn) => {
    const prompt = [system, user(0), ...turn, user(1)]
    const out = await fitted(prompt)
    expect(out).toEqual(prompt)
    for (const [i, m] of out.entries()) expect(m).toBe(prompt[i])
  })

  it.each(cases)('%s, at the end of the prompt', async (_name, turn) => {
    const prompt = [system, user(0), ...turn]
    const out = await fitted(prompt)
    expect(out).toEqual(prompt)
  })

  it.each(cases)('%s, gone with its whole unit', async (_name, turn) => {
    const prompt = [system, user(0, 600), ...turn, user(1, 600), user(2, 40)]
    const out = await fitted(prompt, { budget: 900 })
    const text = JSON.stringify(out)
    // The old turn went, and nothing of it stays behind: no approval without its call.
    expect(text).not.toContain(userTurn(0, 600).slice(0, 60))
    for (const m of turn) expect(out).not.toContain(m)
    expect(text).not.toContain('tool-approval')
  })
})

describe('fitEachStep passes approvals through', () => {
  // A ModelMessage history: the call, its approval request, the response, then the result.
  const approved = [
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'c3', toolName: 'rm', input: { p: 'c' } },
        { type: 'tool-approval-request', approvalId: 'ap-c3', toolCallId: 'c3' },
      ],
    },
    {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: 'ap-c3', approved: true }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c3',
          toolName: 'rm',
          output: { type: 'text', value: 'ok' },
        },
      ],
    },
  ]

  it.each([...cases, ['approval request, response and result', approved] as [string, unknown[]]])(
    '%s',
    (_name, turn) => {
      const messages = [user(0), ...turn, user(1)]
      const out = fitEachStep({ model: 'gpt-4o' })({ messages })
      expect(out.messages).toEqual(messages)
      for (const [i, m] of out.messages.entries()) expect(m).toBe(messages[i])
    },
  )

  it('an approval goes with its dropped call', () => {
    const messages = [user(0, 600), ...approved, user(1, 600), user(2, 40)]
    const out = fitEachStep({ model: 'gpt-4o', budget: 900 })({ messages })
    expect(JSON.stringify(out.messages)).not.toContain('ap-c3')
  })
})

describe('fitMiddleware retries from the caller prompt', () => {
  it('a rejected call is fitted again from its own prompt, not from the fitted one', async () => {
    const prompt = [
      system,
      // Facts in every turn: the turns left out are quoted in a ledger the fit writes.
      ...Array.from({ length: 8 }, (_, k) => [
        {
          role: 'user',
          content: [
            {
              type: 'text',
              text: `Booking code BK${k}Q${k}Z, fare $${100 + k}.25 on 2025-05-1${k}. ${userTurn(k, 200)}`,
            },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: `Reply ${k}.` }] },
      ]).flat(),
      user(9, 30),
    ]
    const mw = fitMiddleware({ model: 'gpt-4o', budget: 1800, ledger: true })
    const sent: unknown[][] = []
    const doGenerate = async (params: { prompt: unknown[] }) => {
      sent.push(params.prompt)
      if (sent.length === 1)
        throw new Error(
          "This model's maximum context length is 1200 tokens. However, your messages resulted in 1500 tokens.",
        )
      // No usage: it would calibrate the fresh fit below.
      return {}
    }
    const m = { ...model, provider: 'openai.chat', doGenerate }
    const params = await mw.transformParams({ params: { prompt, maxOutputTokens: 200 }, model: m })
    await mw.wrapGenerate({ doGenerate: () => doGenerate(params), params, model: m as never })
    expect(sent.length).toBe(2)
    // What a fresh fit of the caller's prompt gives, with what the rejection taught.
    const fresh = await mw.transformParams({ params: { prompt, maxOutputTokens: 200 }, model: m })
    expect(sent[1]).toEqual(fresh.prompt)
    expect(sent[1]?.length).toBeLessThan(sent[0]?.length as number)
    expect(JSON.stringify(sent[0])).toContain('Earlier messages were left out')
    expect(JSON.stringify(sent[1])).toContain('BK0Q0Z')
  })
})

describe('fitEachStep after an approval response', () => {
  it('a step reads only its new messages: the stripped approval message is the same object every step', () => {
    const inner = exactCounter()
    const seen = new Set<object>()
    let fresh = 0
    const counter: TokenCounter = Object.assign(Object.create(inner) as TokenCounter, {
      countMessage(m: Parameters<TokenCounter['countMessage']>[0]) {
        if (!seen.has(m)) fresh++
        seen.add(m)
        return inner.countMessage(m)
      },
    })
    const prepareStep = fitEachStep({ model: 'gpt-4o', counter, budget: 100_000, reserve: 0 })
    const messages: unknown[] = [user(0), mcpCall('m1'), approval('m1')]
    const perStep: number[] = []
    for (let k = 1; k <= 30; k++) {
      messages.push(user(k, 5), { role: 'assistant', content: [{ type: 'text', text: `ok ${k}` }] })
      fresh = 0
      const out = prepareStep({ messages: [...messages], steps: [] }).messages as unknown[]
      perStep.push(fresh)
      // The approval still rides with its call, unchanged.
      expect(out.filter((m) => m === messages[2])).toHaveLength(1)
    }
    // After the first step, each step counts its two new messages and nothing before them.
    expect(perStep.slice(1).every((n) => n <= 2)).toBe(true)
  })
})

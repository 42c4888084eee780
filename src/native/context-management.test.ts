import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tauBench } from '../../test/tau-bench.js'
import { fit } from '../context/fit.js'
import { InvalidInputError, InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { renderReport } from '../report/html.js'
import {
  type ContextPolicy,
  contextManagement,
  readContextManagement,
  withContextManagement,
} from './context-management.js'

// ---- The providers' published request shapes, written here apart from the library ----
// Anthropic Messages API (beta): context_management.edits; OpenAI Responses: context_management.

type Problems = string[]
const count = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0
const tokens = (v: unknown, kinds: string[]) =>
  !!v &&
  typeof v === 'object' &&
  Object.keys(v).sort().join() === 'type,value' &&
  kinds.includes((v as { type: string }).type) &&
  count((v as { value: unknown }).value)

function anthropicEditProblems(
  body: Record<string, unknown>,
  headers: IncomingHttpHeaders,
): Problems {
  const p: Problems = []
  const cm = body.context_management as { edits?: unknown } | undefined
  if (
    !cm ||
    typeof cm !== 'object' ||
    Object.keys(cm).join() !== 'edits' ||
    !Array.isArray(cm.edits)
  )
    return ['context_management must be { edits: [...] }']
  const betas = String(headers['anthropic-beta'] ?? '').split(',')
  const allowed: Record<string, string[]> = {
    clear_tool_uses_20250919: [
      'type',
      'trigger',
      'keep',
      'clear_at_least',
      'exclude_tools',
      'clear_tool_inputs',
    ],
    clear_thinking_20251015: ['type', 'keep'],
    compact_20260112: ['type', 'trigger', 'instructions', 'pause_after_compaction'],
  }
  cm.edits.forEach((e: Record<string, unknown>, k: number) => {
    const keys = allowed[String(e.type)]
    if (!keys) {
      p.push(`edit ${k}: unknown type ${e.type}`)
      return
    }
    for (const key of Object.keys(e))
      if (!keys.includes(key)) p.push(`edit ${k}: unknown field ${key}`)
    if (e.type === 'clear_tool_uses_20250919') {
      if (!betas.includes('context-management-2025-06-27'))
        p.push('missing context-management beta')
      if (e.trigger !== undefined && !tokens(e.trigger, ['input_tokens', 'tool_uses']))
        p.push('bad trigger')
      if (e.keep !== undefined && !tokens(e.keep, ['tool_uses'])) p.push('bad keep')
      if (e.clear_at_least !== undefined && !tokens(e.clear_at_least, ['input_tokens']))
        p.push('bad clear_at_least')
      if (
        e.exclude_tools !== undefined &&
        !(Array.isArray(e.exclude_tools) && e.exclude_tools.every((x) => typeof x === 'string'))
      )
        p.push('bad exclude_tools')
      const inputs = e.clear_tool_inputs
      if (
        inputs !== undefined &&
        typeof inputs !== 'boolean' &&
        !(Array.isArray(inputs) && inputs.every((x) => typeof x === 'string'))
      )
        p.push('bad clear_tool_inputs')
    }
    if (e.type === 'clear_thinking_20251015') {
      if (!betas.includes('context-management-2025-06-27'))
        p.push('missing context-management beta')
      if (k !== 0) p.push('clear_thinking must come first')
      const keep = e.keep
      if (
        keep !== undefined &&
        keep !== 'all' &&
        !tokens(keep, ['thinking_turns']) &&
        JSON.stringify(keep) !== '{"type":"all"}'
      )
        p.push('bad thinking keep')
    }
    if (e.type === 'compact_20260112') {
      if (!betas.includes('compact-2026-01-12')) p.push('missing compact beta')
      if (e.trigger !== undefined && !tokens(e.trigger, ['input_tokens']))
        p.push('bad compact trigger')
      if (e.instructions !== undefined && typeof e.instructions !== 'string')
        p.push('bad instructions')
      if (e.pause_after_compaction !== undefined && typeof e.pause_after_compaction !== 'boolean')
        p.push('bad pause_after_compaction')
    }
  })
  return p
}

function openAIProblems(body: Record<string, unknown>): Problems {
  const cm = body.context_management
  if (!Array.isArray(cm)) return ['context_management must be a list']
  const p: Problems = []
  cm.forEach((e: Record<string, unknown>, k: number) => {
    if (e.type !== 'compaction') p.push(`entry ${k}: type must be compaction`)
    for (const key of Object.keys(e))
      if (!['type', 'compact_threshold'].includes(key)) p.push(`entry ${k}: unknown ${key}`)
    if (e.compact_threshold !== undefined && !count(e.compact_threshold))
      p.push('bad compact_threshold')
  })
  return p
}

// ---- A loopback server that answers like each provider, refusing a request of the wrong shape ----

interface Seen {
  path: string
  headers: IncomingHttpHeaders
  body: Record<string, unknown>
}
let server: Server
let base = ''
const seen: Seen[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = ''
    req.on('data', (c) => {
      data += c
    })
    req.on('end', () => {
      const body = JSON.parse(data) as Record<string, unknown>
      seen.push({ path: req.url ?? '', headers: req.headers, body })
      const json = (status: number, v: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v))
      if (req.url?.startsWith('/v1/messages')) {
        const problems = anthropicEditProblems(body, req.headers)
        if (problems.length)
          return json(400, {
            type: 'error',
            error: { type: 'invalid_request_error', message: problems.join('; ') },
          })
        return json(200, {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: String(body.model),
          content: [
            {
              type: 'compaction',
              content: 'Summary: user omar_davis_3817 changed JG7FMM.',
              encrypted_content: null,
            },
            { type: 'text', text: 'Done.' },
          ],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 2 },
          context_management: {
            applied_edits: [
              {
                type: 'clear_thinking_20251015',
                cleared_thinking_turns: 2,
                cleared_input_tokens: 900,
              },
              {
                type: 'clear_tool_uses_20250919',
                cleared_tool_uses: 5,
                cleared_input_tokens: 4200,
              },
            ],
          },
        })
      }
      if (req.url?.startsWith('/v1/responses')) {
        const problems = openAIProblems(body)
        if (problems.length)
          return json(400, {
            error: { message: problems.join('; '), type: 'invalid_request_error' },
          })
        return json(200, {
          id: 'resp_1',
          object: 'response',
          created_at: 1,
          status: 'completed',
          model: String(body.model),
          output: [
            { id: 'cmp_1', type: 'compaction', encrypted_content: 'gAAAA-opaque' },
            {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
            },
          ],
          usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
        })
      }
      json(404, { error: { message: 'not found' } })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((r) => server.close(() => r()))
})

const policy: ContextPolicy = {
  clearToolResults: {
    trigger: 30_000,
    keep: 4,
    clearAtLeast: 5_000,
    excludeTools: ['memory'],
    clearInputs: ['search'],
  },
  clearThinking: { keep: { type: 'thinking_turns', value: 2 } },
  compact: { trigger: 120_000, instructions: 'Keep every reservation id.' },
}

const history: Message[] = fromOpenAIChat((tauBench()[0] as { traj: unknown }).traj)

describe('one policy, run by the provider where it can', () => {
  it('Anthropic: context_management.edits with both betas, accepted by a server checking the published shape; applied_edits and the compaction read back into the result and the report', async () => {
    const plan = contextManagement(policy, { target: 'anthropic' })
    expect(plan.where).toEqual({
      clearThinking: 'provider',
      clearToolResults: 'provider',
      compact: 'provider',
    })
    expect(plan.transforms).toEqual([])
    expect(plan.strategy).toBeUndefined()
    const client = new Anthropic({ apiKey: 'test', baseURL: base, maxRetries: 0 })
    const response = await client.beta.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
      betas: plan.betas,
      ...(plan.body as { context_management: Anthropic.Beta.BetaContextManagementConfig }),
    })
    const request = seen.at(-1) as Seen
    expect(request.path).toMatch(/^\/v1\/messages/)
    expect(request.body.context_management).toEqual({
      edits: [
        { type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 2 } },
        {
          type: 'clear_tool_uses_20250919',
          trigger: { type: 'input_tokens', value: 30_000 },
          keep: { type: 'tool_uses', value: 4 },
          clear_at_least: { type: 'input_tokens', value: 5_000 },
          exclude_tools: ['memory'],
          clear_tool_inputs: ['search'],
        },
        {
          type: 'compact_20260112',
          trigger: { type: 'input_tokens', value: 120_000 },
          instructions: 'Keep every reservation id.',
        },
      ],
    })
    const report = readContextManagement(response)
    expect(report).toEqual({
      provider: 'anthropic',
      applied: [
        { type: 'clear_thinking_20251015', clearedThinkingTurns: 2, clearedInputTokens: 900 },
        { type: 'clear_tool_uses_20250919', clearedToolUses: 5, clearedInputTokens: 4200 },
      ],
      compactions: [{ summary: 'Summary: user omar_davis_3817 changed JG7FMM.', encrypted: false }],
    })
    const result = withContextManagement(fit(history, { budget: 200_000 }), plan, response)
    expect(result.contextManagement?.provider?.applied).toHaveLength(2)
    const html = renderReport(history, result, { strategy: result.strategy, budget: 200_000 })
    expect(html).toMatch(/clear_tool_uses_20250919.*5 tool uses.*4200 tokens/)
    expect(html).toMatch(/compaction.*omar_davis_3817/)
  })

  it('OpenAI Responses: compaction by the server, clearing on the client; the compaction item read back', async () => {
    const plan = contextManagement(policy, { target: 'openai-responses' })
    expect(plan.where).toEqual({
      clearThinking: 'client',
      clearToolResults: 'client',
      compact: 'provider',
    })
    expect(plan.transforms.map((t) => t.name)).toEqual(['clearThinking', 'clearToolResults'])
    expect(plan.betas).toEqual([])
    const client = new OpenAI({ apiKey: 'test', baseURL: `${base}/v1`, maxRetries: 0 })
    const response = await client.responses.create({
      model: 'gpt-5',
      input: 'hi',
      ...(plan.body as {
        context_management: OpenAI.Responses.ResponseCreateParams['context_management']
      }),
    })
    const request = seen.at(-1) as Seen
    expect(request.path).toBe('/v1/responses')
    expect(request.body.context_management).toEqual([
      { type: 'compaction', compact_threshold: 120_000 },
    ])
    expect(readContextManagement(response)).toEqual({
      provider: 'openai',
      applied: [],
      compactions: [{ id: 'cmp_1', encrypted: true }],
    })
  })

  it('OpenAI chat completions, Gemini, or native: false: everything on the client, and the same edits as transforms', () => {
    for (const target of ['openai-chat', 'gemini', 'client'] as const) {
      const plan = contextManagement(policy, { target })
      expect(plan.body).toEqual({})
      expect(plan.where).toEqual({
        clearThinking: 'client',
        clearToolResults: 'client',
        compact: 'client',
      })
      expect(plan.strategy?.name).toBe('summarizing')
    }
    const off = contextManagement(policy, { target: 'anthropic', native: false })
    expect(off.body).toEqual({})
    expect(off.headers).toEqual({})
    const r = fit(history, { strategy: 'unbounded', transforms: off.transforms })
    expect(r.messages.length).toBe(history.length)
  })

  it('a server checking the shape refuses what the oracle refuses (the oracle can fail)', async () => {
    const client = new Anthropic({ apiKey: 'test', baseURL: base, maxRetries: 0 })
    await expect(
      client.beta.messages.create({
        model: 'm',
        max_tokens: 8,
        messages: [{ role: 'user', content: 'hi' }],
        betas: ['compact-2026-01-12'],
        context_management: {
          edits: [{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: 1 } }],
        },
      }),
    ).rejects.toThrow(/missing context-management beta/)
  })

  it('bad policies and malformed provider responses get typed errors naming the field', () => {
    expect(() =>
      contextManagement({ clearToolResults: { keep: -1 } }, { target: 'anthropic' }),
    ).toThrow(InvalidOptionError)
    expect(() => contextManagement({ compact: { trigger: 0 } }, { target: 'anthropic' })).toThrow(
      /compact.trigger/,
    )
    expect(() => contextManagement({}, { target: 'bedrock' as never })).toThrow(InvalidOptionError)
    // Passed into the request as it is: only a boolean, whether the API or the client compacts.
    for (const target of ['anthropic', 'openai-chat'] as const)
      for (const bad of ['yes', 1, null])
        expect(() =>
          contextManagement(
            { compact: { trigger: 50_000, pauseAfterCompaction: bad as never } },
            { target },
          ),
        ).toThrow(/compact.pauseAfterCompaction: expected true or false/)
    expect(
      contextManagement(
        { compact: { trigger: 50_000, pauseAfterCompaction: true } },
        { target: 'anthropic' },
      ).body,
    ).toMatchObject({ context_management: { edits: [{ pause_after_compaction: true }] } })
    expect(() =>
      readContextManagement({
        context_management: { applied_edits: [{ type: 'x', cleared_input_tokens: -3 }] },
      }),
    ).toThrow(/applied_edits\.0\.cleared_input_tokens/)
    expect(() => readContextManagement({ output: [{ type: 'compaction' }] })).toThrow(
      InvalidInputError,
    )
    expect(() => readContextManagement('nope')).toThrow(InvalidInputError)
    expect(readContextManagement({ content: [{ type: 'text', text: 'hi' }] })).toEqual({
      provider: 'anthropic',
      applied: [],
      compactions: [],
    })
  })
})

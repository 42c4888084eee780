import { describe, expect, it } from 'vitest'
import { agentBudget, agentCases } from '../scripts/eval-agent.js'
import { fit } from '../src/context/fit.js'
import { fromOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { errorsOf, validate } from '../src/providers/validate.js'
import { exactCounter } from '../src/tokens/counters.js'
import { tau2Claude, tau2ClaudeFile, tau2ToChat } from './tau2-claude.js'

type Chat = Record<string, unknown>
type Call = { id: string; type: string; function: { name: string; arguments: string } }

/** Problems of an OpenAI chat history: a call without its results right after it, a result without its call. */
function pairing(traj: readonly Chat[]): string[] {
  const problems: string[] = []
  let waiting = new Set<string>()
  traj.forEach((m, k) => {
    if (m.role === 'tool') {
      const id = m.tool_call_id as string
      if (!waiting.delete(id)) problems.push(`${k}: result of ${id} without its call`)
      return
    }
    if (waiting.size > 0) problems.push(`${k}: calls ${[...waiting].join(', ')} unanswered`)
    waiting = new Set(((m.tool_calls as Call[] | undefined) ?? []).map((c) => c.id))
  })
  if (waiting.size > 0) problems.push(`end: calls ${[...waiting].join(', ')} unanswered`)
  return problems
}

describe('τ²-bench Claude airline conversations as OpenAI chat trajectories', () => {
  const counter = exactCounter()

  it('one trajectory per simulation, every call and result kept and paired', () => {
    const source = tau2ClaudeFile()
    const records = tau2Claude()
    expect(records).toHaveLength(source.simulations.length)
    expect(records).toHaveLength(25)
    records.forEach((r, k) => {
      const sim = source.simulations[k]
      expect(r.task_id).toBe(Number(sim?.task_id))
      expect(r.traj[0]).toEqual({ role: 'system', content: source.info.environment_info.policy })
      expect(pairing(r.traj), `simulation ${k}`).toEqual([])
      const calls = r.traj.flatMap((m) => (m.tool_calls as Call[] | undefined) ?? [])
      const sourceCalls = (sim?.messages ?? []).flatMap((m) => m.tool_calls ?? [])
      expect(calls.map((c) => c.id)).toEqual(sourceCalls.map((c) => c.id))
      for (const [j, c] of calls.entries()) {
        expect(c.type).toBe('function')
        expect(c.function.name).toBe(sourceCalls[j]?.name)
        expect(JSON.parse(c.function.arguments)).toEqual(sourceCalls[j]?.arguments)
      }
      const results = (sim?.messages ?? []).filter((m) => m.role === 'tool')
      expect(r.traj.filter((m) => m.role === 'tool')).toHaveLength(results.length)
    })
    expect(records.reduce((n, r) => n + r.traj.filter((m) => m.tool_calls).length, 0)).toBe(
      source.simulations.reduce(
        (n, s) => n + s.messages.filter((m) => m.tool_calls?.length).length,
        0,
      ),
    )
  })

  it('each decodes, and fitted to a quarter of its history it is still a valid request', () => {
    for (const [k, r] of tau2Claude().entries()) {
      const messages = fromOpenAIChat(r.traj)
      expect(errorsOf(validate(messages)), `simulation ${k}`).toEqual([])
      const budget = agentBudget(messages, 0.25, counter)
      const result = fit(messages, { budget, counter })
      expect(result.tokens.total).toBeLessThanOrEqual(budget)
      expect(errorsOf(validate(result.messages)), `simulation ${k}`).toEqual([])
    }
    expect(agentCases(tau2Claude()).length).toBeGreaterThan(20)
  })

  it('null and empty content, results without a call and calls without a result', () => {
    const traj = tau2ToChat('Policy.', [
      { role: 'assistant', content: 'Hi! How can I help?', tool_calls: null },
      { role: 'user', content: '' },
      { role: 'user', content: 'I am mia_li_3668.', tool_calls: null },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', name: 'get_user_details', arguments: { user_id: 'mia_li_3668' } },
          { id: 'b', name: 'think', arguments: '{"thought":"x"}' },
          { id: 'c', name: 'list_all_airports', arguments: null },
        ],
      },
      { role: 'tool', id: 'a', content: null },
      { role: 'tool', id: 'zzz', content: 'orphan' },
      { role: 'tool', id: 'b', content: 'ok' },
      { role: 'assistant', content: '', tool_calls: [] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'd', name: 'x', arguments: {} }] },
      { role: 'user', content: 'Bye.' },
    ])
    expect(traj).toEqual([
      { role: 'system', content: 'Policy.' },
      { role: 'assistant', content: 'Hi! How can I help?' },
      { role: 'user', content: 'I am mia_li_3668.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'a',
            type: 'function',
            function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668"}' },
          },
          { id: 'b', type: 'function', function: { name: 'think', arguments: '{"thought":"x"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: '' },
      { role: 'tool', tool_call_id: 'b', content: 'ok' },
      { role: 'user', content: 'Bye.' },
    ])
    expect(errorsOf(validate(fromOpenAIChat(traj)))).toEqual([])
  })
})

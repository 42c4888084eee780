import { describe, expect, it } from 'vitest'
import {
  agentBudget,
  agentCases,
  callIdentifiers,
  foldOf,
  hits,
  leaveOneOut,
} from '../scripts/eval-agent.js'
import { readOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { exactCounter } from '../src/tokens/counters.js'
import { tauBench } from './tau-bench.js'

const counter = exactCounter()

describe('agent evaluation: identifiers the next tool call needs from older turns', () => {
  it('reads ids, codes, dates and airports from call arguments, not words', () => {
    expect(
      callIdentifiers(
        JSON.stringify({
          user_id: 'sofia_kim_7287',
          reservation_id: 'OI5L9G',
          flights: [{ flight_number: 'HAT084', date: '2024-05-27' }],
          origin: 'DEN',
          cabin: 'economy',
        }),
      ).sort(),
    ).toEqual(['2024-05-27', 'DEN', 'HAT084', 'OI5L9G', 'sofia_kim_7287'])
    expect(callIdentifiers('{not json')).toEqual([])
    expect(
      callIdentifiers('{"__proto__": {"x": "HAT001"}, "constructor": "ZZZ999"}').sort(),
    ).toEqual(['HAT001', 'ZZZ999'])
  })

  it('a case needs an id seen before the newest user message, not in the system prompt, not since', () => {
    const traj = [
      { role: 'system', content: 'Policy. Airports: JFK.' },
      { role: 'user', content: 'I am mia_li_3668.' },
      { role: 'assistant', content: 'Which reservation?' },
      { role: 'user', content: 'The one from yesterday.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: {
              name: 'get_user_details',
              arguments: '{"user_id":"mia_li_3668","airport":"JFK"}',
            },
          },
        ],
      },
    ]
    const cases = agentCases([{ task_id: 1, traj }])
    expect(cases).toHaveLength(1)
    expect(cases[0]?.ids).toEqual(['mia_li_3668'])
    expect(cases[0]?.history).toHaveLength(4)
    // Said again since the newest user message: not a case.
    const again = structuredClone(traj)
    ;(again[3] as { content: string }).content = 'Still mia_li_3668.'
    expect(agentCases([{ task_id: 1, traj: again }])).toHaveLength(0)
    const h = readOpenAIChat(traj).slice(0, 4)
    const rest = h.slice(1).reduce((n, m) => n + counter.countMessage(m), 0)
    expect(agentBudget(h, 0.1, counter)).toBe(
      Math.round(counter.countMessage(h[0] as never) + 0.1 * rest + 400),
    )
  })

  it('on 40 in-repo trajectories the default with the ledger keeps more of them than the old default', () => {
    const records = tauBench().slice(0, 40)
    const cases = agentCases(records)
    expect(cases.length).toBeGreaterThan(30)
    for (const fraction of [0.1, 0.25]) {
      const share = (xs: boolean[]) => xs.filter(Boolean).length / xs.length
      const before = share(hits(cases, fraction, () => undefined, counter, { ledger: false }).hit)
      const now = share(hits(cases, fraction, () => undefined, counter).hit)
      expect(now, `at ${fraction}`).toBeGreaterThan(before + 0.15)
    }
    // Leave-one-out scores each fold with a share chosen on the others, from the grid.
    const loo = leaveOneOut(cases, 0.1, foldOf(records, 4), 4, counter)
    expect(loo.chosen).toHaveLength(4)
    expect(loo.recall).toBeGreaterThan(0)
    expect(loo.ledgerTokens).toBeGreaterThan(0)
  })
})

import { describe, expect, it } from 'vitest'
import {
  alwaysSent,
  evaluateTau,
  identifiers,
  TAU_STRATEGIES,
  toolCallCases,
} from '../scripts/eval-tau.js'
import { tauBench } from './tau-bench.js'

describe('τ-bench identifier evaluation', () => {
  it('reads user, reservation, flight and payment ids from call arguments, nothing else', () => {
    expect(
      identifiers(
        JSON.stringify({
          user_id: 'sofia_kim_7287',
          reservation_id: 'OI5L9G',
          flights: [{ flight_number: 'HAT084', date: '2024-05-27' }],
          payment_id: 'credit_card_7815826',
          origin: 'DEN',
          cabin: 'economy',
          nested: { again: 'AQLBTL' },
        }),
      ).sort(),
    ).toEqual(['AQLBTL', 'HAT084', 'OI5L9G', 'credit_card_7815826', 'sofia_kim_7287'])
    expect(identifiers('{not json')).toEqual([])
    expect(identifiers('"HAT084"')).toEqual(['HAT084'])
    expect(identifiers('{"__proto__": {"x": "HAT001"}}')).toEqual(['HAT001'])
  })

  it('makes one case per call whose ids appear earlier, and knows which are in what is always sent', () => {
    const record = {
      task_id: 7,
      traj: [
        { role: 'system', content: 'Policy.' },
        { role: 'user', content: 'My id is mia_li_3668.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'get_user_details', arguments: '{"user_id":"mia_li_3668"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"reservations": ["NO6JO3"]}' },
        { role: 'assistant', content: 'Which reservation?' },
        { role: 'user', content: 'The only one.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c2',
              type: 'function',
              function: {
                name: 'get_reservation_details',
                arguments: '{"reservation_id":"NO6JO3","user_id":"zed_q_1"}',
              },
            },
          ],
        },
      ],
    }
    const cases = toolCallCases([record])
    expect(cases.map((c) => [c.history.length, c.ids, c.inNewest])).toEqual([
      [2, ['mia_li_3668'], true],
      // zed_q_1 appears nowhere before: no selection could keep it, so it is not asked for.
      [6, ['NO6JO3'], false],
    ])
    expect(alwaysSent(cases[1]?.history ?? [])).toEqual([0, 5])
  })

  it('on real trajectories, the default relevance keeps the next call’s ids at least as often as recency', () => {
    const cases = toolCallCases(tauBench().slice(0, 80))
    expect(cases.length).toBeGreaterThan(200)
    const rows = evaluateTau(cases, [0.1, 0.25], {
      recency: TAU_STRATEGIES.recency as NonNullable<(typeof TAU_STRATEGIES)['recency']>,
      relevance: TAU_STRATEGIES.relevance as NonNullable<(typeof TAU_STRATEGIES)['relevance']>,
    })
    for (const budget of [0.1, 0.25]) {
      const at = (name: string) => rows.find((r) => r.budget === budget && r.strategy === name)
      expect(at('relevance')?.recall).toBeGreaterThanOrEqual(at('recency')?.recall as number)
      expect(at('relevance')?.olderCalls).toBeGreaterThan(0)
    }
  })
})

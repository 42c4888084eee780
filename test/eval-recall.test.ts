import { describe, expect, it } from 'vitest'
import { agents, askedAs } from '../scripts/eval-recall.js'
import { printedBy } from './helpers/logged.js'

describe('recall evaluation and example, as the README states them', () => {
  it('asks as a model would: the tool name and its argument names, never their values', () => {
    expect(
      askedAs({ name: 'get_reservation_details', arguments: '{"reservation_id":"OI5L9G"}' }),
    ).toBe('get_reservation_details reservation_id')
    expect(askedAs({ name: 'think', arguments: '{not json' })).toBe('think')
  })

  it('README: one recall brings τ-bench calls with their identifiers to 98.4% at 10%, 100% of the Claude calls', () => {
    const tau = agents('tau-bench', 0.1, 3000, 16, 'ledger (default) + recall')
    expect(tau.cases).toBe(441)
    expect(tau.sentOrRecalled).toBeCloseTo(0.984, 3)
    expect(tau.recallTokens).toBeLessThanOrEqual(3000)
    expect(Math.round(tau.recallTokens)).toBe(1223)
    const claude = agents('tau2-claude', 0.1, 3000, 16, 'ledger (default) + recall')
    expect(claude.cases).toBe(31)
    expect(claude.sentOrRecalled).toBe(1)
  }, 120_000)

  it('examples/recall.ts: the model recalls the payment ids, then books with them; every request valid', async () => {
    const lines = await printedBy(new URL('../examples/recall.js', import.meta.url))
    expect(lines[1]).toMatch(
      /^step 1: sent (\d+) of 32 messages, \d+ tokens \(tools \d+\), valid for every provider: true$/,
    )
    expect(lines[2]).toBe(
      'step 1: the model calls recall {"query":"book_reservation user_id payment_methods"}',
    )
    expect(lines[3]).toMatch(/^step 1: recall returned messages [\d, ]*\b5\b/)
    expect(lines[4]).toMatch(/^step 2: sent \d+ of 34 messages, .* valid for every provider: true$/)
    expect(lines[5]).toContain('"payment_id":"gift_card_8516878"')
    expect(lines[5]).toContain('"payment_id":"credit_card_3563913"')
    for (const l of lines.slice(1)) {
      const m = /sent \d+ of \d+ messages, (\d+) tokens/.exec(l)
      if (m) expect(Number(m[1])).toBeLessThanOrEqual(3000)
    }
  })
})

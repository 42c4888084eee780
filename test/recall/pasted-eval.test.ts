// docs/strategies.md: a model pasting the user's message as its query, over 100,000 messages
// of τ-bench traffic, finds it among the first 16 more often with the query's commonest words
// left unread than with every word read, and first more often; the bound, chosen on half the
// trajectories, holds on the other half.
import { describe, expect, it } from 'vitest'
import { heldOut, pasted } from '../../scripts/eval-recall-pasted.js'
import { QUERY_POSTINGS } from '../../src/recall/search.js'

describe('recall of a pasted message over a long history, as docs/strategies.md states it', () => {
  it('100,000 messages, 200 queries: 26.0% first and 97.5% in 16 within the bound; 23.0% and 60.5% read whole', () => {
    expect(QUERY_POSTINGS).toBe(16_384)
    const row = pasted(100_000)
    expect(row.queries).toBe(200)
    expect(row.boundedFirst).toBe(52)
    expect(row.wholeFirst).toBe(46)
    expect(row.boundedIn16).toBe(195)
    expect(row.wholeIn16).toBe(121)
  }, 240_000)

  it('the bound chosen on even trajectories is measured on odd ones, and the other way', () => {
    const rows = heldOut(100_000)
    const pct = (n: number, of: number) => ((100 * n) / of).toFixed(1)
    expect(
      rows.map((r) => [
        r.chosenOn,
        r.bound,
        pct(r.chosen.boundedIn16, r.chosen.queries),
        pct(r.shipped.boundedIn16, r.shipped.queries),
        pct(r.most.boundedIn16, r.most.queries),
      ]),
    ).toEqual([
      ['even', 16_384, '98.0', '98.0', '92.5'],
      ['odd', 32_768, '94.5', '99.0', '86.5'],
    ])
    // Reading fewer postings finds the pasted message more often on the half it was not chosen on.
    for (const r of rows) expect(r.shipped.boundedIn16).toBeGreaterThan(r.most.boundedIn16)
  }, 240_000)
})

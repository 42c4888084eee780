// docs/strategies.md: a model pasting the user's message as its query, over 100,000 messages
// of τ-bench traffic, finds it among the first 16 more often with the query's commonest words
// left unread than with every word read, and first as often.
import { describe, expect, it } from 'vitest'
import { pasted } from '../../scripts/eval-recall-pasted.js'

describe('recall of a pasted message over a long history, as docs/strategies.md states it', () => {
  it('100,000 messages, 200 queries: 23.0% first either way; 88.5% in 16 read within the bound, 60.5% read whole', () => {
    const row = pasted(100_000)
    expect(row.queries).toBe(200)
    expect(row.boundedFirst).toBe(46)
    expect(row.wholeFirst).toBe(46)
    expect(row.boundedIn16).toBe(177)
    expect(row.wholeIn16).toBe(121)
  }, 240_000)
})

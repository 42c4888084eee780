import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CATEGORIES } from '../scripts/eval-locomo.js'
import { type LocomoSample, locomoChat } from '../scripts/locomo.js'
import { misses, missTable, reasonFor } from '../scripts/locomo-misses.js'
import type { Strategy, View } from '../src/strategies/types.js'

const mini = JSON.parse(
  readFileSync(new URL('./fixtures/locomo-mini.json', import.meta.url), 'utf8'),
) as LocomoSample[]

const rare = () => false

/** A strategy keeping the system line, the question and the input positions given. */
const keeping = (positions: readonly number[]) => (): Strategy => ({
  name: 'test',
  options: {},
  budgetAware: true,
  select: (view: View) => {
    const n = view.messages.length
    return [...new Set([0, ...positions, n - 1])].sort((a, b) => a - b).map((index) => ({ index }))
  },
})

describe('why LoCoMo evidence is missed', () => {
  it('names the reason from the words a left-out turn shares with the question', () => {
    expect(reasonFor('What did Ana paint?', 4, 'Ana: I painted a lake.', undefined, rare)).toBe(
      'ranked out',
    )
    // The speaker's name alone, held by most turns, is a common word.
    const names = (t: string) => t === 'ana'
    expect(
      reasonFor('What did Ana paint?', 4, 'Ana: A lake at dawn.', 'Ben: Did you paint?', names),
    ).toBe('answer after a matching turn')
    expect(reasonFor('What did Ana paint?', 4, 'Ana: A lake at dawn.', undefined, rare)).toBe(
      'ranked out',
    )
    expect(reasonFor('What did Ana paint?', 4, 'Ana: A lake at dawn.', 'Ben: Nice!', names)).toBe(
      'common words only',
    )
    expect(reasonFor('What did Ana paint?', 1, 'Ben: A lake at dawn.', 'Ben: Nice!', names)).toBe(
      'no shared word',
    )
    // A temporal question whose evidence says its time relatively, even sharing a word.
    expect(
      reasonFor('When did Ana paint?', 2, 'Ana: I painted last Saturday.', undefined, rare),
    ).toBe('relative date')
    expect(
      reasonFor('When did Ana paint?', 4, 'Ana: I painted last Saturday.', undefined, rare),
    ).toBe('ranked out')
    // Empty, astral and hostile words share nothing.
    expect(reasonFor('  ', 4, '__proto__ 𝒜𝒷', undefined, rare)).toBe('no shared word')
    expect(reasonFor('__proto__ constructor', 4, 'toString', undefined, rare)).toBe(
      'no shared word',
    )
  })

  it('lists each question missing evidence once, with how many evidence turns it lost', () => {
    // Messages: 0 system, 1 D1:1 (puppy), 2 D1:2, 3 D2:1 (shoes), 4 D2:2.
    expect(locomoChat(mini[0] as LocomoSample).diaIds).toEqual([
      undefined,
      'D1:1',
      'D1:2',
      'D2:1',
      'D2:2',
    ])
    const none = misses(mini, 1, keeping([]))
    expect(none.questions).toBe(2)
    expect(none.misses.map((m) => [m.question, m.missed, m.evidence, m.reason])).toEqual([
      ["What is the name of Ana's puppy?", 1, 1, 'ranked out'],
      ['What did the puppy chew?', 2, 2, 'ranked out'],
    ])
    const first = misses(mini, 1, keeping([1]))
    expect(first.misses.map((m) => [m.question, m.missed])).toEqual([
      ['What did the puppy chew?', 1],
    ])
    expect(misses(mini, 1, keeping([1, 3])).misses).toEqual([])
    const table = missTable(none.misses, CATEGORIES)
    expect(table).toContain('| multi-hop | 0 | 0 | 1 | 0 | 0 | 1 |')
    expect(table).toContain('| single-hop | 0 | 0 | 1 | 0 | 0 | 1 |')
    expect(table).toContain('| all | 0 | 0 | 2 | 0 | 0 | 2 |')
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { evaluate } from '../scripts/eval-locomo.js'
import { type LocomoSample, locomoChat, normaliseEvidence } from '../scripts/locomo.js'

const mini = JSON.parse(
  readFileSync(new URL('./fixtures/locomo-mini.json', import.meta.url), 'utf8'),
) as LocomoSample[]

describe('LoCoMo evaluation', () => {
  it('builds the chat: a system line, speaker_a as user, speaker_b as assistant, dates and captions', () => {
    const { messages, diaIds } = locomoChat(mini[0] as LocomoSample)
    expect(messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    expect(messages[0]?.content).toBe('A conversation between Ana and Ben.')
    expect(messages[1]?.content).toBe('[1:56 pm on 8 May, 2023] Ana: I adopted a puppy called Rex.')
    expect(messages[2]?.content).toBe('Ben: Nice! I went hiking. [image: a photo of a mountain]')
    expect(messages[3]?.content).toBe('[10:00 am on 9 May, 2023] Ana: Rex chewed my shoes.')
    expect(diaIds).toEqual([undefined, 'D1:1', 'D1:2', 'D2:1', 'D2:2'])
  })

  it('normalises malformed evidence ids as the data README says', () => {
    expect(normaliseEvidence(['D8:6; D9:17', 'D:11:26', 'D30:05', 'junk'])).toEqual([
      'D8:6',
      'D9:17',
      'D11:26',
      'D30:5',
    ])
  })

  it('scores evidence recall per strategy and category, skipping questions without evidence', () => {
    const rows = evaluate(mini, [2])
    expect(rows.map((r) => r.strategy)).toEqual([
      'tokenLimited',
      'scoreBased+recency',
      'scoreBased+relevance',
      'relevance',
    ])
    for (const r of rows) {
      expect(r.questions).toBe(2)
      expect(r.recall).toBe(1)
      expect(Object.keys(r.byCategory).sort()).toEqual(['multi-hop', 'single-hop'])
    }
    // At a tight budget, relevance keeps the puppy turn that recency drops.
    const tight = evaluate(mini, [0.75])
    const byName = Object.fromEntries(tight.map((r) => [r.strategy, r.recall]))
    expect(byName.relevance).toBeGreaterThan(byName.tokenLimited as number)
  })
})

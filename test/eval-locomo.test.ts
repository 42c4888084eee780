import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { evaluate, type Family, formatRows } from '../scripts/eval-locomo.js'
import { type LocomoSample, locomoChat, normaliseEvidence } from '../scripts/locomo.js'
import { messageText } from '../src/messages/message.js'
import { mostRelevant } from '../src/strategies/most-relevant.js'
import type { Strategy, View } from '../src/strategies/types.js'
import { readLocomo } from './locomo-data.js'

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

  it('scores evidence recall per strategy and category, pooled and held out, skipping questions without evidence', () => {
    const names = ['tokenLimited', 'scoreBased+recency', 'scoreBased+bm25', 'relevance']
    const rows = evaluate(mini, [2], names)
    expect(rows.map((r) => r.strategy)).toEqual(names)
    for (const r of rows) {
      expect(r.questions).toBe(2)
      expect(r.pooled.recall).toBe(1)
      expect(r.heldOut.recall).toBe(1)
      expect(Object.keys(r.heldOut.byCategory).sort()).toEqual(['multi-hop', 'single-hop'])
      expect(r.heldOut.byConversation).toEqual({ 'mini-1': { questions: 2, recall: 1 } })
    }
    // At a tight budget, relevance keeps the puppy turn that recency drops.
    const tight = evaluate(mini, [0.75], ['tokenLimited', 'relevance'])
    const byName = Object.fromEntries(tight.map((r) => [r.strategy, r.pooled.recall]))
    expect(byName.relevance).toBeGreaterThan(byName.tokenLimited as number)
  })

  it('scores each held-out conversation with the setting best on the others, never its own', () => {
    // A second conversation with other speakers; a strategy that keeps everything only when
    // it sees a given name is perfect on one conversation and blind on the other.
    const other = JSON.parse(
      JSON.stringify(mini[0]).replaceAll('Ana', 'Cleo').replaceAll('Ben', 'Dan'),
    ) as LocomoSample
    other.sample_id = 'mini-2'
    const keepsAllFor = (name: string) => (): Strategy => ({
      name: 'test',
      options: {},
      budgetAware: true,
      select: (view: View) => {
        const sees = view.messages.some((m) => messageText(m).includes(name))
        const n = view.messages.length
        const keep = sees ? view.messages.map((_, i) => i) : [0, n - 1]
        return keep.map((index) => ({ index }))
      },
    })
    const family: Family = { settings: { ana: keepsAllFor('Ana'), cleo: keepsAllFor('Cleo') } }
    const [row] = evaluate([mini[0] as LocomoSample, other], [2], ['picky'], { picky: family })
    expect(row?.pooled.recall).toBe(0.5)
    expect(row?.heldOut.chosen).toEqual({ 'mini-1': 'cleo', 'mini-2': 'ana' })
    expect(row?.heldOut.recall).toBe(0)
    expect(formatRows(row ? [row] : [], { picky: family })).toMatch(
      /\| 200\.0% \| picky \| 4 \| 50\.0% \| 0\.0% \|[\s\S]*mini-1: cleo; mini-2: ana/,
    )
  })

  it('builds the chat with dates on every turn or the speaker in the name field when asked', () => {
    const every = locomoChat(mini[0] as LocomoSample, { dates: 'every' })
    expect(every.messages[2]?.content).toBe(
      '[1:56 pm on 8 May, 2023] Ben: Nice! I went hiking. [image: a photo of a mountain]',
    )
    const named = locomoChat(mini[0] as LocomoSample, { speaker: 'name', dates: 'none' })
    expect(named.messages[1]).toEqual({
      role: 'user',
      content: 'I adopted a puppy called Rex.',
      name: 'Ana',
    })
  })
})

describe("the README's LoCoMo figure", () => {
  it('is what the shipped mostRelevant keeps on the bundled conversations at 10% and 25%', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const said =
      /`mostRelevant` keeps the evidence of ([\d.]+)% of LoCoMo questions at 10% of\s+the conversation and ([\d.]+)% at 25%/.exec(
        readme,
      )
    expect(said).not.toBeNull()
    const samples = readLocomo() as LocomoSample[]
    const shipped: Family = { settings: { default: (query) => mostRelevant({ query }) } }
    const rows = evaluate(samples, [0.1, 0.25], ['shipped'], { shipped })
    expect(rows.map((r) => (r.pooled.recall * 100).toFixed(1))).toEqual([said?.[1], said?.[2]])
  }, 60_000)
})

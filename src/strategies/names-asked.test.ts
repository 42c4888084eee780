import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { oneUnitView as view } from '../../test/one-unit-view.js'
import { fit } from '../context/fit.js'
import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { exactCounter } from '../tokens/counters.js'
import { mostRelevant } from './most-relevant.js'
import { namesAsked } from './named-scorers.js'

const counter = exactCounter()
const sys: Message = { role: 'system', content: 'Two friends talk.' }
const ana = (t: string): Message => ({ role: 'user', content: `Ana: ${t}` })
const ben = (t: string): Message => ({ role: 'assistant', content: `Ben: ${t}` })

describe('namesAsked', () => {
  const chat = (): Message[] => [
    sys,
    ben('Took a short trip last week to Rome to clear my mind.'), // 1: a name
    ana('Thanks, Ben, that sounds lovely.'), // 2: a speaker's name only
    ben('Last Friday in June I stayed home all day.'), // 3: a day and a month only
    ana('Paris is lovely. so is the sea.'), // 4: a capital opening a sentence only
    ben('We visited the cities up north, I think.'), // 5: a word of the question, lower-cased
    ben('[9:00 am on 3 May, 2023] Ben: we saw Matt Patterson play.'), // 6: a name after the opening
    ana('Which cities has Ben visited?'),
  ]

  it('raises, for a question asking for a name, the turns naming something the question and the speakers do not', () => {
    expect(namesAsked()(view(chat()))).toEqual([0, 1, 0, 0, 0, 0, 1, 0])
    // The query given apart is read in place of the newest turn.
    expect(namesAsked({ query: 'Where did Ben go?' })(view(chat().slice(0, -1)))).toEqual([
      0, 1, 0, 0, 0, 0, 0,
    ])
  })

  it('raises nothing for a question that asks for no name', () => {
    for (const query of [
      'What did Ben paint?',
      'When did Ben go to Rome?',
      'Is it somewhere nice? nowhere?',
      'Which one did Ben like?',
      '',
      '   ',
    ])
      expect(namesAsked({ query })(view(chat())).every((x) => x === 0)).toBe(true)
  })

  it('reads who, whom and where opening any sentence of the query, and which or what with a kind of named thing', () => {
    const h = chat().slice(0, -1)
    for (const query of [
      'Hi there. Who went away?',
      'Thanks! where was that?',
      'Whom did Ben meet?',
      'What musical artists has Ben seen?',
      'which STATE did he like',
      'What band played?',
    ])
      expect(namesAsked({ query })(view(h))[1], query).toBe(1)
  })

  it("leaves out a name the question holds: the turn naming 'Rome' is no answer to 'Who was in Rome?'", () => {
    expect(namesAsked({ query: 'Who was in Rome with Ben?' })(view(chat().slice(0, -1)))[1]).toBe(0)
  })

  it('makes mostRelevant keep the turn naming the city, which shares no word with the question, and drops it with names: 0', () => {
    const filler = Array.from({ length: 12 }, (_, k) =>
      k % 2
        ? ben(`Work was busy in week ${k}, lots to do.`)
        : ana(`Same here, week ${k} was long.`),
    )
    const h = [
      sys,
      ben('Took a short trip last week to Rome to clear my mind.'),
      ...filler,
      ana('Which cities has Ben visited?'),
    ]
    const question = h.length - 1
    const before = structuredClone(h)
    const budget = counter.countMessages([sys, h[1], h[question]] as Message[]) + 5
    const kept = fit(h, { strategy: mostRelevant(), budget, counter }).kept
    const without = fit(h, { strategy: mostRelevant({ names: 0 }), budget, counter }).kept
    expect(kept).toEqual([0, 1, question])
    expect(without).not.toContain(1)
    expect(h).toEqual(before)
  })

  it('refuses a weight that is not a finite number >= 0 with a typed error naming it', () => {
    for (const names of [-0.1, Number.NaN, Number.POSITIVE_INFINITY, '0.2', null])
      expect(() => mostRelevant({ names: names as number })).toThrow(InvalidOptionError)
    expect(() => mostRelevant({ names: -1 })).toThrow(/names/)
  })

  // Turns built from pools whose names are known (the astral letters lower-case only: a
  // capital script letter is a capitalised word too), so what each turn should score is known by
  // construction: 1 when a name from the pool sits after a word (not opening a sentence),
  // else 0. Nasty text around them: empty, whitespace, astral, hostile keys, dotted ids.
  const NAMES = ['Rome', 'Oregon', 'Matt', 'Zoë', 'Ōsaka']
  const PLAIN = [
    '',
    ' ',
    '\t',
    '𝒷𝒸𝒹',
    '😀🎉',
    '__proto__',
    'constructor',
    'a.b.c',
    'rome',
    'x1.y2',
    'hey',
  ]
  const TIMES = ['Monday', 'Sunday', 'March', 'December']
  const piece = fc.oneof(
    fc.constantFrom(...PLAIN).map((t) => ({ t, name: false })),
    fc.constantFrom(...TIMES).map((t) => ({ t: `on ${t}`, name: false })),
    fc.constantFrom('Ana', 'Ben').map((t) => ({ t: `hi ${t}`, name: false })),
    fc.constantFrom(...NAMES).map((t) => ({ t: `in ${t}`, name: true })),
    // A capital opening the text or a sentence is no name.
    fc.constantFrom(...NAMES).map((t) => ({ t: `. ${t}`, name: false })),
  )
  const turn = fc.tuple(fc.boolean(), fc.array(piece, { maxLength: 5 })).map(([user, parts]) => {
    // A leading piece whose text opens with the capital is a sentence's opening.
    const text = parts.map((p) => p.t).join(' ')
    const named = parts.some((p, k) => p.name && (k > 0 || p.t.startsWith('in ')))
    const m: Message = user
      ? { role: 'user', content: `Ana: ${text}` }
      : { role: 'assistant', content: `Ben: ${text}` }
    return { m, named }
  })

  it('scores 1 exactly the turns holding a name after another word, on generated nasty turns, never changing them', () => {
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 10 }), (turns) => {
        // Both speakers have a turn: their names are no answer.
        const h = [sys, ben('hello'), ...turns.map((x) => x.m), ana('Where did they go?')]
        const before = structuredClone(h)
        const s = namesAsked()(view(h))
        expect(s).toEqual([0, 0, ...turns.map((x) => (x.named ? 1 : 0)), 0])
        expect(h).toEqual(before)
      }),
      { numRuns: 300 },
    )
  })

  it('reads a query with long runs of spaces after full stops, and a turn with one before a name', () => {
    const query = `${'. '.repeat(2)}${' '.repeat(200_000)}x.${' '.repeat(200_000)}Where?`
    const h = [sys, ben(`in${' '.repeat(200_000)}Rome`), ana(query)]
    expect(namesAsked()(view(h))).toEqual([0, 1, 0])
  })

  it('answers any query text, binary or astral, with one score of 0 or 1 per unit', () => {
    const h = chat().slice(0, -1)
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (query) => {
        const s = namesAsked({ query })(view(h))
        expect(s).toHaveLength(h.length)
        expect(s.every((x) => x === 0 || x === 1)).toBe(true)
      }),
      { numRuns: 200 },
    )
  })
})

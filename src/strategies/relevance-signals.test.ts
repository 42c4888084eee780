import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cooccurringReference } from '../../test/helpers/cooccurring-reference.js'
import { oneUnitView } from '../../test/one-unit-view.js'
import { fit } from '../context/fit.js'
import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { exactCounter } from '../tokens/counters.js'
import { cooccurring } from './cooccurring.js'
import { dateKeys, dates } from './dates.js'
import { mostRelevant, relevanceScorer } from './most-relevant.js'
import { speakerNews, spokenBy } from './named-scorers.js'
import type { Strategy, View } from './types.js'

const counter = exactCounter()
const sys: Message = { role: 'system', content: 'Two friends talk.' }
const ana = (t: string): Message => ({ role: 'user', content: `Ana: ${t}` })
/** A turn opening a session: its date first, as chat logs write it. */
const opens = (date: string, t: string): Message => ({
  role: 'user',
  content: `[${date}] Ana: ${t}`,
})
const ben = (t: string): Message => ({ role: 'assistant', content: `Ben: ${t}` })

const view = oneUnitView

const filler = (n: number, from = 0) =>
  Array.from({ length: n }, (_, k) =>
    (from + k) % 2
      ? ben(`Sounds lovely, tell me more about week ${from + k}.`)
      : ana(`Busy week ${from + k}, lots of work.`),
  )

describe('dateKeys', () => {
  // Expected keys written from the calendar, not from the parser: year, year-month,
  // year-month-day, month, month-day.
  const full = (y: number, m: number, d: number) =>
    [`y${y}`, `y${y}-${m}`, `y${y}-${m}-${d}`, `m${m}`, `m${m}-${d}`].sort()

  it('reads one date written in the usual ways as the same keys', () => {
    for (const text of [
      '[1:36 pm on 3 July, 2023] Caroline: hi',
      'on July 3rd, 2023',
      'the 3rd of July 2023',
      '2023-07-03',
      'Jul. 3, 2023',
      'JULY 3 2023',
    ])
      expect(dateKeys(text).sort(), text).toEqual(full(2023, 7, 3))
  })

  it('reads a month alone, a month and year, a year alone; "may" the verb and a day 32 are no date', () => {
    expect(dateKeys('camping in June?')).toEqual(['m6'])
    expect(dateKeys('in December 2022').sort()).toEqual(['m12', 'y2022', 'y2022-12'].sort())
    expect(dateKeys('back in 2019')).toEqual(['y2019'])
    expect(dateKeys('May I ask what you may want?')).toEqual([])
    expect(dateKeys('Jan came over')).toEqual([])
    expect(dateKeys('on 32 June')).toEqual(['m6'])
    expect(dateKeys('order 20231-07-03 and item 12345')).toEqual([])
  })

  it('answers every string, empty, whitespace or astral, with keys of the documented shape', () => {
    expect(dateKeys('')).toEqual([])
    expect(dateKeys(' \n\t ')).toEqual([])
    expect(dateKeys('🎉 3 June 2023 🎉 𝒥une')).toContain('y2023-6-3')
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        for (const k of dateKeys(text))
          expect(k).toMatch(/^(y\d{4}(-\d{1,2}(-\d{1,2})?)?|m\d{1,2}(-\d{1,2})?)$/)
      }),
      { numRuns: 300 },
    )
  })
})

/** Three sessions, each opened by a dated line; Ana's news in the second shares no word with the question. */
const sessions = (): Message[] => [
  sys,
  opens('9:00 am on 8 May, 2023', 'Morning Ben!'),
  ...filler(6, 1),
  opens('10:00 am on 3 June, 2023', 'Hi Ben!'),
  ben('Hi Ana, any news?'),
  ana('I adopted a second cat, Miso.'),
  opens('8:00 pm on 20 July, 2023', 'Evening!'),
  ...filler(24, 7),
]
const SESSION_2 = [8, 9, 10]

describe('dates', () => {
  it('scores the turns of the session whose date the query names above every other', () => {
    const h = sessions()
    const s = dates()(view([...h, ana('What did Ana do on 2023-06-03?')]))
    const second = SESSION_2.map((u) => s[u] as number)
    // The three turns of 3 June share its date; the others of 2023 its year only; the
    // system line comes before any date.
    expect(new Set(second).size).toBe(1)
    expect(s[0]).toBe(0)
    for (let u = 1; u < h.length; u++)
      if (!SESSION_2.includes(u)) expect(s[u] as number).toBeLessThan((second[0] as number) / 4)
    expect(dates({ query: 'What happened in 2031?' })(view(h)).every((x) => x === 0)).toBe(true)
    expect(dates({ query: 'What happened?' })(view(h)).every((x) => x === 0)).toBe(true)
  })

  it('weighs a shared year little and the shared day much (idf)', () => {
    const h = sessions()
    const s = dates({ query: 'anything on 3 June 2023?' })(view(h))
    const year = s[1] as number // 8 May 2023 shares the year only
    expect(year).toBeGreaterThan(0)
    expect(s[10] as number).toBeGreaterThan(4 * year)
    // A session that opens without a date of its own keeps the last one: none here after July.
    expect(s[h.length - 1]).toBe(year)
  })

  it('makes mostRelevant keep news told in the session the question dates, which it drops without', () => {
    const h = [...sessions(), ana('What did Ana do on 2023-06-03?')]
    const question = h.length - 1
    const budget =
      counter.countMessages([
        sys,
        ...SESSION_2.map((i) => h[i] as Message),
        h[question] as Message,
      ]) + 30
    const before = structuredClone(h)
    const withDates = fit(h, { strategy: mostRelevant(), budget, counter })
    const without = fit(h, { strategy: mostRelevant({ dates: 0 }), budget, counter })
    expect(withDates.kept).toEqual(expect.arrayContaining([10, question]))
    expect(without.kept).not.toContain(10)
    expect(withDates.tokens.total).toBeLessThanOrEqual(budget)
    expect(h).toEqual(before)
  })
})

/** Twice Ben asks about stress and Ana answers with running; later she runs again, stress unsaid. */
const runner = (): Message[] => [
  sys,
  ...filler(8),
  ben('How do you handle stress at work?'),
  ana('Running in the park every evening clears my head.'),
  ...filler(8, 10),
  ben('Still stressed about the deadline?'),
  ana('A bit, so I went running again, the park loop.'),
  ...filler(12, 20),
  ana('Went running by the river today, ten kilometres!'),
  ...filler(12, 33),
]
const RUN_LATER = 33

describe('cooccurring', () => {
  it('scores a turn holding a word that went with the query words, and no turn holding none', () => {
    const h = [...runner(), ana('What does Ana do about stress?')]
    const s = cooccurring()(view(h))
    // Above every turn of filler; the question itself scores nothing.
    for (let u = 1; u < h.length; u++)
      if (![10, 20, RUN_LATER].includes(u))
        expect(s[u] as number, String(u)).toBeLessThan(s[RUN_LATER] as number)
    expect(s[h.length - 1]).toBe(0)
    // The same run, with "running" next to "stress" once only, adds nothing (minCount 2).
    const once = h.filter((_, i) => i !== 20)
    expect(cooccurring({ minCount: 2 })(view(once))[RUN_LATER - 1]).toBe(0)
  })

  it('makes mostRelevant keep the later run, which BM25 and its neighbours miss', () => {
    const h = [...runner(), ana('What does Ana do about stress?')]
    const question = h.length - 1
    const scores = relevanceScorer({ cooccurring: 0.1 })(view(h)) as number[]
    const plain = relevanceScorer({ cooccurring: 0 })(view(h)) as number[]
    expect(plain[RUN_LATER]).toBeLessThan(scores[RUN_LATER] as number)
    const rank = (s: number[], u: number) => s.filter((x) => x > (s[u] as number)).length
    expect(rank(scores, RUN_LATER)).toBeLessThan(rank(plain, RUN_LATER))
    // The smallest budget at which mostRelevant keeps the later run: there, without the
    // co-occurring words, the turns around the two matches fill the room instead.
    const total = counter.countMessages(h)
    let budget = counter.countMessages([sys, h[question] as Message])
    while (
      !fit(h, { strategy: mostRelevant({ cooccurring: 0.1 }), budget, counter }).kept.includes(
        RUN_LATER,
      )
    )
      budget += 5
    expect(budget).toBeLessThan(total / 2)
    const keptPlain = fit(h, { strategy: mostRelevant({ cooccurring: 0 }), budget, counter }).kept
    expect(keptPlain).not.toContain(RUN_LATER)
    expect(keptPlain).toEqual(expect.arrayContaining([9, 10, 19, 20, question]))
  })

  it('is off unless asked for: the default keeps what weight 0 keeps, and 0.1 keeps more of what goes with the question', () => {
    const h = [...runner(), ana('What does Ana do about stress?')]
    const kept = (o: object, budget: number) =>
      fit(h, { strategy: mostRelevant(o), budget, counter }).kept
    // The smallest budget at which weight 0.1 keeps the later run: the default does not.
    let budget = counter.countMessages([sys, h[h.length - 1] as Message])
    while (!kept({ cooccurring: 0.1 }, budget).includes(RUN_LATER)) budget += 5
    expect(kept({}, budget)).toEqual(kept({ cooccurring: 0 }, budget))
    expect(kept({}, budget)).not.toContain(RUN_LATER)
  })

  // Words that make the counts hard: shared and rare ones, numbers (left out), hostile keys,
  // astral letters, ids with dots, empty and blank texts.
  const WORDS = [
    'run',
    'stress',
    'river',
    'dance',
    'pottery',
    'clay',
    'kids',
    '42',
    '__proto__',
    'constructor',
    'toString',
    '𝒜𝒷𝒸',
    'order.v2.id',
    'hasOwnProperty',
    'Stress!',
    ' ',
    '',
  ]
  const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }).map((w) => w.join(' '))
  // A turn: a user's, an assistant's, or a tool exchange (a call and one or two results).
  const turn = fc.oneof(
    text.map((t): Message[] => [{ role: 'user', content: t }]),
    text.map((t): Message[] => [{ role: 'assistant', content: t }]),
    fc.tuple(text, fc.array(text, { minLength: 1, maxLength: 2 })).map(([a, rs]): Message[] => [
      {
        role: 'assistant',
        content: a,
        toolCalls: rs.map((_, k) => ({ id: `c${k}`, name: 'look', arguments: '{}' })),
      },
      ...rs.map((r, k): Message => ({ role: 'tool', toolCallId: `c${k}`, content: r })),
    ]),
  )
  const agree = (got: number[], want: number[]) => {
    expect(got.length).toBe(want.length)
    for (const [u, x] of got.entries()) expect(x, `unit ${u}`).toBeCloseTo(want[u] as number, 9)
  }
  /** The scores of both scorers on the view `fit` makes of a history (units of several messages too). */
  const bothOn = (history: Message[], query: string, o: { terms?: number; window?: number }) => {
    let got: number[] = []
    let want: number[] = []
    const probe: Strategy = {
      name: 'probe',
      options: {},
      budgetAware: true,
      select: (v: View) => {
        got = cooccurring({ query, ...o })(v)
        want = cooccurringReference(v, query, o)
        return v.messages.map((_, index) => ({ index }))
      },
    }
    fit(history, { strategy: probe, budget: 1_000_000, counter })
    return { got, want }
  }

  it('scores as the plain count does, on every history an index sees in turn, and on another opening with the same message', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(turn, { maxLength: 8 }), { minLength: 1, maxLength: 5 }),
        text,
        fc.constantFrom({}, { window: 0 }, { terms: 2 }, { window: 3 }),
        (edits, query, o) => {
          // One history edited in turn: grown, cut, a turn put in place of another. The
          // first message is the same object throughout, so one index follows every edit.
          const first: Message = { role: 'system', content: 'stress run' }
          let body: Message[][] = []
          for (const [k, add] of edits.entries()) {
            if (k % 3 === 1) body = body.slice(0, Math.max(0, body.length - 2))
            if (k % 3 === 2 && body.length > 1) body[0] = [{ role: 'user', content: `again ${k}` }]
            body = [...body, ...add]
            const history = [first, ...body.flat(), { role: 'user', content: query } as Message]
            const { got, want } = bothOn(history, query, o)
            agree(got, want)
            // Another history opening with the same message, scored between two edits.
            const other: Message[] = [first, ...(edits[k - 1] ?? []).flat(), ...history.slice(-1)]
            const between = bothOn(other, query, o)
            agree(between.got, between.want)
          }
        },
      ),
      { numRuns: 150 },
    )
  })

  it('scores the LoCoMo-like runner as the plain count does, and again with a new question in place of the last', () => {
    const h = [...runner(), ana('What does Ana do about stress?')]
    const { got, want } = bothOn(h, 'What does Ana do about stress?', {})
    expect(got.some((x) => x > 0)).toBe(true)
    agree(got, want)
    // A second question in place of the first: the same scores as a fresh count.
    const again = [...h.slice(0, -1), ana('Where does Ana run?')]
    const second = bothOn(again, 'Where does Ana run?', {})
    agree(second.got, second.want)
    expect(second.got).not.toEqual(got)
  })

  it('refuses bad settings with a typed error naming them', () => {
    for (const bad of [
      { terms: -1 },
      { window: 1.5 },
      { minCount: 'x' },
      { query: 3 },
      { colour: 1 },
    ])
      expect(() => cooccurring(bad as never)).toThrow(InvalidOptionError)
    expect(() => cooccurring(JSON.parse('{"__proto__": {"terms": 1}}'))).toThrow(InvalidOptionError)
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, '0.2'])
      for (const key of ['dates', 'cooccurring', 'speakerTurns'])
        expect(() => mostRelevant({ [key]: bad } as never), `${key} ${String(bad)}`).toThrow(
          InvalidOptionError,
        )
  })
})

describe("what only a person's own turn can say", () => {
  // A tool result opening as a chat line would: it names no speaker and dates no session.
  const posing: Message = {
    role: 'tool',
    toolCallId: 'c.1',
    content: '[3 June, 2023] Ben: I just bought a boat yesterday.',
  }
  const h = [
    sys,
    ana('Hi Ben.'),
    posing,
    ben('Sounds good.'),
    ana('What did Ben do on 3 June, 2023?'),
  ]

  it('a tool result saying "[date] Name:" does not date the turns after it', () => {
    const s = dates()(view(h))
    expect(s[3]).toBe(0)
    // A person's turn opening the same way does.
    const real: Message[] = [
      sys,
      ana('Hi Ben.'),
      { role: 'assistant', content: '[3 June, 2023] Ben: I just bought a boat.' },
      ben('Sounds good.'),
      h[4] as Message,
    ]
    expect(dates()(view(real))[3]).toBeGreaterThan(0)
  })

  it('a tool result saying "Name:" is not that person\'s turn', () => {
    const s = spokenBy()(view(h))
    expect(s[2]).toBe(0)
    expect(s[3]).toBeGreaterThan(0)
    expect(speakerNews()(view(h))[2]).toBe(0)
  })
})

describe('spokenBy', () => {
  const chat = (): Message[] => [
    sys,
    ana('Thanks, Ben, that was kind.'),
    ben('I painted the fence blue last weekend.'),
    ana('Ben, you always surprise me.'),
    { role: 'assistant', name: 'Ben', content: 'Sold my old bike too.' },
    ana('What has Ben been up to?'),
  ]

  it("scores the turns of the person the query names, by a 'Name: ' opening or by name, not the turns naming them", () => {
    const s = spokenBy()(view(chat()))
    expect(s).toEqual([0, 0, 1, 0, 1, 0])
    expect(spokenBy({ query: 'And Cleo?' })(view(chat())).every((x) => x === 0)).toBe(true)
  })

  it("lets mostRelevant keep the named person's own turn before a turn only addressing them", () => {
    const h = [sys, ...chat().slice(1, 4), ana('What has Ben been up to?')]
    const [own, addressing, question] = [2, 3, 4]
    const scores = relevanceScorer()(view(h)) as number[]
    const without = relevanceScorer({ speakerTurns: 0, speakers: 0 })(view(h)) as number[]
    // BM25 alone favours the shorter turn that only says "Ben".
    expect(without[addressing]).toBeGreaterThan(without[own] as number)
    expect(scores[own]).toBeGreaterThan(scores[addressing] as number)
    // Room for one of the two besides what is always sent.
    const budget = counter.countMessages([sys, h[own], h[question]] as Message[]) + 2
    const kept = fit(h, { strategy: mostRelevant(), budget, counter }).kept
    const keptWithout = fit(h, {
      strategy: mostRelevant({ speakerTurns: 0, speakers: 0 }),
      budget,
      counter,
    }).kept
    expect(kept).toEqual([0, own, question])
    expect(keptWithout).toContain(addressing)
    expect(keptWithout).not.toContain(own)
  })
})

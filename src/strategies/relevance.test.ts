import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hashedNgrams } from '../../scripts/ngram-embed.js'
import { oneUnitView } from '../../test/one-unit-view.js'
import { ChatContext } from '../context/chat/chat-context.js'
import { fit, fitAsync } from '../context/fit.js'
import { ContextOverflowError, InvalidInputError, InvalidOptionError } from '../errors.js'
import { type Message, messageText } from '../messages/message.js'
import { exactCounter } from '../tokens/counters.js'
import { mostRelevant, relevanceScorer } from './most-relevant.js'
import { identifiers, speakerNews } from './named-scorers.js'
import { nearby, spreadScores } from './nearby.js'
import { scoreBased } from './score-based.js'
import { relevance } from './scorers.js'
import { fuse, semantic } from './semantic.js'

const counter = exactCounter()
const sys: Message = { role: 'system', content: 'Two friends talk.' }
const user = (t: string): Message => ({ role: 'user', content: t })
const say = (t: string): Message => ({ role: 'assistant', content: t })

const view = oneUnitView

/**
 * Provider pairing rules, written from OpenAI's and Anthropic's documentation and not from
 * this library's validator: every tool result answers a call of the assistant message right
 * before the run of results, and every call of a kept assistant message has its result.
 */
function pairingProblems(messages: readonly Message[]): string[] {
  const problems: string[] = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Message
    if (m.role === 'assistant' && m.toolCalls?.length) {
      const answered = new Set<string>()
      let j = i + 1
      while (messages[j]?.role === 'tool') {
        answered.add((messages[j] as Extract<Message, { role: 'tool' }>).toolCallId)
        j++
      }
      for (const c of m.toolCalls)
        if (!answered.has(c.id)) problems.push(`${i}: ${c.id} unanswered`)
    }
    if (m.role === 'tool') {
      let k = i - 1
      while (messages[k]?.role === 'tool') k--
      const call = messages[k]
      const ids = call?.role === 'assistant' ? (call.toolCalls ?? []).map((c) => c.id) : []
      if (!ids.includes(m.toolCallId)) problems.push(`${i}: orphan result ${m.toolCallId}`)
    }
  }
  return problems
}

const filler = (n: number) =>
  Array.from({ length: n }, (_, k) =>
    k % 2
      ? say(`Sounds lovely, tell me more about day ${k}.`)
      : user(`Busy week ${k}, lots of work.`),
  )

describe('spreadScores', () => {
  it('gives the next unit `next` times a score and units within reach a decaying share, nothing beyond', () => {
    const s = [0, 0, 0, 0, 10, 0, 0, 0, 0]
    const out = spreadScores(s, { next: 0.5, weight: 0.2, reach: 2, decay: 0.5 })
    expect(out).toEqual([0, 0, 0.5, 1, 10, 5 + 1, 0.5, 0, 0])
    expect(s).toEqual([0, 0, 0, 0, 10, 0, 0, 0, 0])
  })

  it('lets silent units keep their score without lending, and zero or negative scores lend nothing', () => {
    expect(spreadScores([0, 4, 0], { next: 1, weight: 0 }, new Set([1]))).toEqual([0, 4, 0])
    expect(spreadScores([-3, 0, 0], { next: 1, weight: 1, decay: 1 })).toEqual([-3, 0, 0])
    expect(spreadScores([], {})).toEqual([])
  })

  it('refuses options out of range with a typed error naming the option', () => {
    for (const bad of [
      { next: -1 },
      { weight: Number.NaN },
      { reach: 2.5 },
      { reach: 1e9 },
      { decay: 1.5 },
      { next: '1' as unknown as number },
    ]) {
      expect(() => spreadScores([1], bad)).toThrow(InvalidOptionError)
      expect(() => nearby(relevance(), bad)).toThrow(/option nearby\./)
    }
  })
})

describe('nearby', () => {
  it('keeps the reply after the turn that matches the question, which BM25 alone drops', () => {
    const h = [
      sys,
      ...filler(30),
      user('How did the kids handle the accident?'),
      say('They were scared but we reassured them. Tough little ones.'),
      ...filler(30),
      user('How did the kids handle the accident?'),
    ]
    const answer = 32
    const last = h.length - 1
    expect(messageText(h[answer] as Message)).toMatch(/scared/)
    const budget =
      counter.countMessages([sys, h[31] as Message, h[32] as Message, h[last] as Message]) + 12
    const plain = fit(h, { strategy: scoreBased({ scorer: relevance() }), budget, counter })
    const near = fit(h, { strategy: mostRelevant(), budget, counter })
    expect(plain.kept).not.toContain(answer)
    expect(near.kept).toEqual(expect.arrayContaining([31, answer, last]))
    expect(near.tokens.total).toBeLessThanOrEqual(budget)
  })

  it('does not let the question itself pull in the turns just before it', () => {
    const h = [sys, user('Rex is our puppy'), ...filler(20), user('What is the puppy called?')]
    const s = nearby(relevance())(view(h))
    // Turn 20 sits next to the question, shares no word with it: it gets nothing.
    expect(s[20]).toBe(0)
    expect(s[1]).toBeGreaterThan(0)
  })
})

describe('identifiers', () => {
  it('marks units holding a token mixing letters and digits, five characters or more', () => {
    const h = [
      user('My booking is OI5L9G'),
      user('user id mia_li_3668 please'),
      user('Invoice INV-20931 attached'),
      user('We met on 2023-05-01 at 10:30'),
      user('Call me at 5 pm, ok? abc1'),
      user('日本語 ✈️ 𝒳𝒴𝒵 1234'),
      user(''),
      say('flight HAT084 is delayed'),
    ]
    expect(identifiers()(view(h))).toEqual([1, 1, 1, 0, 0, 0, 0, 1])
  })

  it('lifts an identifier over a turn the query barely matches, on agent traces', () => {
    const s = relevanceScorer({ query: 'change my reservation' })(
      view([
        sys,
        user('Sure, my user id is sofia_kim_7287'),
        say('What would you like to change today?'),
        user('change my reservation'),
      ]),
    )
    expect(s[1]).toBeGreaterThan(0)
    expect(() => relevanceScorer({ identifiers: -1 })).toThrow(InvalidOptionError)
  })
})

/** Words to axes: "dog" and "puppy" point the same way, which no lexical scorer knows. */
const concepts: Record<string, number> = { dog: 0, puppy: 0, hound: 0, cat: 1, kitten: 1, car: 2 }
const conceptEmbed = (texts: string[]) =>
  texts.map((t) => {
    const v = [0, 0, 0, 0]
    for (const w of t.toLowerCase().match(/\p{L}+/gu) ?? []) {
      const axis = concepts[w]
      if (axis !== undefined) v[axis] = (v[axis] as number) + 1
    }
    // A text naming no concept points along a fourth axis, away from every concept.
    if (!v.some((x) => x > 0)) v[3] = 1
    return v
  })

describe('speakerNews', () => {
  const chat = [
    sys,
    user('Ana: I just signed up for a pottery class yesterday!'),
    say('Ben: Nice. I went hiking last week.'),
    user('Ana: Thanks, you are so kind.'),
    say('Ben: Anytime.'),
    user('What does Ana do for fun?'),
  ]
  it('raises the news a speaker the query names told: an event, and when', () => {
    const s = speakerNews()(view(chat))
    expect(s).toEqual([0, 1, 0, 0, 0, 0])
    // Named in a message's `name` as well; a query naming nobody raises nothing.
    const named = [
      sys,
      { role: 'user', name: 'Ana', content: 'We went camping.' } as Message,
      user('Where did Ana camp?'),
    ]
    expect(speakerNews()(view(named))).toEqual([0, 0.6, 0])
    expect(speakerNews({ query: 'What happened?' })(view(chat)).every((x) => x === 0)).toBe(true)
  })

  it('is part of mostRelevant at weight 0.05 (speakers: 0 for none); a bad weight is refused', () => {
    const plain = relevanceScorer({ speakers: 0 })(view(chat)) as number[]
    const withNews = relevanceScorer({})(view(chat)) as number[]
    expect((withNews[1] ?? 0) - (plain[1] ?? 0)).toBeGreaterThan(0)
    expect(withNews[3]).toBeCloseTo(plain[3] ?? 0)
    expect(() => relevanceScorer({ speakers: -1 })).toThrow(InvalidOptionError)
  })
})

describe('semantic', () => {
  it('scores units by cosine similarity to the query, the best message of a unit counting', () => {
    const s = semantic({ embed: conceptEmbed })(
      view([user('We got a puppy'), user('The car broke'), user('A kitten too'), user('my dog')]),
    )
    expect(s.map((x) => Math.round(x * 1e9) / 1e9)).toEqual([1, 0, 0, 1])
  })

  it('embeds each message once, in batches, and a new question only adds itself', () => {
    const calls: string[][] = []
    const embed = (texts: string[]) => {
      calls.push(texts)
      return hashedNgrams(64)(texts)
    }
    const scorer = semantic({ embed, batchSize: 3 })
    const h = [sys, ...filler(6), user('what about day 3?')]
    scorer(view(h))
    expect(calls.every((b) => b.length <= 3)).toBe(true)
    expect(calls.flat().sort()).toEqual([...new Set(h.map(messageText))].sort())
    calls.length = 0
    const next = [...h, say('Day 3 was quiet.'), user('and day 4?')]
    scorer(view(next))
    expect(calls.flat().sort()).toEqual(['Day 3 was quiet.', 'and day 4?'])
    calls.length = 0
    scorer(view(next))
    expect(calls).toEqual([])
  })

  it('keeps vectors per message across strategies made anew (by name, each fitAsync) and in a ChatContext', async () => {
    const embedded: string[] = []
    const local = hashedNgrams(64)
    const embed = async (texts: string[]) => {
      embedded.push(...texts)
      return local(texts)
    }
    const h = [sys, ...filler(8), user('what about day 3?')]
    const options = { strategy: 'mostRelevant', embed, budget: 60, counter } as const
    const first = await fitAsync(h, options)
    expect(embedded.sort()).toEqual([...new Set(h.map(messageText))].sort())
    embedded.length = 0
    // The same messages again, with a strategy made from its name again: nothing embedded.
    expect((await fitAsync([...h], options)).kept).toEqual(first.kept)
    expect(embedded).toEqual([])
    // One more turn: only it and the new question.
    const next = [...h, say('Day 3 was quiet.'), user('and day 4?')]
    await fitAsync(next, options)
    expect(embedded.sort()).toEqual(['Day 3 was quiet.', 'and day 4?'])
    embedded.length = 0
    const context = new ChatContext(options)
    await context.addMessages(next)
    await context.getMessages()
    await context.getMessages()
    // The context keeps its own copies of the messages: each is embedded once for it.
    expect(embedded.length).toBeLessThanOrEqual(new Set(next.map(messageText)).size)
  })

  it('refuses a wrong answer from embed with a typed error, and the history is untouched', () => {
    const h = [sys, user('a puppy'), say('a car'), user('my dog')]
    const frozen = structuredClone(h)
    const bad: ((t: string[]) => number[][])[] = [
      (t) => t.slice(1).map(() => [1, 0]),
      (t) => t.map(() => [Number.NaN, 1]),
      (t) => t.map((_, k) => (k ? [1, 0] : [1, 0, 0])),
      (t) => t.map(() => []),
      () => 'vectors' as unknown as number[][],
    ]
    for (const embed of bad) {
      const budget = counter.countMessages([sys, user('my dog')]) + 5
      expect(() => fit(h, { strategy: mostRelevant({ embed }), budget, counter })).toThrow(
        /option embed/,
      )
    }
    expect(h).toEqual(frozen)
    expect(() => semantic({ embed: 3 as never })).toThrow(InvalidOptionError)
    expect(() => semantic({ embed: conceptEmbed, batchSize: 0 })).toThrow(InvalidOptionError)
  })

  /** A question whose answer shares no word with it, far back, and a budget for just it. */
  const puppy = () => {
    const h = [
      sys,
      user('We adopted a puppy from the shelter'),
      ...filler(20),
      user('Where did the dog come from?'),
    ]
    return { h, budget: counter.countMessages([sys, h[1] as Message, h[22] as Message]) + 3 }
  }

  it('with an asynchronous embed, fitAsync keeps the synonym match; plain fit says to use fitAsync', async () => {
    const embed = async (texts: string[]) => conceptEmbed(texts)
    const { h, budget } = puppy()
    const lexical = fit(h, { strategy: mostRelevant(), budget, counter })
    expect(lexical.kept).not.toContain(1)
    const fused = await fitAsync(h, { strategy: mostRelevant({ embed }), budget, counter })
    expect(fused.kept).toContain(1)
    expect(fused.tokens.total).toBeLessThanOrEqual(budget)
    // An embedding still to be made (a function that has embedded nothing yet) needs fitAsync;
    // vectors already made are kept per function and message, so the same fit then runs.
    const fresh = async (texts: string[]) => conceptEmbed(texts)
    expect(() => fit(h, { strategy: mostRelevant({ embed: fresh }), budget, counter })).toThrow(
      /fitAsync/,
    )
    expect(fit(h, { strategy: mostRelevant({ embed }), budget, counter }).kept).toEqual(fused.kept)
  })

  it('named by a string, mostRelevant embeds in fitAsync and a ChatContext; fit says how to embed there', async () => {
    const embed = (texts: string[]) => conceptEmbed(texts)
    const { h, budget } = puppy()
    const options = { strategy: 'mostRelevant', embed, budget, counter } as const
    const named = await fitAsync(h, options)
    expect(named.kept).toContain(1)
    expect(named.kept).toEqual(
      (await fitAsync(h, { strategy: mostRelevant({ embed }), budget, counter })).kept,
    )
    const context = new ChatContext(options)
    context.addMessages(h)
    expect((await context.getMessages()).length).toBe(named.messages.length)
    // A synchronous fit makes the strategy from its name without the embedding code: it says
    // where embedding by name works, and how to embed in fit (the object, with a sync embed).
    expect(() => fit(h, options)).toThrow(InvalidOptionError)
    expect(() => fit(h, options)).toThrow(/mostRelevant\(\{ embed \}\)/)
    expect(fit(h, { strategy: mostRelevant({ embed }), budget, counter }).kept).toEqual(named.kept)
    // Without embed, the named strategy is the lexical one, in fit and fitAsync alike.
    const lexical = { strategy: 'mostRelevant', budget, counter } as const
    expect(fit(h, lexical).kept).toEqual((await fitAsync(h, lexical)).kept)
    expect(fit(h, lexical).kept).toEqual(fit(h, { strategy: mostRelevant(), budget, counter }).kept)
    // No function (null) is no embedding, by name as by the object.
    expect(fit(h, { ...lexical, embed: null as never }).kept).toEqual(fit(h, lexical).kept)
  })
})

describe('fuse (reciprocal rank fusion)', () => {
  it('adds weight / (k + rank) per scorer, equal scores sharing a rank, unscored units getting nothing', () => {
    const a = () => [3, 0, 3, 1]
    const b = () => [0, 2, 0, 5]
    const s = fuse(
      [
        [a, 1],
        [b, 2],
      ],
      { k: 1 },
    )(view([user('w'), user('x'), user('y'), user('z')]))
    expect(s).toEqual([1 / 2, 2 / 3, 1 / 2, 1 / 4 + 2 / 2])
    expect(() => fuse([[a, 1]], { k: -1 })).toThrow(InvalidOptionError)
  })

  it('awaits an asynchronous part', async () => {
    const s = fuse([
      [async () => [1, 0], 1],
      [() => [0, 1], 1],
    ])(view([user('a'), user('b')]))
    expect(s).toBeInstanceOf(Promise)
    expect(await s).toEqual([1 / 61, 1 / 61])
  })
})

describe('relevance strategy on random histories', () => {
  const part = fc.oneof(
    fc.constantFrom(
      '',
      '   ',
      'refund',
      'flight HAT084',
      'id a.b.c',
      '𝒳',
      '😀',
      '__proto__',
      'OI5L9G',
    ),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
  )
  const step = fc.oneof(
    part.map((t) => user(t)),
    part.map((t) => say(t)),
    fc.tuple(part, fc.constantFrom('c.1', '__proto__', 'x')).map(([t, id]): Message[] => [
      {
        role: 'assistant',
        toolCalls: [{ id, name: 'lookup', arguments: `{"q":${JSON.stringify(t)}}` }],
      },
      { role: 'tool', toolCallId: id, content: t },
    ]),
  )
  const history = fc
    .tuple(fc.boolean(), fc.array(step, { maxLength: 30 }))
    .map(([withSystem, steps]) => [...(withSystem ? [sys] : []), ...steps.flat()])

  it('is valid, within budget and in order, or overflows with the typed error; the input is untouched', () => {
    fc.assert(
      fc.property(
        history,
        fc.integer({ min: 20, max: 800 }),
        fc.option(part, { nil: undefined }),
        fc.boolean(),
        (h, budget, query, withEmbed) => {
          const before = structuredClone(h)
          const strategy = mostRelevant({
            ...(query !== undefined && { query }),
            ...(withEmbed && { embed: hashedNgrams(32) }),
          })
          try {
            const r = fit(h, { strategy, budget, counter })
            expect(pairingProblems(r.messages)).toEqual([])
            expect(r.tokens.total).toBeLessThanOrEqual(budget)
            expect(r.kept).toEqual([...r.kept].sort((x, y) => x - y))
          } catch (e) {
            // An empty history is refused as input; anything else that does not fit overflows.
            expect(e).toBeInstanceOf(h.length === 0 ? InvalidInputError : ContextOverflowError)
          }
          expect(h).toEqual(before)
        },
      ),
      { numRuns: 150, seed: 20261122 },
    )
  })
})

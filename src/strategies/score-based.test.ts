import { describe, expect, it } from 'vitest'
import { tauBench } from '../../test/tau-bench.js'
import { fit } from '../context/fit.js'
import { HistoryIndex } from '../context/history-index.js'
import { resolveSetup } from '../context/options/options.js'
import { viewSettings } from '../context/prepare.js'
import { createView } from '../context/view.js'
import { ContextOverflowError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { errorsOf, validate } from '../providers/validate.js'
import { exactCounter } from '../tokens/counters.js'
import { terms_ } from './query-terms.js'
import { OMITTED_RESULT, scoreBased } from './score-based.js'
import { combine, pinned, recency, relevance, roleWeights } from './scorers.js'
import type { View } from './types.js'

const sys: Message = { role: 'system', content: 'You are a travel agent.' }
const user = (t: string): Message => ({ role: 'user', content: t })
const say = (t: string): Message => ({ role: 'assistant', content: t })
const counter = exactCounter()
const words = (n: number, w = 'lorem') => Array.from({ length: n }, () => w).join(' ')

describe('scoreBased (CAMEL ScoreBasedContextCreator)', () => {
  it('keeps everything, in order, when it fits', () => {
    const h = [sys, user('a'), say('b'), user('c')]
    expect(fit(h, { strategy: scoreBased(), budget: 1000 }).messages).toEqual(h)
  })

  it('takes units greedily by score and returns them in chronological order', () => {
    const h = [sys, user('old one'), say('x'), user('pinned fact'), say('y'), user('newest')]
    const scorer = combine([
      [pinned([3]), 10],
      [recency(), 1],
    ])
    const budget = counter.countMessages([sys, user('pinned fact'), user('newest')]) + 1
    const r = fit(h, { strategy: scoreBased({ scorer }), budget })
    expect(r.kept).toEqual([0, 3, 5])
  })

  it('breaks ties toward the newer unit', () => {
    const h = [sys, user('aaaa'), user('bbbb'), user('cccc'), user('end')]
    const flat = () => h.map(() => 0)
    const budget = counter.countMessages([sys, user('aaaa'), user('end')])
    const r = fit(h, { strategy: scoreBased({ scorer: flat as never }), budget })
    expect(r.kept).toEqual([0, 3, 4])
  })

  it('treats a tool exchange as one item: kept whole or not at all when it fits whole', () => {
    const call: Message = {
      role: 'assistant',
      toolCalls: [{ id: 'c', name: 'search', arguments: '{}' }],
    }
    const res: Message = { role: 'tool', toolCallId: 'c', content: 'found it' }
    const h = [sys, user('q'), call, res, say('answer'), user('thanks')]
    for (let budget = 40; budget < 120; budget += 3) {
      try {
        const r = fit(h, { strategy: scoreBased(), budget })
        expect(r.kept.includes(2)).toBe(r.kept.includes(3))
        expect(errorsOf(validate(r.messages))).toEqual([])
      } catch (e) {
        expect(e).toBeInstanceOf(ContextOverflowError)
      }
    }
  })

  it('keeps a too-large tool exchange partially: the call, the newest results that fit, stubs for the rest', () => {
    const call: Message = {
      role: 'assistant',
      toolCalls: ['a', 'b', 'c'].map((id) => ({
        id,
        name: 'fetch',
        arguments: `{"page":"${id}"}`,
      })),
    }
    const results = ['a', 'b', 'c'].map(
      (id): Message => ({
        role: 'tool',
        toolCallId: id,
        toolName: 'fetch',
        content: words(300, id),
      }),
    )
    const h = [sys, user('read the pages'), call, ...results, user('summarize')]
    const budget =
      counter.countMessages([
        sys,
        user('read the pages'),
        user('summarize'),
        call,
        results[2] as Message,
      ]) + 60
    const r = fit(h, { strategy: scoreBased(), budget })
    expect(errorsOf(validate(r.messages))).toEqual([])
    const tools = r.messages.filter((m) => m.role === 'tool')
    expect(tools.map((m) => (m.content === OMITTED_RESULT ? 'stub' : 'full'))).toEqual([
      'stub',
      'stub',
      'full',
    ])
    expect(r.changed.map((c) => [c.index, c.reason])).toEqual([
      [3, 'stubbed'],
      [4, 'stubbed'],
    ])
    expect(r.tokens.total).toBeLessThanOrEqual(budget)
  })

  it('throws a typed error when the system message alone exceeds the limit', () => {
    const big: Message = { role: 'system', content: words(400) }
    expect(() => fit([big, user('hi')], { strategy: scoreBased(), budget: 100 })).toThrow(
      /the system message alone needs/,
    )
  })

  it('throws a typed error when the system message and the newest user turn exceed the limit', () => {
    let err: unknown
    try {
      fit([sys, user(words(400))], { strategy: scoreBased(), budget: 100 })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ContextOverflowError)
    expect((err as Error).message).toMatch(/the system prompt and the newest turn need \d+ tokens/)
  })

  it('is valid for OpenAI and Anthropic and within budget on τ-bench', () => {
    for (const r of tauBench().slice(0, 60)) {
      const h = fromOpenAIChat(r.traj)
      for (const provider of ['openai', 'anthropic'] as const) {
        for (const budget of [3000, 5000]) {
          try {
            const out = fit(h, { strategy: 'mostRelevant', budget, provider })
            expect(errorsOf(validate(out.messages, { provider }))).toEqual([])
            expect(out.tokens.total).toBeLessThanOrEqual(budget)
          } catch (e) {
            expect(e).toBeInstanceOf(ContextOverflowError)
          }
        }
      }
    }
  })
})

describe('scorers', () => {
  const view = (messages: Message[], query?: string): View => {
    const index = new HistoryIndex(exactCounter(), resolveSetup({}).provider)
    index.pushAll(messages)
    return createView(index, { ...viewSettings(resolveSetup({})), query })
  }
  it('recency decays by keepRate from the newest', () => {
    expect(recency({ keepRate: 0.5 })(view([user('a'), user('b'), user('c')]))).toEqual([
      0.25, 0.5, 1,
    ])
  })
  it('relevance ranks the unit sharing the rare query words first, using the newest user message by default', () => {
    const v = view([
      user('We flew to Lisbon in May'),
      user('The weather is nice'),
      user('My dog is called Rex'),
      user('When did we fly to Lisbon?'),
    ])
    const s = relevance()(v)
    expect(s[0]).toBeGreaterThan(s[1] as number)
    expect(s[0]).toBeGreaterThan(s[2] as number)
    expect(relevance({ query: 'dog' })(v)[2]).toBeGreaterThan(0)
  })
  it('feedback finds a turn that answers in other words, through the best match', () => {
    const v = view([
      user('We adopted a puppy named Rex from the shelter'),
      user('Rex loves the shelter volunteers and chewing shoes'),
      user('The weather was nice'),
      user('What is the dog called?'),
    ])
    // "dog" is in no earlier turn: plain BM25 scores them all 0.
    expect(relevance({ query: 'What is the dog called?' })(v).slice(0, 3)).toEqual([0, 0, 0])
    const fb = relevance({ query: 'Where did the puppy come from?', feedback: true })(v)
    // Turn 1 shares no query word but shares "rex" and "shelter" with the best match.
    expect(fb[1]).toBeGreaterThan(0)
    expect(fb[1]).toBeGreaterThan(fb[2] as number)
    expect(relevance({ query: 'Where did the puppy come from?' })(v)[1]).toBe(0)
  })

  it('tokenizes with stop words out and light stemming', () => {
    expect(terms_('The flights were booked, and flying is fun!')).toEqual([
      'flight',
      'book',
      'fly',
      'fun',
    ])
  })
  it('roleWeights and combine normalise and weigh', () => {
    const v = view([sys, user('x'), say('y')])
    expect(roleWeights({ user: 2, assistant: 1 })(v)).toEqual([0, 2, 1])
    expect(combine([[roleWeights({ user: 2, assistant: 1 }), 1]])(v)).toEqual([0, 1, 0.5])
  })
})

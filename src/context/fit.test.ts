import { describe, expect, it } from 'vitest'
import { tauBench } from '../../test/tau-bench.js'
import { ContextOverflowError, InvalidInputError, InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { errorsOf, validate } from '../providers/validate.js'
import { buffered } from '../strategies/buffered.js'
import { headAndTail } from '../strategies/head-and-tail.js'
import { tokenLimited } from '../strategies/token-limited.js'
import type { Strategy, View } from '../strategies/types.js'
import { userTurns } from '../strategies/user-turns.js'
import { exactCounter, providerCounter } from '../tokens/counters.js'
import { dropThoughts } from '../transforms/drop-thoughts.js'
import { ChatContext } from './chat/chat-context.js'
import { fit, fitAsync } from './fit.js'

const sys: Message = { role: 'system', content: 'You are a careful assistant.' }
const user = (t: string): Message => ({ role: 'user', content: t })
const say = (t: string): Message => ({ role: 'assistant', content: t })
const call = (...ids: string[]): Message => ({
  role: 'assistant',
  toolCalls: ids.map((id) => ({ id, name: `fn_${id}`, arguments: `{"id":"${id}"}` })),
})
const result = (id: string, text = `result ${id}`): Message => ({
  role: 'tool',
  toolCallId: id,
  content: text,
})

/** A history of `turns` user turns, each with a parallel tool exchange and an answer. */
function history(turns: number): Message[] {
  const h: Message[] = [sys]
  for (let t = 0; t < turns; t++) {
    h.push(
      user(`question ${t} about flights and bags`),
      call(`a${t}`, `b${t}`),
      result(`a${t}`),
      result(`b${t}`),
    )
    h.push(say(`answer ${t}: your flight is confirmed`))
  }
  return h
}

const counter = exactCounter()

describe('fit: the one-call API', () => {
  it('returns sorted kept and dropped indices that partition the input', () => {
    const h = history(10)
    const r = fit(h, { budget: 300 })
    expect([...r.kept, ...r.dropped].sort((a, b) => a - b)).toEqual(h.map((_, i) => i))
    expect(r.kept).toEqual([...r.kept].sort((a, b) => a - b))
    expect(r.tokens.total).toBeLessThanOrEqual(300)
    expect(r.tokens.total).toBe(counter.countMessages(r.messages))
    expect(r.fates.filter((f) => f.fate === 'dropped').every((f) => f.reason === 'budget')).toBe(
      true,
    )
  })

  it('never mutates its input and shares no object with it', () => {
    const h = history(3)
    const copy = structuredClone(h)
    const r = fit(h, { budget: 10_000 })
    ;(r.messages[1] as { content: string }).content = 'changed'
    expect(h).toEqual(copy)
    for (const m of r.messages) expect(h).not.toContain(m)
  })

  it('accepts a strategy by name with its options beside it', () => {
    const h = history(5)
    expect(fit(h, { strategy: 'buffered', size: 5 }).messages).toHaveLength(6)
    expect(() => fit(h, { strategy: 'nope' as never })).toThrow(InvalidOptionError)
  })

  it('refuses bad options and bad messages with typed errors', () => {
    expect(() => fit(history(1), { budget: -1 })).toThrow(InvalidOptionError)
    expect(() => fit(history(1), { budget: Number.NaN })).toThrow(InvalidOptionError)
    expect(() => fit(history(1), { model: 'no-such-model' })).toThrow(/unknown model/)
    const bad = [sys, { role: 'tool', content: 'x' }] as unknown as Message[]
    expect(() => fit(bad, { budget: 1000 })).toThrow(InvalidInputError)
    expect(() => fit(bad, { budget: 1000 })).toThrow(/message 1, field toolCallId/)
  })

  it('repairs an invalid input and reports what it removed', () => {
    const h = [sys, user('q'), result('ghost'), call('x'), say('lost the result')]
    const r = fit(h, { strategy: 'unbounded' })
    expect(errorsOf(validate(r.messages))).toEqual([])
    expect(r.fates[2]).toMatchObject({ fate: 'invalid', reason: 'orphan-tool-result' })
    expect(r.fates[3]).toMatchObject({ fate: 'invalid', reason: 'missing-tool-result' })
  })

  it('counts tool schemas and the reply reserve against the budget', () => {
    const h = history(10)
    const tool = {
      name: 'book',
      description: 'Book a flight',
      parameters: { type: 'object', properties: { id: { type: 'string', description: 'flight' } } },
    }
    const plain = fit(h, { budget: 400, ledger: false })
    const withTools = fit(h, { budget: 400, ledger: false, tools: [tool], reserve: 50 })
    expect(withTools.tokens.tools).toBeGreaterThan(0)
    expect(withTools.tokens.total + withTools.tokens.reserve).toBeLessThanOrEqual(400)
    expect(withTools.messages.length).toBeLessThan(plain.messages.length)
  })

  it('uses the model window less its output reserve when only a model is given', () => {
    const r = fit(history(2), { model: 'gpt-4o' })
    expect(r.budget).toBe(128_000)
    expect(r.tokens.reserve).toBe(16_384)
  })
})

describe('tokenLimited (AutoGen TokenLimitedChatCompletionContext)', () => {
  it('keeps the newest whole units that fit, the system prompt always', () => {
    const h = history(20)
    const r = fit(h, { strategy: tokenLimited({ limit: 250 }) })
    expect(r.messages[0]).toEqual(sys)
    expect(r.kept.at(-1)).toBe(h.length - 1)
    expect(validate(r.messages)).toEqual([])
    // The kept tail is contiguous: a suffix of the history after the preamble.
    const tail = r.kept.slice(1)
    expect(tail).toEqual(tail.map((_, k) => (tail[0] as number) + k))
    expect(r.tokens.total).toBeLessThanOrEqual(250)
  })

  it('regression: never leaves a tool result without its call (AutoGen drops single messages)', () => {
    const h = history(20)
    for (let limit = 60; limit < 600; limit += 7) {
      const r = fit(h, { strategy: tokenLimited({ limit }) })
      expect(errorsOf(validate(r.messages)), `limit ${limit}`).toEqual([])
    }
  })

  it('throws ContextOverflowError with the numbers when the system prompt and newest turn do not fit', () => {
    const h = [sys, user('x '.repeat(500))]
    let error: ContextOverflowError | undefined
    try {
      fit(h, { budget: 100 })
    } catch (e) {
      error = e as ContextOverflowError
    }
    expect(error).toBeInstanceOf(ContextOverflowError)
    expect(error?.budget).toBe(100)
    expect(error?.required).toBe(counter.countMessages(h))
    expect(error?.breakdown.system).toBe(counter.countMessage(sys))
  })

  it('dropFrom middle keeps the oldest and the newest and drops between them', () => {
    const h = history(20)
    const r = fit(h, { strategy: tokenLimited({ limit: 400, dropFrom: 'middle' }) })
    expect(r.kept).toContain(1)
    expect(r.kept).toContain(h.length - 1)
    expect(r.dropped.length).toBeGreaterThan(0)
    expect(r.dropped[0]).toBeGreaterThan(1)
    expect(errorsOf(validate(r.messages))).toEqual([])
    expect(r.tokens.total).toBeLessThanOrEqual(400)
  })

  it('under Anthropic rules starts the kept part at a user message', () => {
    const h = history(20)
    // Claude's estimate (the default counter under Anthropic rules) needs more than 80 tokens.
    for (let limit = 160; limit < 900; limit += 13) {
      const r = fit(h, { budget: limit, provider: 'anthropic' })
      expect(errorsOf(validate(r.messages, { provider: 'anthropic' })), `limit ${limit}`).toEqual(
        [],
      )
    }
  })
})

describe('buffered (AutoGen BufferedChatCompletionContext)', () => {
  it('keeps the last size messages besides the system prompt', () => {
    const h = history(4)
    const r = fit(h, { strategy: buffered({ size: 5 }) })
    expect(r.kept).toEqual([0, ...h.slice(-5).map((_, k) => h.length - 5 + k)])
  })
  it('regression: never opens with a tool result when size ends inside an exchange', () => {
    const h = history(4)
    const r = fit(h, { strategy: buffered({ size: 3 }) })
    // The newest 3 would be [result, result, answer]: the exchange is left out whole.
    expect(r.messages.map((m) => m.role)).toEqual(['system', 'assistant'])
    expect(validate(r.messages)).toEqual([])
  })
  it('refuses a size that is not a positive whole number', () => {
    expect(() => buffered({ size: 0 })).toThrow(InvalidOptionError)
    expect(() => buffered({ size: 2.5 })).toThrow(InvalidOptionError)
  })
})

describe('headAndTail (AutoGen HeadAndTailChatCompletionContext)', () => {
  it('keeps head and tail with one placeholder that counts the skipped messages exactly', () => {
    const h = history(6)
    const r = fit(h, { strategy: headAndTail({ head: 2, tail: 5 }) })
    const placeholder = r.inserted[0]
    expect(r.inserted).toHaveLength(1)
    // head: user + (exchange of 3 does not fit in 2) -> 1 message; tail: the last 5.
    expect(placeholder?.replaces).toHaveLength(h.length - 1 - 1 - 5)
    expect(placeholder?.message.content).toBe(`Skipped ${h.length - 7} messages.`)
    expect(r.fates[placeholder?.replaces[0] as number]?.fate).toBe('summarized')
    expect(errorsOf(validate(r.messages))).toEqual([])
  })
  it('regression: a head ending inside a tool exchange and a tail starting inside one are cut at unit edges', () => {
    const h = history(6)
    for (let head = 0; head < 8; head++) {
      for (let tail = 0; tail < 8; tail++) {
        const r = fit(h, { strategy: headAndTail({ head, tail }) })
        expect(errorsOf(validate(r.messages)), `${head}/${tail}`).toEqual([])
        const skipped = r.inserted[0]?.replaces.length ?? 0
        expect(r.messages.length - r.inserted.length + skipped).toBe(h.length)
      }
    }
  })
  it('inserts no placeholder when head and tail cover everything', () => {
    expect(fit(history(1), { strategy: headAndTail({ head: 10, tail: 10 }) }).inserted).toEqual([])
  })
  it('accepts a placeholder template or function', () => {
    const r = fit(history(6), {
      strategy: headAndTail({ head: 1, tail: 1, placeholder: (n) => `[${n} earlier]` }),
    })
    expect(r.inserted[0]?.message.content).toMatch(/^\[\d+ earlier\]$/)
  })
})

describe('userTurns (agentflow MessageContextManager)', () => {
  it('keeps the last maxTurns user turns, cut at a user message, and the system message', () => {
    const h = history(5)
    const r = fit(h, { strategy: userTurns({ maxTurns: 2 }) })
    expect(r.messages[0]).toEqual(sys)
    expect(r.messages[1]).toEqual(h[h.length - 10])
    expect(r.messages).toHaveLength(11)
  })
  it('keeps later system messages in their place', () => {
    const h = [
      ...history(3),
      { role: 'system', content: 'Be brief now.' } as Message,
      ...history(2).slice(1),
    ]
    const r = fit(h, { strategy: userTurns({ maxTurns: 1 }) })
    expect(r.messages.map((m) => m.role)).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ])
  })
  it('removeToolExchanges takes out completed exchanges of earlier turns and keeps the answers', () => {
    const h = history(3)
    const r = fit(h, { strategy: userTurns({ maxTurns: 3, removeToolExchanges: true }) })
    expect(r.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ])
    expect(validate(r.messages)).toEqual([])
  })
  it('a budget still applies to a strategy that does not count', () => {
    const r = fit(history(10), { strategy: userTurns({ maxTurns: 10 }), budget: 300 })
    expect(r.tokens.total).toBeLessThanOrEqual(300)
    expect(errorsOf(validate(r.messages))).toEqual([])
  })
})

describe('dropThoughts', () => {
  it('removes reasoning from all but the newest keepLast assistant messages', () => {
    const h: Message[] = [
      sys,
      user('q'),
      { role: 'assistant', content: 'a', thought: 'long reasoning' },
      user('q2'),
      { role: 'assistant', content: 'b', thought: 'more' },
    ]
    const r = fit(h, { strategy: 'unbounded', transforms: [dropThoughts({ keepLast: 1 })] })
    expect(r.messages[2]).not.toHaveProperty('thought')
    expect(r.messages[4]).toHaveProperty('thought', 'more')
    expect(r.changed).toEqual([{ index: 2, position: 2, reason: 'thought-dropped' }])
    expect(h[2]).toHaveProperty('thought', 'long reasoning')
  })
})

describe('every strategy on every τ-bench trajectory', () => {
  const strategies = {
    tokenLimited: () => tokenLimited(),
    middle: () => tokenLimited({ dropFrom: 'middle' }),
    buffered: () => buffered({ size: 8 }),
    headAndTail: () => headAndTail({ head: 2, tail: 6 }),
    userTurns: () => userTurns({ maxTurns: 2 }),
    userTurnsNoTools: () => userTurns({ maxTurns: 3, removeToolExchanges: true }),
  }
  it('returns a list valid for OpenAI and Anthropic and within budget, or a typed overflow, at 500 to 8000 tokens', () => {
    const trajectories = tauBench().map((r) => fromOpenAIChat(r.traj))
    let fitted = 0
    let overflowed = 0
    for (const [name, make] of Object.entries(strategies)) {
      for (const given of [500, 1000, 2000, 4000, 8000]) {
        for (const [k, h] of trajectories.entries()) {
          for (const provider of ['openai', 'anthropic'] as const) {
            // Claude's estimate counts about twice o200k: twice the budget under Anthropic rules.
            const budget = provider === 'anthropic' ? 2 * given : given
            try {
              const r = fit(h, { strategy: make(), budget, provider })
              const where = `${name} ${budget} ${provider} #${k}`
              expect(errorsOf(validate(r.messages, { provider })), where).toEqual([])
              expect(r.tokens.total, where).toBeLessThanOrEqual(budget)
              // Under Anthropic rules with no model, counted as Claude is estimated.
              const counted = provider === 'anthropic' ? providerCounter('anthropic') : counter
              expect(r.tokens.total).toBe(counted.countMessages(r.messages))
              fitted++
            } catch (e) {
              if (!(e instanceof ContextOverflowError)) throw e
              expect(e.required).toBeGreaterThan(budget)
              overflowed++
            }
          }
        }
      }
    }
    // The airline policy alone is about 2,000 tokens: small budgets overflow, large ones fit.
    expect(fitted).toBeGreaterThan(overflowed)
    // 12,000 fits: about 40 s alone on two cores, more beside the other test files.
  }, 240_000)
})

describe('a strategy that answers only asynchronously, asked for a synchronous answer', () => {
  const h = [sys, user('question'), say('answer'), user('next question')]
  const refusal = (call: () => unknown): InvalidOptionError => {
    try {
      call()
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidOptionError)
      return e as InvalidOptionError
    }
    throw new Error('not refused')
  }
  const waits = (async: boolean | undefined): Strategy => ({
    name: 'waits',
    options: {},
    budgetAware: false,
    ...(async === undefined ? {} : { async }),
    select: async (view: View) => view.messages.map((_, index) => ({ index })),
  })

  it('is refused in one wording by name, by flag, by promise and by a ChatContext, naming the call to use', async () => {
    const byName = refusal(() => fit(h, { strategy: 'summarizing', budget: 1000 }))
    const byFlag = refusal(() => fit(h, { strategy: waits(true), budget: 1000 }))
    const byPromise = refusal(() => fit(h, { strategy: waits(undefined), budget: 1000 }))
    const context = new ChatContext({ strategy: waits(true), budget: 1000 })
    await context.addMessages(h)
    const sync = refusal(() => context.getMessagesSync())
    const account = refusal(() => context.fit())
    for (const e of [byName, byFlag, byPromise, sync, account]) expect(e.option).toBe('strategy')
    expect(byName.message).toBe('option strategy: summarizing is asynchronous: use fitAsync')
    expect(byFlag.message).toBe('option strategy: waits is asynchronous: use fitAsync')
    expect(byPromise.message).toBe(byFlag.message)
    expect(account.message).toBe(byFlag.message)
    expect(sync.message).toBe('option strategy: waits is asynchronous: use getMessages')
  })

  it('one that says it never waits but returns a promise is refused alike by fitAsync and a ChatContext', async () => {
    const liar = waits(false)
    await expect(fitAsync(h, { strategy: liar, budget: 1000 })).rejects.toThrow(
      /waits declares async: false, but its select returned a promise/,
    )
    const context = new ChatContext({ strategy: liar, budget: 1000 })
    await context.addMessages(h)
    await expect(context.fitAsync()).rejects.toThrow(
      /waits declares async: false, but its select returned a promise/,
    )
    // Without the flag the same strategy is awaited, on a copy of the view.
    expect((await fitAsync(h, { strategy: waits(undefined), budget: 1000 })).kept).toEqual([
      0, 1, 2, 3,
    ])
  })
})

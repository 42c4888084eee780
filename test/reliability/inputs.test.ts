// Hostile and odd inputs: each gets a typed error or a right result, never a crash, a hang
// or a silent misreading.
import { describe, expect, it } from 'vitest'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { withContextRetry } from '../../src/context/chat/retry.js'
import { fit } from '../../src/context/fit.js'
import { parseOverflowError } from '../../src/context/limits/overflow-error.js'
import { InvalidInputError, InvalidOptionError, InvalidStateError } from '../../src/errors.js'
import { detectFormat } from '../../src/formats/detect.js'
import { fromLangChain } from '../../src/formats/langchain.js'
import type { Message } from '../../src/messages/message.js'
import { fromOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { memoryStore } from '../../src/store/memory-store.js'
import { exactCounter } from '../../src/tokens/counters.js'

function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  let at = root
  for (let k = 0; k < depth; k++) {
    const next: Record<string, unknown> = {}
    at.x = next
    at = next
  }
  return root
}

describe('values nested thousands deep', () => {
  const deep: Message = {
    role: 'user',
    content: 'hi',
    providerMetadata: { 'openai-chat': { extra: nested(5000) } },
  }
  it('fit: InvalidInputError naming the message and field, not a RangeError', () => {
    const err = (() => {
      try {
        fit([deep])
      } catch (e) {
        return e
      }
    })()
    expect(err).toBeInstanceOf(InvalidInputError)
    expect((err as InvalidInputError).index).toBe(0)
    expect((err as InvalidInputError).field).toMatch(/^providerMetadata\.openai-chat\.extra/)
  })
  it('ChatContext.addMessages: the same typed error', async () => {
    await expect((async () => new ChatContext().addMessages([deep]))()).rejects.toThrow(
      InvalidInputError,
    )
  })
  it('a field outside the schema, nested deep or containing itself, is refused too', () => {
    const cyclic: Record<string, unknown> = { role: 'user', content: 'x' }
    cyclic.self = cyclic
    expect(() => fit([cyclic as Message])).toThrow(/contains itself/)
    expect(() => fit([{ role: 'user', content: 'x', extra: nested(5000) } as Message])).toThrow(
      InvalidInputError,
    )
  })
  it('a value shared by two fields is plain data, and 100 levels are fine', () => {
    const shared = { k: 1 }
    const m = {
      role: 'user',
      content: 'x',
      providerMetadata: { a: { s: shared, t: shared, deep: nested(90) } },
    } as Message
    expect(fit([m], { strategy: 'unbounded' }).messages).toHaveLength(1)
  })
})

describe('sparse lists', () => {
  const S: Message = { role: 'system', content: 'policy' }
  const U: Message = { role: 'user', content: 'hello' }
  // A hole is skipped by map and forEach: each entry point must still see it.
  const holed = (a: Message, b: Message) => {
    const list: Message[] = [a, b]
    list.length = 3
    list[2] = b
    delete (list as unknown as Record<number, unknown>)[1]
    return list
  }
  it('fit, ChatContext initial messages and addMessages name the hole with a typed error', async () => {
    const list = holed(S, U)
    expect(1 in list).toBe(false)
    for (const run of [
      () => fit(list),
      () => new ChatContext({ initialMessages: list }),
      () => new ChatContext({}).addMessages(holed(U, U)),
    ]) {
      let caught: unknown
      try {
        await run()
      } catch (e) {
        caught = e
      }
      expect(caught).toBeInstanceOf(InvalidInputError)
      expect((caught as InvalidInputError).index).toBe(1)
    }
  })
})

describe('names that are properties of every object', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])(
    'OpenAI role %s: InvalidInputError naming the role',
    (role) => {
      const input = JSON.parse(`[{"role": ${JSON.stringify(role)}, "content": "x"}]`)
      expect(() => fromOpenAIChat(input)).toThrow(InvalidInputError)
      expect(() => fromOpenAIChat(input)).toThrow(/unknown role/)
    },
  )
  it.each([
    [{ type: 'constructor', data: { content: 'x' } }],
    [{ type: 'toString', data: { content: 'x' } }],
    [{ type: '__proto__', data: { content: 'x' } }],
    [
      {
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'messages', 'constructor'],
        kwargs: { content: 'x' },
      },
    ],
    [
      {
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'messages', 'toString'],
        kwargs: { content: 'x' },
      },
    ],
  ])('LangChain %j: refused, not read as an assistant message', (raw) => {
    expect(() => fromLangChain([raw])).toThrow(InvalidInputError)
  })
})

describe('detectFormat', () => {
  it('an OpenAI tool message with text parts is OpenAI chat, not AI SDK', () => {
    const json = [
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'sunny' }] },
    ]
    expect(detectFormat(json)).toBe('openai-chat')
    const ai = [
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'w',
            output: { type: 'text', value: 'x' },
          },
        ],
      },
    ]
    expect(detectFormat(ai)).toBe('ai-sdk')
  })
})

describe('provider errors', () => {
  it('parseOverflowError reads a 1.4 MB message in linear time (a hang guard)', () => {
    const filler = 'maximum context length is 8192 tokens '.repeat(36_000)
    // The limit alone, 36,000 times over, and no figure for the request: read in one pass.
    expect(parseOverflowError({ message: filler })).toEqual({ provider: 'openai', limit: 8192 })
    const text = `${'x '.repeat(700_000)}This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.`
    expect(parseOverflowError(text)).toMatchObject({
      provider: 'openai',
      limit: 8192,
      actual: 9000,
    })
  }, 5_000)

  it('a cyclic error body: the caller gets the provider error, not a TypeError', async () => {
    const ctx = new ChatContext({ budget: 1000 })
    await ctx.addMessage({ role: 'user', content: 'hi' })
    const body: Record<string, unknown> = { error: { message: 'bad gateway' } }
    body.self = body
    const providerError = Object.assign(new Error('502 upstream'), { body })
    await expect(withContextRetry(async () => Promise.reject(providerError), ctx)).rejects.toBe(
      providerError,
    )
    // A cyclic body that does say "too long" is still read.
    const tooLong = {
      message: 'x',
      body: { error: { message: 'prompt is too long: 1200 tokens > 1000 maximum' } },
    }
    ;(tooLong.body as Record<string, unknown>).self = tooLong.body
    expect(parseOverflowError(tooLong)).toMatchObject({
      provider: 'anthropic',
      actual: 1200,
      limit: 1000,
    })
  })
})

describe('usage reports cannot push a view over its budget', () => {
  it.each([12, 0.001, 1e9, Number.NaN, -5, Number.POSITIVE_INFINITY])(
    'promptTokens %s',
    async (promptTokens) => {
      const counter = exactCounter()
      const ctx = new ChatContext({ budget: 1000, counter })
      for (let k = 0; k < 60; k++)
        await ctx.addMessage({
          role: k % 2 ? 'assistant' : 'user',
          content: `message ${k} about flights, refunds and baggage allowances`,
        })
      await ctx.getMessages()
      ctx.recordUsage({ promptTokens })
      const view = await ctx.getMessages()
      expect(counter.countMessages(view)).toBeLessThanOrEqual(1000)
      expect(ctx.usageFactor).toBeGreaterThanOrEqual(1)
    },
  )
  it('a bad margin is an option error', () => {
    expect(() =>
      new ChatContext({ budget: 100 }).recordUsage({ promptTokens: 10 }, { margin: -1 }),
    ).toThrow(InvalidOptionError)
  })
})

describe('withContextRetry with bad options', () => {
  it.each([
    ['margin', { margin: -1 }],
    ['margin', { margin: 2.5 }],
    ['margin', { margin: Number.NaN }],
    ['margin', { margin: '10' }],
    ['budget', { budget: 0 }],
    ['budget', { budget: Number.POSITIVE_INFINITY }],
  ])(
    'refuses %s %o before the model is called, even when the call succeeds',
    async (option, bad) => {
      const ctx = new ChatContext({ budget: 1000 })
      await ctx.addMessage({ role: 'user', content: 'hi' })
      let calls = 0
      const call = async () => {
        calls++
        return 'reply'
      }
      const attempt = withContextRetry(call, ctx, bad as never)
      await expect(attempt).rejects.toThrow(InvalidOptionError)
      await expect(attempt).rejects.toMatchObject({ option })
      expect(calls).toBe(0)
    },
  )
  it('takes its margin off the window a rejection gives', async () => {
    const ctx = new ChatContext({ budget: 100_000 })
    for (let k = 0; k < 40; k++)
      await ctx.addMessage({ role: k % 2 ? 'assistant' : 'user', content: `turn ${k} `.repeat(20) })
    let calls = 0
    const r = await withContextRetry(
      async (m) => {
        if (calls++ === 0) throw new Error('prompt is too long: 3000 tokens > 2000 maximum')
        return m.length
      },
      ctx,
      { margin: 100 },
    )
    expect(ctx.learnedLimit).toBeLessThanOrEqual(1900)
    expect(r.retried?.budget).toBe(ctx.learnedLimit)
    expect(r.value).toBeLessThan(40)
  })
  it('takes good options', async () => {
    const ctx = new ChatContext({ budget: 1000 })
    await ctx.addMessage({ role: 'user', content: 'hi' })
    const r = await withContextRetry(async (m) => m.length, ctx, { margin: 0, budget: 900 })
    expect(r).toEqual({ value: 1 })
  })
})

describe('ChatContext.fromState with bad settings', () => {
  const state = (options: Record<string, unknown>) => ({
    type: 'context-window/chat-context',
    version: 1,
    messages: [{ role: 'user', content: 'hi' }],
    settings: { budget: 1000, strategy: { name: 'tokenLimited', options } },
  })
  it.each([
    [{ counter: {} }],
    [{ transforms: 'x' }],
    [{ store: {} }],
    [{ dropFrom: 'sideways' }],
    [{ reserve: -1 }],
  ])('%j: InvalidStateError', (options) => {
    expect(() => ChatContext.fromState(state(options))).toThrow(InvalidStateError)
  })
  it('an unknown strategy name too', () => {
    const s = state({})
    s.settings.strategy.name = 'noSuchStrategy'
    expect(() => ChatContext.fromState(s)).toThrow(InvalidStateError)
  })
})

describe("fit's default strategy takes dropFrom", () => {
  const h: Message[] = Array.from({ length: 40 }, (_, k) => ({
    role: k % 2 ? 'assistant' : 'user',
    content: `turn ${k}: ${'words about the trip '.repeat(5)}`,
  }))
  it("'middle' keeps the oldest and the newest", () => {
    const r = fit(h, { budget: 600, dropFrom: 'middle' })
    expect(r.kept[0]).toBe(0)
    expect(r.kept[r.kept.length - 1]).toBe(39)
    expect(r.dropped.length).toBeGreaterThan(0)
    const oldest = fit(h, { budget: 600 })
    expect(oldest.kept[0]).toBeGreaterThan(0)
  })
  it("'sideways' is refused", () => {
    expect(() => fit(h, { budget: 600, dropFrom: 'sideways' as 'oldest' })).toThrow(
      InvalidOptionError,
    )
    expect(() => fit(h, { dropFrom: 'sideways' as 'oldest' })).toThrow(InvalidOptionError)
  })
})

describe('a bad message added to a context is named by the position it would take', () => {
  /** The error, whether thrown at once or by the returned promise. */
  async function errorOf(add: () => Promise<void>): Promise<InvalidInputError> {
    try {
      await add()
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidInputError)
      return e as InvalidInputError
    }
    throw new Error('no error')
  }
  const user = (text: string): Message => ({ role: 'user', content: text })

  it.each([undefined, 'auto', 'openai-chat'] as const)(
    'in an empty context (format %s): message 0, then the index in the list',
    async (format) => {
      const ctx = new ChatContext(format ? { format } : {})
      const one = await errorOf(() => ctx.addMessage(undefined as never))
      expect(one.index).toBe(0)
      expect(one.message).toMatch(/^message 0, field /)
      expect(one.message).not.toMatch(/undefined undefined/)
      expect((await errorOf(() => ctx.addMessages([user('a'), 5] as never))).index).toBe(1)
      expect((await errorOf(() => ctx.addMessages([undefined] as never))).index).toBe(0)
      await ctx.addMessages([user('a'), user('b')])
      expect((await errorOf(() => ctx.addMessage(null as never))).index).toBe(2)
      expect(ctx.length).toBe(2)
    },
  )

  it('over a store: after the initial messages and the writes not read back yet', async () => {
    const ctx = new ChatContext({
      store: memoryStore(),
      id: 'c',
      initialMessages: [{ role: 'system', content: 'policy' }],
    })
    expect((await errorOf(() => ctx.addMessage(undefined as never))).index).toBe(1)
    await ctx.addMessage(user('a'))
    expect((await errorOf(() => ctx.addMessage(undefined as never))).index).toBe(2)
    const late = ctx.addMessages([user('b'), user('c')])
    expect((await errorOf(() => ctx.addMessages([user('d'), {}] as never))).index).toBe(5)
    await late
    await ctx.sync()
    expect(ctx.length).toBe(4)
    expect((await errorOf(() => ctx.addMessages([user('d'), {}] as never))).index).toBe(5)
  })
})

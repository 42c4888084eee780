import { describe, expect, it } from 'vitest'
import { dumpComponent, loadComponent } from '../../config/component.js'
import { InvalidOptionError, InvalidStateError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { type StableOptions, tokenLimited } from '../../strategies/token-limited.js'
import type { Strategy } from '../../strategies/types.js'
import { ChatContext } from '../chat/chat-context.js'
import { fit } from '../fit.js'

const h: Message[] = [{ role: 'system', content: 'You help. 𝒜' }]
for (let i = 0; i < 30; i++)
  h.push(
    { role: 'user', content: `question ${i} 📦 ${'words '.repeat(20)}` },
    { role: 'assistant', content: i === 7 ? ' \n ' : `answer ${i} ${'more '.repeat(20)}` },
  )
h.push({ role: 'user', content: 'last question' })

/** The error a call throws, which must be an `InvalidOptionError` or a state's. */
function refusal(call: () => unknown): Error {
  try {
    call()
  } catch (e) {
    expect(e instanceof InvalidOptionError || e instanceof InvalidStateError).toBe(true)
    return e as Error
  }
  throw new Error('not refused')
}

describe('how tokenLimited cuts (dropFrom, stable): one definition, every way it is given', () => {
  it('a component config of tokenLimited with stable loads back and fits the same', () => {
    const strategy = tokenLimited({ stable: { lowWater: 0.6 }, dropFrom: 'oldest' })
    const config = JSON.parse(JSON.stringify(dumpComponent(strategy)))
    const loaded = loadComponent(config) as Strategy
    expect(loaded.name).toBe('tokenLimited')
    expect(loaded.options).toEqual({ stable: { lowWater: 0.6 }, dropFrom: 'oldest' })
    expect(fit(h, { strategy: loaded, budget: 900 }).kept).toEqual(
      fit(h, { strategy, budget: 900 }).kept,
    )
  })

  it('a context config with the default strategy keeps stable and dropFrom through dump and load', async () => {
    const ctx = new ChatContext({ budget: 900, stable: { evictAtLeast: 200 }, dropFrom: 'middle' })
    await ctx.addMessages(h)
    const config = JSON.parse(JSON.stringify(dumpComponent(ctx)))
    expect(config.config).toMatchObject({ stable: { evictAtLeast: 200 }, dropFrom: 'middle' })
    const loaded = loadComponent(config) as ChatContext
    await loaded.addMessages(h)
    expect(loaded.getMessagesSync()).toEqual(ctx.getMessagesSync())
  })

  it('a wrong dropFrom is refused the same way by every door, budget or none', () => {
    const bad = { dropFrom: 'newest' as 'oldest' }
    const messages = [
      refusal(() => tokenLimited(bad)),
      refusal(() => fit(h, { budget: 900, ...bad })),
      refusal(() => fit(h, { strategy: 'tokenLimited', budget: 900, ...bad })),
      refusal(() => new ChatContext(bad)),
    ].map((e) => e.message)
    for (const m of messages)
      expect(m).toBe('option dropFrom: expected "oldest" or "middle", got "newest"')
    const state = { ...new ChatContext().saveState(), settings: { provider: 'openai', ...bad } }
    expect(refusal(() => ChatContext.fromState(state)).message).toMatch(/settings\.dropFrom/)
  })

  it('a misspelt or malformed stable is refused, naming the closest field, even with no budget', () => {
    const typo = { stable: { lowWatr: 0.5 } as StableOptions }
    for (const e of [
      refusal(() => tokenLimited(typo)),
      refusal(() => fit(h, { budget: 900, ...typo })),
      refusal(() => new ChatContext(typo)),
    ])
      expect(e.message).toMatch(/lowWatr.*did you mean "lowWater"/)
    expect(refusal(() => tokenLimited({ stable: 'yes' as never })).message).toMatch(
      /stable expects an object/,
    )
    expect(refusal(() => tokenLimited({ stable: { lowWater: 1.5 } })).message).toMatch(
      /stable\.lowWater: expected a fraction in \(0, 1\)/,
    )
    expect(refusal(() => new ChatContext({ stable: { evictAtLeast: -3 } })).message).toMatch(
      /stable\.evictAtLeast/,
    )
    // The key is named as given, never a credential pasted as one.
    const secret = { stable: { 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD': 1 } as never }
    expect(refusal(() => tokenLimited(secret)).message).not.toContain('abcdefghijklmnop')
  })
})

describe("a context's settings: one schema for saved states and component configs", () => {
  it('a context config keeps every setting a saved state keeps: recall and the ledger too', async () => {
    const withCalls: Message[] = [h[0] as Message]
    for (let i = 0; i < 20; i++)
      withCalls.push(
        { role: 'user', content: `order A${i}? ${'words '.repeat(10)}` },
        {
          role: 'assistant',
          toolCalls: [{ id: `c.${i}`, name: 'lookup', arguments: `{"order":"A${i}"}` }],
        },
        { role: 'tool', toolCallId: `c.${i}`, content: `A${i} shipped to u${i}@example.com` },
        { role: 'assistant', content: `A${i} shipped.` },
      )
    withCalls.push({ role: 'user', content: 'and the first?' })
    const options = { budget: 900, recall: { maxMessages: 4 }, ledger: { share: 0.4 } }
    const ctx = new ChatContext(options)
    await ctx.addMessages(withCalls)
    const config = JSON.parse(JSON.stringify(dumpComponent(ctx)))
    const loaded = loadComponent(config) as ChatContext
    await loaded.addMessages(withCalls)
    expect(loaded.saveState().settings).toEqual(ctx.saveState().settings)
    expect(loaded.saveState().settings?.recall).toEqual({ maxMessages: 4 })
    const sent = loaded.getMessagesSync()
    expect(sent).toEqual(ctx.getMessagesSync())
    // The ledger written with recall on tells the model it may ask for what was left out.
    expect(sent).toEqual(fit(withCalls, options).messages)
  })
})

import { describe, expect, it } from 'vitest'
import type { Message } from '../../messages/message.js'
import { fromGemini, toGemini } from '../../providers/gemini/codec.js'
import { fit } from '../fit.js'
import { ChatContext } from './chat-context.js'
import { withContextRetry } from './retry.js'

/**
 * A conversation with tool calls: dotted ids, astral characters, a hostile
 * key in a tool's arguments, white space only in one answer.
 */
function toolHistory(turns: number): Message[] {
  const h: Message[] = [{ role: 'system', content: 'You answer questions about orders.' }]
  for (let i = 0; i < turns; i++) {
    h.push({ role: 'user', content: `Where is order #A${1000 + i}? 📦 𝒜 ${'details '.repeat(6)}` })
    h.push({
      role: 'assistant',
      toolCalls: [
        {
          id: `call.${i}.v1`,
          name: 'lookup',
          arguments: `{"__proto__":{"x":1},"order":"A${1000 + i}"}`,
        },
      ],
    })
    h.push({
      role: 'tool',
      toolCallId: `call.${i}.v1`,
      content: `order A${1000 + i}: shipped to user${i}@example.com on 2024-03-${String((i % 28) + 1).padStart(2, '0')}`,
    })
    h.push({ role: 'assistant', content: i === 3 ? '   ' : `Order A${1000 + i} has shipped.` })
  }
  h.push({ role: 'user', content: 'And the first one? 🙂' })
  return h
}

describe('a default context is the default context however it got its budget', () => {
  const h = toolHistory(40)

  it('saved before it had a budget and restored with one: as made with that budget, ledger and all', async () => {
    const unbudgeted = new ChatContext()
    await unbudgeted.addMessages(h)
    const state = JSON.parse(JSON.stringify(unbudgeted.saveState()))
    // What the caller gave: nothing about a ledger, so nothing is saved of one.
    expect(state.settings).not.toHaveProperty('ledger')
    const restored = ChatContext.fromState(state, { budget: 1500 })
    const made = new ChatContext({ budget: 1500 })
    await made.addMessages(h)
    const sent = restored.getMessagesSync()
    expect(sent).toEqual(made.getMessagesSync())
    expect(sent).toEqual(fit(h, { budget: 1500 }).messages)
    // The default trims, and with tool calls in the history it writes a ledger of what it left out.
    expect(sent.length).toBeLessThan(h.length)
    expect(restored.fit().inserted.length).toBe(1)
    expect(sent.at(-1)).toEqual(h.at(-1))
  })

  it('a ledger the caller turned off stays off after a restore', async () => {
    const off = new ChatContext({ ledger: false })
    await off.addMessages(h)
    const state = JSON.parse(JSON.stringify(off.saveState()))
    expect(state.settings.ledger).toBe(false)
    const restored = ChatContext.fromState(state, { budget: 1500 })
    expect(restored.fit().inserted).toEqual([])
    expect(restored.getMessagesSync()).toEqual(fit(h, { budget: 1500, ledger: false }).messages)
  })

  it('in Gemini format with no model or budget, a window learnt from a rejection is trimmed to', async () => {
    const contents = toGemini(h).contents
    const ctx = new ChatContext({ format: 'gemini', provider: 'gemini' })
    await ctx.addMessages(contents)
    const history = fromGemini(contents)
    let calls = 0
    const { value, retried } = await withContextRetry(async (messages) => {
      calls++
      if (calls === 1) {
        const counted = (await ctx.fitAsync()).tokens.total
        throw new Error(
          `The input token count (${counted}) exceeds the maximum number of tokens allowed (4000).`,
        )
      }
      return messages
    }, ctx)
    expect(calls).toBe(2)
    expect(retried?.budget).toBe(4000)
    expect(ctx.learnedLimit).toBe(4000)
    const expected = fit(history, { budget: 4000, provider: 'gemini' })
    expect(value).toEqual(expected.messages)
    expect(expected.tokens.total).toBeLessThanOrEqual(4000)
    expect(value.length).toBeLessThan(history.length)
    // Gemini's own rules for what is sent: turns by user or model only, the newest turn the user's.
    const sent = toGemini(value).contents
    for (const c of sent) expect(['user', 'model']).toContain(c.role)
    expect(sent.at(-1)?.role).toBe('user')
    expect(sent.at(-1)).toEqual(contents.at(-1))
    // A view asked with its own budget trims too.
    expect(await ctx.getMessages({ budget: 2000 })).toEqual(
      fit(history, { budget: 2000, provider: 'gemini' }).messages,
    )
  })

  it('restored with the window it learnt, it trims to it', async () => {
    const ctx = new ChatContext({ provider: 'gemini' })
    await ctx.addMessages(h)
    await ctx.learnLimit(3000)
    const restored = ChatContext.fromState(JSON.parse(JSON.stringify(ctx.saveState())))
    expect(restored.learnedLimit).toBe(3000)
    expect(restored.getMessagesSync()).toEqual(
      fit(h, { budget: 3000, provider: 'gemini' }).messages,
    )
  })
})

describe('a saved state keeps what the caller gave, not what was made of it', () => {
  const h = toolHistory(40)

  it('the budget given, not a window learnt or a strategy limit: forgetting the window after a restore brings the budget back', async () => {
    const ctx = new ChatContext({ budget: 8000 })
    await ctx.addMessages(h)
    await ctx.learnLimit(3000)
    const state = JSON.parse(JSON.stringify(ctx.saveState()))
    expect(state.settings.budget).toBe(8000)
    const restored = ChatContext.fromState(state)
    expect(restored.getMessagesSync()).toEqual(fit(h, { budget: 3000 }).messages)
    await restored.forgetLimit()
    expect(restored.getMessagesSync()).toEqual(fit(h, { budget: 8000 }).messages)
  })

  it('saved with recall on, restored with it off: the recall tool is not sent', async () => {
    const tool = { name: 'lookup', description: 'Finds an order', parameters: { type: 'object' } }
    const ctx = new ChatContext({ budget: 1500, recall: true, tools: [tool] })
    await ctx.addMessages(h)
    const state = JSON.parse(JSON.stringify(ctx.saveState()))
    // The tools given, and the option that adds the recall tool: not the tool it added.
    expect(state.settings.tools).toEqual([tool])
    expect(state.settings.recall).toBe(true)
    const off = ChatContext.fromState(state, { recall: false })
    const plain = fit(h, { budget: 1500, tools: [tool] })
    expect(off.fit().tokens.tools).toBe(plain.tokens.tools)
    expect(off.getMessagesSync()).toEqual(plain.messages)
    const on = ChatContext.fromState(state)
    expect(on.fit().tokens.tools).toBe(ctx.fit().tokens.tools)
    expect(on.getMessagesSync()).toEqual(ctx.getMessagesSync())
  })
})

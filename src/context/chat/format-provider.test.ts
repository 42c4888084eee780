import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { anthropicViolations } from '../../../test/oracle/anthropic.js'
import { responsesViolations } from '../../../test/oracle/responses.js'
import { tauBench } from '../../../test/tau-bench.js'
import { InvalidOptionError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { fromAnthropic, toAnthropic } from '../../providers/anthropic-messages/codec.js'
import { fromOpenAIChat } from '../../providers/openai-chat/codec.js'
import { fromOpenAIResponses, toOpenAIResponses } from '../../providers/openai-responses/codec.js'
import { repair } from '../../providers/repair.js'
import { memoryStore } from '../../store/memory-store.js'
import { fit } from '../fit.js'
import { ChatContext } from './chat-context.js'

/** A τ-bench trajectory as the Anthropic request a Claude agent would have sent. */
function anthropicRequest(k: number) {
  const history = fromOpenAIChat(tauBench()[k]?.traj ?? [])
  const { lost: _lost, ...request } = toAnthropic(
    repair(history, { provider: 'anthropic' }).messages,
  )
  return request
}

describe('a format brings its provider', () => {
  const model = 'claude-sonnet-4-5'

  for (const k of [0, 3, 11]) {
    it(`ChatContext({ format: 'anthropic' }) fed one turn at a time sends what fit sends, and Anthropic accepts it (trajectory ${k})`, async () => {
      const request = anthropicRequest(k)
      const decoded = fromAnthropic(request)
      const system = decoded[0]?.role === 'system' ? [decoded[0]] : []
      for (const budget of [3000, 4000, 8000]) {
        const ctx = new ChatContext({ format: 'anthropic', model, budget, initialMessages: system })
        for (const turn of request.messages) await ctx.addMessage(turn)
        const incremental = toAnthropic(await ctx.getMessages())
        const whole = toAnthropic(fit(decoded, { provider: 'anthropic', model, budget }).messages)
        expect(anthropicViolations(incremental)).toEqual([])
        expect(incremental).toEqual(whole)
        expect(ctx.saveState().settings?.provider).toBe('anthropic')
      }
    })
  }

  it('tool results added alone carry the tool name the whole conversation gives them', async () => {
    const request = anthropicRequest(0)
    const ctx = new ChatContext({ format: 'anthropic' })
    for (const turn of request.messages) await ctx.addMessage(turn)
    const names = (ms: readonly { role: string; toolName?: string }[]) =>
      ms.filter((m) => m.role === 'tool').map((m) => m.toolName)
    const expected = names(fromAnthropic(request))
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.every((n) => typeof n === 'string')).toBe(true)
    expect(names(ctx.fit().messages)).toEqual(expected)
  })

  it('each provider format brings its rules; a provider that disagrees is refused', () => {
    for (const [format, provider] of [
      ['openai-chat', 'openai'],
      ['openai-responses', 'openai-responses'],
      ['anthropic', 'anthropic'],
      ['gemini', 'gemini'],
    ] as const) {
      expect(new ChatContext({ format }).saveState().settings?.provider).toBe(provider)
      expect(new ChatContext({ format, provider }).saveState().settings?.provider).toBe(provider)
      const other = provider === 'openai' ? 'anthropic' : 'openai'
      expect(() => new ChatContext({ format, provider: other })).toThrow(InvalidOptionError)
      expect(() => new ChatContext({ format, provider: other })).toThrow(/brings its rules/)
    }
    // The frameworks' formats sit on the provider named, OpenAI's by default.
    expect(
      new ChatContext({ format: 'ai-sdk', provider: 'anthropic' }).saveState().settings?.provider,
    ).toBe('anthropic')
    // Neither named nor brought by the format: OpenAI's by default, and none saved, so a state
    // restored with a provider's format takes that format's rules.
    const state = new ChatContext({ format: 'langchain' }).saveState()
    expect(state.settings).not.toHaveProperty('provider')
    const restored = ChatContext.fromState(state, { format: 'anthropic' })
    expect(restored.saveState().settings?.provider).toBe('anthropic')
    expect(() => new ChatContext({ format: 'claude' as never })).toThrow(InvalidOptionError)
  })
})

describe('Responses items added one at a time', () => {
  const source = JSON.parse(
    readFileSync(
      new URL('../../../examples/airline-booking.responses.json', import.meta.url),
      'utf8',
    ),
  ) as { input: Record<string, unknown>[] }
  const items = source.input
  const decoded = fromOpenAIResponses(source)
  const system = decoded.filter((m) => m.role === 'system')

  for (const budget of [2000, 3000, 6000]) {
    it(`are sent as fit sends the whole list, every id with its reasoning (budget ${budget})`, async () => {
      const whole = toOpenAIResponses(
        fit(decoded, { provider: 'openai-responses', budget }).messages,
      )
      const ctx = new ChatContext({ format: 'openai-responses', budget, initialMessages: system })
      for (const item of items) await ctx.addMessage(item)
      const sent = toOpenAIResponses(await ctx.getMessages())
      expect(responsesViolations(sent as never, {}, items as never)).toEqual([])
      expect(sent).toEqual(whole)
      // The same over a store, and after a save and restore.
      const store = memoryStore()
      const stored = new ChatContext({
        format: 'openai-responses',
        budget,
        store,
        id: 'c',
        initialMessages: system,
      })
      for (const item of items) await stored.addMessage(item)
      expect(toOpenAIResponses(await stored.getMessages())).toEqual(whole)
      const restored = ChatContext.fromState(ctx.saveState(), { format: 'openai-responses' })
      expect(toOpenAIResponses(await restored.getMessages())).toEqual(whole)
    })
  }

  it('a run still open is added when the context is read, and a call output carries its tool name', async () => {
    const ctx = new ChatContext({ format: 'openai-responses' })
    await ctx.addMessage({ type: 'message', role: 'user', content: 'Cancel HATHAT.' })
    await ctx.addMessage({ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc' })
    await ctx.addMessage({
      type: 'function_call',
      id: 'fc_1',
      call_id: 'c1',
      name: 'cancel_reservation',
      arguments: '{"reservation_id":"HATHAT"}',
    })
    expect(ctx.length).toBe(2)
    await ctx.addMessage({ type: 'function_call_output', call_id: 'c1', output: 'cancelled' })
    const history = ctx.history() as Message[]
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    expect(history[2]).toMatchObject({ toolName: 'cancel_reservation' })
    const sent = toOpenAIResponses(ctx.getMessagesSync())
    expect(sent.map((i) => (i as { type?: string }).type)).toEqual([
      'message',
      'reasoning',
      'function_call',
      'function_call_output',
    ])
    // A bad item is refused when added, not later.
    await expect(async () => ctx.addMessage({ type: 'reasoning', summary: 5 })).rejects.toThrow()
  })
})

describe('a store that lost the conversation', () => {
  it('the view begins with the initial messages again', async () => {
    const store = memoryStore()
    const system: Message = { role: 'system', content: 'You are a concise airline agent.' }
    const ctx = new ChatContext({ store, id: 'lost', initialMessages: [system], budget: 1000 })
    await ctx.addMessage({ role: 'user', content: 'Hello' })
    expect((await ctx.getMessages())[0]).toMatchObject({ role: 'system' })
    await store.clear('lost') // expired, or cleared by another process
    await ctx.addMessage({ role: 'user', content: 'Are you there?' })
    const view = await ctx.getMessages()
    expect(view[0]).toMatchObject({ role: 'system', content: system.content })
    expect(view.at(-1)).toMatchObject({ role: 'user', content: 'Are you there?' })
  })
})

describe('an SDK message added to a context without a format', () => {
  it('is refused with what to pass instead', async () => {
    const ctx = new ChatContext()
    const completion = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    }
    await expect(async () => ctx.addMessage(completion)).rejects.toThrow(
      /looks like an OpenAI chat message: pass format: 'openai-chat' or 'auto'/,
    )
    const gemini = { role: 'model', parts: [{ text: 'hi' }] }
    await expect(async () => ctx.addMessage(gemini)).rejects.toThrow(/pass format: 'gemini'/)
    // A message that is no SDK's gets the plain error (and is a compile error).
    // @ts-expect-error
    await expect(async () => ctx.addMessage({ role: 'robot' })).rejects.toThrow(/message 0/)
    expect(ctx.length).toBe(0)
  })
})

import { describe, expect, it } from 'vitest'
import { anthropicViolations } from '../../test/oracle/anthropic.js'
import { tauBench } from '../../test/tau-bench.js'
import { InvalidOptionError } from '../errors.js'
import { fromAnthropic, toAnthropic } from '../formats/anthropic-messages.js'
import { fromOpenAIChat } from '../formats/openai-chat.js'
import { repair } from '../messages/validate.js'
import { ChatContext } from './chat-context.js'
import { fit } from './fit.js'

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
      for (const budget of [2500, 4000, 8000]) {
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
    expect(new ChatContext({ format: 'langchain' }).saveState().settings?.provider).toBe('openai')
    expect(() => new ChatContext({ format: 'claude' as never })).toThrow(InvalidOptionError)
  })
})

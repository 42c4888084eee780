import { describe, expect, it } from 'vitest'
import { fit } from '../context/fit.js'
import { InvalidOptionError } from '../errors.js'
import { counterFor } from './counters.js'
import { findModel, registerModel } from './models.js'

const history = [{ role: 'user' as const, content: 'Book the 9am flight to Seattle.' }]

describe('the model table', () => {
  it('lists the current Claude, Gemini and GPT models', () => {
    for (const id of [
      'claude-opus-4-8',
      'claude-opus-4-7',
      'claude-opus-4-6',
      'claude-sonnet-4-6',
      'claude-haiku-4-5',
      'gemini-3-pro-preview',
      'gemini-2.5-flash',
      'gpt-5.1',
      'gpt-4.1-mini',
      'o4-mini',
    ])
      expect(findModel(id)?.assumed, id).toBeUndefined()
  })

  it("Claude models with Opus 4.7's tokenizer count at least 1.47 times what earlier ones count", () => {
    const before = counterFor('claude-opus-4-6').countText(
      'The reservation 8JX2WO was changed to economy.',
    )
    const after = counterFor('claude-opus-4-7').countText(
      'The reservation 8JX2WO was changed to economy.',
    )
    expect(after / before).toBeGreaterThanOrEqual(1.4)
    expect(findModel('claude-sonnet-4-5')?.estimateFactor).toBeGreaterThanOrEqual(1.6)
  })

  for (const [id, provider, window] of [
    ['claude-opus-9', 'anthropic', 200_000],
    ['anthropic/claude-something-new', 'anthropic', 200_000],
    ['gemini-9-ultra', 'google', 1_048_576],
    ['gpt-7', 'openai', 128_000],
    ['o9-mini', 'openai', 128_000],
    // Another version is not the listed one it starts with; a retired model is not listed.
    ['gpt-5.4-mini', 'openai', 128_000],
    ['claude-3-5-sonnet-20241022', 'anthropic', 200_000],
  ] as const) {
    it(`an unknown ${provider} model (${id}) gets its provider's most conservative figures, and the result says so`, () => {
      const info = findModel(id)
      expect(info?.provider).toBe(provider)
      expect(info?.contextWindow).toBe(window)
      const r = fit(history, { model: id })
      expect(r.budget).toBe(window)
      expect(r.notes?.[0]).toMatch(/not in the model table/)
      if (provider === 'anthropic') expect(info?.estimateFactor).toBe(2.35)
    })
  }

  it('a dated or suffixed id is the listed model, another version is not', () => {
    expect(findModel('gpt-4.1-mini-2025-04-14')?.id).toBe('gpt-4.1-mini')
    expect(findModel('claude-sonnet-4-5@20250929')?.id).toBe('claude-sonnet-4-5')
    expect(findModel('anthropic.claude-haiku-4-5-20251001-v1:0')?.id).toBe('claude-haiku-4-5')
    expect(findModel('gpt-5.1-codex')?.id).toBe('gpt-5.1')
    expect(findModel('gpt-5.4')?.assumed).toMatch(/not in the model table/)
  })

  it('a known model says nothing, and an id of no known provider is refused', () => {
    expect(fit(history, { model: 'gpt-4o' }).notes).toBeUndefined()
    expect(() => fit(history, { model: 'mistral-large' })).toThrow(InvalidOptionError)
  })

  it('registerModel adds or overrides a model: window, output limit, tokenizer, factor', () => {
    registerModel({
      id: 'acme-large',
      provider: 'meta',
      contextWindow: 32_000,
      maxOutputTokens: 4_000,
      tokenizer: 'estimate',
      estimateFactor: 1.5,
    })
    const r = fit(history, { model: 'acme-large' })
    expect(r.budget).toBe(32_000)
    expect(r.tokens.reserve).toBe(4_000)
    expect(r.notes).toBeUndefined()
    expect(() =>
      registerModel({
        id: 'x',
        provider: 'meta',
        contextWindow: 0,
        maxOutputTokens: 1,
        tokenizer: 'estimate',
      }),
    ).toThrow(/model\.contextWindow/)
    expect(() =>
      registerModel({
        id: 'x',
        provider: 'acme' as never,
        contextWindow: 1,
        maxOutputTokens: 1,
        tokenizer: 'estimate',
      }),
    ).toThrow(/model\.provider/)
  })
})

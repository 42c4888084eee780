import { describe, expect, it } from 'vitest'
import { fit } from '../context/fit.js'
import { InvalidOptionError, UnknownModelError } from '../errors.js'
import { fitAnthropicRequest } from '../integrations/index.js'
import { counterFor, providerCounter } from './counters.js'
import { findModel, modelSources, models, registerModel } from './models.js'

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
    ['claude-sonnet-4-7', 'anthropic', 200_000],
    ['gemini-9-ultra', 'google', 1_048_576],
    ['gpt-7', 'openai', 128_000],
    ['o9-mini', 'openai', 128_000],
    ['llama-5-400b', 'meta', 131_072],
    // Another version is not the listed one it starts with.
    ['gpt-5.4', 'openai', 128_000],
    ['gpt-5.4-mini', 'openai', 128_000],
  ] as const) {
    it(`an unlisted ${provider} model (${id}) gets figures no larger than any listed one's, and the result says so`, () => {
      const info = findModel(id)
      expect(info?.provider).toBe(provider)
      expect(info?.contextWindow).toBe(window)
      const own = models.filter((m) => m.provider === provider && m.contextWindow >= 100_000)
      expect(info?.contextWindow).toBe(Math.min(...own.map((m) => m.contextWindow)))
      // Never an output larger than the window: a quarter of it, what a listed model reserves at most.
      expect(info?.maxOutputTokens).toBe(Math.floor(window / 4))
      const r = fit(history, { model: id })
      expect(r.budget).toBe(window)
      expect(r.tokens.reserve).toBe(Math.floor(window / 4))
      expect(r.notes?.[0]).toMatch(/not in the model table.*registerModel/)
      if (provider === 'anthropic') expect(info?.estimateFactor).toBe(2.35)
    })
  }

  it('every spelling of SDKs, gateways, routers and clouds is the listed model it names', () => {
    for (const [spelling, id] of [
      // Gateway and router ids (AI Gateway, OpenRouter), their variants and dotted Claude versions.
      ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5'],
      ['anthropic/claude-3.5-sonnet', 'claude-3-5-sonnet'],
      ['anthropic/claude-3.7-sonnet:thinking', 'claude-3-7-sonnet'],
      ['anthropic/claude-opus-4.1', 'claude-opus-4-1'],
      ['openai/gpt-4o', 'gpt-4o'],
      ['openai/gpt-4o:free', 'gpt-4o'],
      ['google/gemini-2.5-pro', 'gemini-2.5-pro'],
      ['models/gemini-2.0-flash-001', 'gemini-2.0-flash'],
      ['meta-llama/Llama-3.3-70B-Instruct', 'llama-3.3-70b'],
      ['meta-llama/Meta-Llama-3-8B-Instruct', 'llama-3'],
      // Bedrock model ids, inference profiles and ARNs.
      ['anthropic.claude-3-5-sonnet-20241022-v2:0', 'claude-3-5-sonnet'],
      ['anthropic.claude-haiku-4-5-20251001-v1:0', 'claude-haiku-4-5'],
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
      ['eu.anthropic.claude-sonnet-4-20250514-v1:0', 'claude-sonnet-4'],
      ['apac.anthropic.claude-3-7-sonnet-20250219-v1:0', 'claude-3-7-sonnet'],
      ['global.anthropic.claude-opus-4-5-20251101-v1:0', 'claude-opus-4-5'],
      ['us-gov.anthropic.claude-3-haiku-20240307-v1:0', 'claude-3-haiku'],
      [
        'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0',
        'claude-sonnet-4-5',
      ],
      ['meta.llama3-1-70b-instruct-v1:0', 'llama-3.1'],
      ['us.meta.llama3-3-70b-instruct-v1:0', 'llama-3.3-70b'],
      ['meta.llama3-70b-instruct-v1:0', 'llama-3'],
      // Vertex AI.
      ['claude-sonnet-4-5@20250929', 'claude-sonnet-4-5'],
      ['claude-3-5-haiku@20241022', 'claude-3-5-haiku'],
      ['publishers/anthropic/models/claude-opus-4-1@20250805', 'claude-opus-4-1'],
      // Fine-tuned OpenAI models: their base.
      ['ft:gpt-4o-mini-2024-07-18:org::abc123', 'gpt-4o-mini'],
      ['ft:gpt-4.1-2025-04-14:acme:support:B1x2y3', 'gpt-4.1'],
      // Dated, aliased and suffixed ids.
      ['gpt-4o-2024-08-06', 'gpt-4o'],
      ['gpt-4.1-mini-2025-04-14', 'gpt-4.1-mini'],
      ['gpt-4-0613', 'gpt-4'],
      ['gpt-4-1106-preview', 'gpt-4-turbo'],
      ['gpt-5-chat-latest', 'gpt-5-chat'],
      ['gpt-5.1-chat-latest', 'gpt-5.1-chat'],
      ['gpt-5.1-codex', 'gpt-5.1'],
      ['o1-preview-2024-09-12', 'o1-preview'],
      ['claude-3-5-sonnet-latest', 'claude-3-5-sonnet'],
      ['claude-sonnet-4-0', 'claude-sonnet-4'],
      ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
      ['claude-opus-4-1-20250805', 'claude-opus-4-1'],
      ['gemini-2.5-pro-preview-05-06', 'gemini-2.5-pro'],
      ['gemini-1.5-pro-002', 'gemini-1.5-pro'],
      ['gemini-3-pro-preview', 'gemini-3-pro'],
      ['llama3-70b-8192', 'llama-3'],
    ] as const) {
      const info = findModel(spelling)
      expect(info?.id, spelling).toBe(id)
      expect(info?.assumed, spelling).toBeUndefined()
    }
  })

  it("every listed model's window and output limit are its provider's published figures", () => {
    // Copied from the pages `modelSources` names, model by model: [window, output].
    const published: Record<string, readonly [number, number]> = {
      // platform.openai.com/docs/models/<id>
      'gpt-5.1': [400_000, 128_000],
      'gpt-5.1-chat': [128_000, 16_384],
      'gpt-5': [400_000, 128_000],
      'gpt-5-chat': [128_000, 16_384],
      'gpt-5-mini': [400_000, 128_000],
      'gpt-5-nano': [400_000, 128_000],
      'gpt-4.1': [1_047_576, 32_768],
      'gpt-4.1-mini': [1_047_576, 32_768],
      'gpt-4.1-nano': [1_047_576, 32_768],
      'gpt-4o': [128_000, 16_384],
      'chatgpt-4o-latest': [128_000, 16_384],
      'gpt-4o-mini': [128_000, 16_384],
      o1: [200_000, 100_000],
      'o1-mini': [128_000, 65_536],
      'o1-preview': [128_000, 32_768],
      o3: [200_000, 100_000],
      'o3-mini': [200_000, 100_000],
      'o4-mini': [200_000, 100_000],
      'gpt-oss-120b': [131_072, 131_072],
      'gpt-oss-20b': [131_072, 131_072],
      'gpt-4-turbo': [128_000, 4_096],
      'gpt-4-32k': [32_768, 32_768],
      'gpt-4': [8_192, 8_192],
      'gpt-3.5-turbo': [16_385, 4_096],
      // docs.anthropic.com/en/docs/about-claude/models/overview (standard windows; 1M is opt-in)
      'claude-opus-4-8': [200_000, 128_000],
      'claude-opus-4-7': [200_000, 128_000],
      'claude-opus-4-6': [200_000, 128_000],
      'claude-sonnet-4-6': [200_000, 128_000],
      'claude-opus-4-5': [200_000, 64_000],
      'claude-sonnet-4-5': [200_000, 64_000],
      'claude-haiku-4-5': [200_000, 64_000],
      'claude-opus-4-1': [200_000, 32_000],
      'claude-opus-4': [200_000, 32_000],
      'claude-sonnet-4': [200_000, 64_000],
      'claude-3-7-sonnet': [200_000, 64_000],
      'claude-3-5-sonnet': [200_000, 8_192],
      'claude-3-5-haiku': [200_000, 8_192],
      'claude-3-haiku': [200_000, 4_096],
      'claude-3-opus': [200_000, 4_096],
      // ai.google.dev/gemini-api/docs/models (input token limit, output token limit)
      'gemini-3-pro': [1_048_576, 65_536],
      'gemini-2.5-pro': [1_048_576, 65_536],
      'gemini-2.5-flash': [1_048_576, 65_536],
      'gemini-2.5-flash-lite': [1_048_576, 65_536],
      'gemini-2.0-flash': [1_048_576, 8_192],
      'gemini-1.5-pro': [2_097_152, 8_192],
      'gemini-1.5-flash': [1_048_576, 8_192],
      // llama.com model cards: context length (Meta publishes no output limit: what hosts serve)
      'llama-4-maverick': [1_048_576, 16_384],
      'llama-4-scout': [10_000_000, 16_384],
      'llama-3.3-70b': [131_072, 8_192],
      'llama-3.2': [131_072, 8_192],
      'llama-3.1': [131_072, 8_192],
      'llama-3': [8_192, 2_048],
    }
    for (const m of models) {
      expect(published[m.id], `${m.id}: add its published figures`).toBeDefined()
      expect([m.contextWindow, m.maxOutputTokens], `${m.id} (${modelSources[m.provider]})`).toEqual(
        published[m.id],
      )
      expect(m.maxOutputTokens, m.id).toBeLessThanOrEqual(m.contextWindow)
    }
  })

  it('a known model says nothing; an id of no known provider is an UnknownModelError naming registerModel', () => {
    expect(fit(history, { model: 'gpt-4o' }).notes).toBeUndefined()
    expect(() => fit(history, { model: 'mistral-large' })).toThrow(UnknownModelError)
    expect(() => fit(history, { model: 'mistral-large' })).toThrow(InvalidOptionError)
    expect(() => fit(history, { model: 'mistral-large' })).toThrow(
      /registerModel\(\{ id: "mistral-large"/,
    )
  })

  it("with only the provider known, counting follows it: Anthropic's is Claude's estimate, not o200k", () => {
    const anthropic = fit(history, { provider: 'anthropic', budget: 1000 })
    const openai = fit(history, { provider: 'openai', budget: 1000 })
    expect(anthropic.tokens.total).toBe(
      providerCounter('anthropic').countMessages(anthropic.messages),
    )
    expect(anthropic.tokens.total).toBeGreaterThan(openai.tokens.total)
    expect(providerCounter('anthropic').name).toMatch(/^estimate:/)
  })

  it("fitAnthropicRequest reads the request's own model: its window, reserve and counter", () => {
    for (const model of ['claude-sonnet-4-5', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0']) {
      const { result } = fitAnthropicRequest({
        model,
        max_tokens: 1024,
        messages: [{ role: 'user', content: 'Book the 9am flight to Seattle.' }],
      })
      expect(result.budget).toBe(200_000)
      expect(result.tokens.reserve).toBe(1024)
      expect(result.tokens.total).toBe(
        counterFor('claude-sonnet-4-5').countMessages(result.messages),
      )
    }
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

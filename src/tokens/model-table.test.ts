import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { fit } from '../context/fit.js'
import { InvalidOptionError, UnknownModelError } from '../errors.js'
import { fitAnthropicRequest } from '../integrations/index.js'
import { counterFor, providerCounter } from './counters.js'
import { modelSources, models } from './model-table.js'
import { findModel, registerModel } from './models.js'

const history = [{ role: 'user' as const, content: 'Book the 9am flight to Seattle.' }]

/** Every utterance of the LoCoMo dev conversations (English prose). */
function locomoTexts(): string[] {
  const url = new URL('../../test/data/locomo/locomo-dev.json.gz', import.meta.url)
  const data = JSON.parse(gunzipSync(readFileSync(url)).toString('utf8')) as {
    conversation: Record<string, unknown>
  }[]
  const out: string[] = []
  for (const { conversation } of data)
    for (const turns of Object.values(conversation))
      if (Array.isArray(turns)) for (const t of turns) out.push(String(t.text))
  return out
}

/** This project's own TypeScript (test/data/code-sample). */
function codeTexts(): string[] {
  const url = new URL('../../test/data/code-sample/typescript.json', import.meta.url)
  return (JSON.parse(readFileSync(url, 'utf8')) as { text: string }[]).map((f) => f.text)
}

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

  it('the table knows each Claude model’s tokenizer generation', () => {
    for (const m of models.filter((m) => m.provider === 'anthropic'))
      expect(m.tokenizerGeneration, m.id).toBe(
        ['claude-opus-4-8', 'claude-opus-4-7'].includes(m.id) ? 2 : 1,
      )
    // A newer Claude than any listed is counted as the second generation.
    expect(findModel('claude-opus-9')?.tokenizerGeneration).toBe(2)
  })

  it('the second generation counts each kind of text no lower than was published or measured', () => {
    // What Anthropic published (1.0 to 1.35 by content) and what was measured with its count
    // endpoint (English prose about 1.45, code 1.13 to 1.33, CJK 1.0), against the first generation.
    const first = counterFor('claude-opus-4-6')
    const second = counterFor('claude-opus-4-7')
    const ratio = (texts: readonly string[]) => {
      let a = 0
      let b = 0
      for (const t of texts) {
        a += first.countText(t)
        b += second.countText(t)
      }
      return b / a
    }
    const prose = locomoTexts()
    expect(prose.length).toBeGreaterThan(1000)
    expect(ratio(prose)).toBeGreaterThanOrEqual(1.45)
    const code = codeTexts()
    expect(ratio(code)).toBeGreaterThanOrEqual(1.35)
    for (const file of code) expect(ratio([file])).toBeGreaterThanOrEqual(1.35)
    const cjk = [
      '東京から大阪までの新幹線の予約を変更したいです。',
      '我想把明天的航班改到下午三点。',
      '내일 비행기를 오후 세 시로 바꾸고 싶어요.',
    ]
    // Long enough that a count's rounding up does not decide.
    for (const t of cjk) expect(ratio([t.repeat(20)]), t).toBeGreaterThanOrEqual(1)
    expect(ratio(cjk.map((t) => t.repeat(20)))).toBeLessThan(1.1)
    // Other non-ASCII text takes the published upper bound, not CJK's 1.0.
    expect(ratio(['Привет, я хочу поменять рейс на завтра. '.repeat(20)])).toBeGreaterThanOrEqual(
      1.35,
    )
  })

  it("Claude models with Opus 4.7's tokenizer count at least 1.4 times what earlier ones count on English text", () => {
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
      // Variants and retired models (`variant`) have windows of their own: not a newer model's.
      const own = models.filter(
        (m) => m.provider === provider && m.contextWindow >= 100_000 && !m.variant,
      )
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
      ['gpt-5.1-codex', 'gpt-5.1-codex'],
      ['gpt-5-codex-2025-09-15', 'gpt-5-codex'],
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
      'gpt-5.1-codex': [400_000, 128_000],
      'gpt-5-codex': [400_000, 128_000],
      // developers.openai.com/api/docs/models/gpt-3.5-turbo-instruct: 4,096 context, 4,096 out
      'gpt-3.5-turbo-instruct': [4_096, 4_096],
      // 16,385 at OpenAI, 16,384 for Azure's gpt-35-turbo-16k (0613): the smaller
      'gpt-3.5-turbo-16k': [16_384, 4_096],
      // the 0301 and 0613 snapshots (Azure's legacy models page)
      'gpt-3.5-turbo-0613': [4_096, 4_096],
      'gpt-3.5-turbo-0301': [4_096, 4_096],
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
      // the legacy models table: Claude 2.1, 2.0, Instant 1.2
      'claude-2-1': [200_000, 4_096],
      'claude-2-0': [100_000, 4_096],
      'claude-instant-1-2': [100_000, 4_096],
      // ai.google.dev/gemini-api/docs/models (input token limit, output token limit)
      'gemini-3-pro': [1_048_576, 65_536],
      'gemini-2.5-pro': [1_048_576, 65_536],
      'gemini-2.5-flash': [1_048_576, 65_536],
      'gemini-2.5-flash-lite': [1_048_576, 65_536],
      'gemini-2.0-flash': [1_048_576, 8_192],
      'gemini-1.5-pro': [2_097_152, 8_192],
      'gemini-1.5-flash': [1_048_576, 8_192],
      'gemini-2.0-flash-lite': [1_048_576, 8_192],
      // Gemini 2.5 Flash Image: 32,768 in and out (the smaller of the figures published)
      'gemini-2.5-flash-image': [32_768, 32_768],
      // Vertex AI, Gemini 2.5 Flash with Live API native audio: 128,000 in, 64,000 out
      'gemini-live-2.5-flash-native-audio': [128_000, 64_000],
      // retired: 30,720 in, 2,048 out
      'gemini-1.0-pro': [30_720, 2_048],
      // 8,192 in; its 16,384 out is kept within the window
      'gemini-2.5-flash-preview-tts': [8_192, 8_192],
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

  /**
   * Every spelling a gateway, cloud or host uses for a model whose window is smaller than its
   * family's: [spelling, table id, window, output, source of the figure]. `assumed`: figures
   * the table does not list for it, no larger than its provider's smallest listed window.
   */
  const variants: readonly (readonly [string, string, number, number, string, boolean?])[] = [
    [
      'gpt-35-turbo',
      'gpt-3.5-turbo',
      16_385,
      4_096,
      'Azure spelling; platform.openai.com/docs/models/gpt-3.5-turbo',
    ],
    ['azure/gpt-35-turbo', 'gpt-3.5-turbo', 16_385, 4_096, 'LiteLLM path; the same page'],
    ['gpt-35-turbo-16k', 'gpt-3.5-turbo-16k', 16_384, 4_096, "Azure's legacy models page: 16,384"],
    ['azure/gpt-35-turbo-16k', 'gpt-3.5-turbo-16k', 16_384, 4_096, 'LiteLLM path; the same'],
    ['gpt-3.5-turbo-16k-0613', 'gpt-3.5-turbo-16k', 16_384, 4_096, 'a dated 16k snapshot'],
    ['gpt-35-turbo-0613', 'gpt-3.5-turbo-0613', 4_096, 4_096, "Azure's legacy models page: 4,096"],
    [
      'gpt-3.5-turbo-instruct',
      'gpt-3.5-turbo-instruct',
      4_096,
      4_096,
      'developers.openai.com/api/docs/models/gpt-3.5-turbo-instruct',
    ],
    [
      'azure/gpt-35-turbo-instruct',
      'gpt-3.5-turbo-instruct',
      4_096,
      4_096,
      'LiteLLM path, Azure spelling',
    ],
    [
      'gemini-2.5-flash-image',
      'gemini-2.5-flash-image',
      32_768,
      32_768,
      'ai.google.dev/gemini-api/docs/models: Gemini 2.5 Flash Image',
    ],
    [
      'gemini-2.5-flash-image-preview',
      'gemini-2.5-flash-image',
      32_768,
      32_768,
      'its preview name',
    ],
    ['vertex_ai/gemini-2.5-flash-image', 'gemini-2.5-flash-image', 32_768, 32_768, 'LiteLLM path'],
    [
      'gemini-live-2.5-flash-native-audio',
      'gemini-live-2.5-flash-native-audio',
      128_000,
      64_000,
      'cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/2-5-flash-live-api',
    ],
    [
      'gemini-2.5-flash-preview-tts',
      'gemini-2.5-flash-preview-tts',
      8_192,
      8_192,
      'ai.google.dev/gemini-api/docs/models: 8,192 in',
    ],
    [
      'accounts/fireworks/models/llama-v3-70b-instruct',
      'llama-3',
      8_192,
      2_048,
      'Fireworks path; Llama 3 model card: 8K',
    ],
    [
      'fireworks_ai/accounts/fireworks/models/llama-v3-70b-instruct',
      'llama-3',
      8_192,
      2_048,
      'LiteLLM path to Fireworks',
    ],
    [
      'accounts/fireworks/models/llama-v3p1-70b-instruct',
      'llama-3.1',
      131_072,
      8_192,
      'Fireworks path; Llama 3.1 model card',
    ],
    ['claude-2.0', 'claude-2-0', 100_000, 4_096, 'the legacy models table'],
    ['claude-2', 'claude-2-0', 100_000, 4_096, 'the API alias of Claude 2.0'],
    ['anthropic.claude-v2', 'claude-2-0', 100_000, 4_096, 'Bedrock id'],
    ['claude-2.1', 'claude-2-1', 200_000, 4_096, 'the legacy models table'],
    ['anthropic.claude-v2:1', 'claude-2-1', 200_000, 4_096, 'Bedrock id'],
    ['claude-instant-1.2', 'claude-instant-1-2', 100_000, 4_096, 'the legacy models table'],
    ['anthropic.claude-instant-v1', 'claude-instant-1-2', 100_000, 4_096, 'Bedrock id'],
    [
      'gemini-1.0-pro',
      'gemini-1.0-pro',
      30_720,
      2_048,
      'the models page, Gemini 1.0 Pro (retired)',
    ],
    ['gemini-pro', 'gemini-1.0-pro', 30_720, 2_048, 'its first name'],
    ['gemini-1.0-pro-002', 'gemini-1.0-pro', 30_720, 2_048, 'a numbered snapshot'],
    // Unlisted variants: the provider's smallest listed window, and a note.
    ['gpt-4o-audio-preview', 'gpt-4o-audio-preview', 4_096, 1_024, 'unlisted -audio', true],
    [
      'gpt-4o-realtime-preview',
      'gpt-4o-realtime-preview',
      4_096,
      1_024,
      'unlisted -realtime',
      true,
    ],
    ['gpt-4o-instruct', 'gpt-4o-instruct', 4_096, 1_024, 'unlisted -instruct', true],
    ['gemini-2.5-pro-image', 'gemini-2.5-pro-image', 8_192, 2_048, 'unlisted -image', true],
    [
      'gemini-2.0-flash-live-001',
      'gemini-2.0-flash-live-001',
      8_192,
      2_048,
      'unlisted -live',
      true,
    ],
    [
      'gemini-2.5-flash-native-audio-preview-09-2025',
      'gemini-2.5-flash-native-audio-preview-09-2025',
      8_192,
      2_048,
      'unlisted -audio',
      true,
    ],
    // A window in the id is an upper bound on the family's.
    ['gpt-4o-16k', 'gpt-4o', 16_000, 4_000, 'unlisted -16k: 16,000 at most', true],
  ]
  for (const [spelling, id, window, output, source, assumed] of variants)
    it(`${spelling}: ${id}, window ${window} (${source})`, () => {
      const info = findModel(spelling)
      expect(info?.id).toBe(id)
      expect([info?.contextWindow, info?.maxOutputTokens]).toEqual([window, output])
      if (assumed) {
        expect(info?.assumed).toMatch(/registerModel/)
        const r = fit(history, { model: spelling })
        expect(r.budget).toBe(window)
        expect(r.notes?.[0]).toMatch(/registerModel/)
      } else expect(info?.assumed).toBeUndefined()
      // Never more than the provider's smallest listed window for an unlisted variant.
      const own = models.filter((m) => m.provider === info?.provider)
      if (assumed && !spelling.endsWith('k'))
        expect(info?.contextWindow).toBe(Math.min(...own.map((m) => m.contextWindow)))
    })

  it("an organisation's path that is no provider's is not taken for a listed model", () => {
    for (const id of [
      'EleutherAI/gpt-j-6b',
      'nvidia/llama-3.1-nemotron-70b-instruct',
      'acme/claude-x',
    ]) {
      expect(findModel(id), id).toBeUndefined()
      expect(() => fit(history, { model: id })).toThrow(UnknownModelError)
      expect(() => fit(history, { model: id })).toThrow(/registerModel/)
    }
    // Registered by its exact id, it is found.
    registerModel({
      id: 'EleutherAI/gpt-j-6b',
      provider: 'openai',
      contextWindow: 2_048,
      maxOutputTokens: 512,
      tokenizer: 'estimate',
    })
    expect(findModel('EleutherAI/gpt-j-6b')?.contextWindow).toBe(2_048)
  })
})

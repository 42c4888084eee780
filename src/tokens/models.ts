import { InvalidOptionError } from '../errors.js'
import { describeValue, requireArgument } from '../options-check.js'
import type { PiecePrices } from './estimate-text.js'
import type { ImageModel } from './images.js'

export type Tokenizer = 'o200k_base' | 'cl100k_base' | 'estimate'

export interface ModelInfo {
  /** The id as listed; dated and suffixed ids match by prefix (`gpt-4o-2024-08-06` -> `gpt-4o`). */
  id: string
  provider: 'openai' | 'anthropic' | 'google' | 'meta'
  contextWindow: number
  maxOutputTokens: number
  tokenizer: Tokenizer
  /** For estimated models: how much o200k counts are scaled up to stay on the safe side. */
  estimateFactor?: number
  image: ImageModel
  /** Tool-schema constants of the cookbook: `gpt-4o` for current models, `gpt-4` for older ones. */
  toolFormula?: 'gpt-4o' | 'gpt-4'
  /** Set for a model the table does not list: why its figures are its provider's most conservative. */
  assumed?: string
  /**
   * A variant or retired model (image, live audio, instruct, Claude 2): listed for its own
   * figures, left out of the figures a newer model of its provider is given.
   */
  variant?: string
  /**
   * Claude: what each class of piece or kind of text costs, measured against the provider's
   * usage, and a factor on top (the newer tokenizer's). Without it, or with
   * `estimate: 'factor'`, the estimate is o200k pieces × `estimateFactor`.
   */
  measured?: { kinds: ClaudeCounting; o200k: ClaudeCounting; factor: number }
  /**
   * Claude: the tokenizer generation. 1: Claude 3 to 4.6, the one `CLAUDE_COUNTING` was fitted
   * on (Claude 2's older one is counted as it, unmeasured); 2: from Opus 4.7, counted with
   * `CLAUDE_TOKENIZER_2` on top of it.
   */
  tokenizerGeneration?: 1 | 2
}

/**
 * Claude's count of a message, per estimated o200k token of each kind (`estimateText`, or
 * `pricePieces` with `pieces`) and per message and tool call: fitted on Claude's own usage
 * (`npm run eval:counting -- --fit`).
 */
export interface ClaudeCounting {
  text: number
  call: number
  result: number
  perMessage: number
  perToolCall: number
  /** What the weights price: o200k pieces (`estimateText`, default: no table) or exact o200k tokens. */
  base?: 'pieces' | 'o200k'
  /** With o200k pieces: each class of piece at its own price (`pricePieces`) instead of 1. */
  pieces?: PiecePrices
}

const tile = (family: Extract<ImageModel, { kind: 'tile' }>['family']): ImageModel => ({
  kind: 'tile',
  family,
})
const patch = (factor: number): ImageModel => ({ kind: 'patch', factor })
const claude: ImageModel = { kind: 'anthropic' }
const gemini: ImageModel = { kind: 'gemini' }
const none: ImageModel = { kind: 'unknown' }

const openai = (
  id: string,
  contextWindow: number,
  maxOutputTokens: number,
  image: ImageModel,
  tokenizer: Tokenizer = 'o200k_base',
  toolFormula: 'gpt-4o' | 'gpt-4' = 'gpt-4o',
): ModelInfo => ({
  id,
  provider: 'openai',
  contextWindow,
  maxOutputTokens,
  tokenizer,
  image,
  toolFormula,
})

const estimated = (
  provider: ModelInfo['provider'],
  id: string,
  contextWindow: number,
  maxOutputTokens: number,
  estimateFactor: number,
  image: ImageModel,
): ModelInfo => ({
  id,
  provider,
  contextWindow,
  maxOutputTokens,
  tokenizer: 'estimate',
  estimateFactor,
  image,
})

/**
 * A Claude model: counted as measured (`CLAUDE_COUNTING`; from tokenizer generation 2, each
 * class of piece times its `CLAUDE_TOKENIZER_2` factor), or as o200k pieces × `factor` when
 * asked.
 */
const claudeModel = (
  id: string,
  contextWindow: number,
  maxOutputTokens: number,
  factor: number,
): ModelInfo => {
  const generation = factor === CLAUDE_NEW ? 2 : 1
  return {
    ...estimated('anthropic', id, contextWindow, maxOutputTokens, factor, claude),
    tokenizerGeneration: generation,
    measured:
      generation === 2
        ? { kinds: CLAUDE_COUNTING_2, o200k: CLAUDE_COUNTING_O200K_2, factor: 1 }
        : { kinds: CLAUDE_COUNTING, o200k: CLAUDE_COUNTING_O200K, factor: 1 },
  }
}

const CLAUDE = 1.6
const CLAUDE_NEW = 2.35

/**
 * Claude Sonnet 4.5's count, table-free: each class of o200k piece at its own price
 * (`pricePieces`: per word, per run of digits, white space, JSON's own marks, other
 * punctuation, non-ASCII) and a cost per tool call. Fitted by non-negative least squares on
 * the 213 steps between agent calls of the 25 τ²-bench airline conversations of
 * test/data/tau2-claude, with code (test/data/code-sample, which the conversations hold none
 * of) at 1.30 times its o200k count, as a published comparison found Claude counting code
 * (`npm run eval:counting -- --fit`, scripts/claude-fit.ts); then scaled so that no
 * conversation is counted under Claude's count. Non-ASCII pieces are too few there to fit
 * (about 500): priced as `estimateText` prices them, then scaled with the rest. Held out (each
 * conversation counted by a fit on the other 24), see docs/counting.md.
 */
export const CLAUDE_COUNTING: ClaudeCounting = {
  text: 1,
  call: 1,
  result: 1,
  perMessage: 0,
  perToolCall: 88.143,
  pieces: {
    word: 0.845,
    digits: 1.736,
    space: 1.503,
    json: 0.878,
    punctuation: 1.407,
    nonAscii: 1.034,
  },
}
/**
 * The same fit on exact o200k tokens (`estimateCounter({ model, base: 'o200k' })`, which loads
 * the o200k table): closer per conversation, as the table's tokens follow Claude's more
 * closely than the table-free pieces do.
 */
export const CLAUDE_COUNTING_O200K: ClaudeCounting = {
  text: 1.157,
  call: 1.819,
  result: 1.05,
  perMessage: 0,
  perToolCall: 71.514,
  base: 'o200k',
}
/**
 * Claude's second tokenizer (Opus 4.7 on), per class of piece: how many of its tokens per
 * token of the first, never under what was published or measured for that kind of text.
 * Anthropic: 1.0 to 1.35 times as many tokens for the same text, by kind of content
 * (https://www.anthropic.com/news/claude-opus-4-7). Measured independently with Anthropic's
 * own count endpoint on Opus 4.6 and 4.7: English prose about 1.45 (up to 1.47 on technical
 * text), code 1.13 to 1.33, Chinese, Japanese and Korean 1.0. Words, digits, white space and
 * punctuation take the prose figure (code is made of them too, and is counted high); JSON's own
 * marks the published upper bound; non-ASCII text the published upper bound, CJK the
 * measured 1.0. On LoCoMo's English conversations this counts 1.466 times the first
 * generation, on this project's TypeScript 1.46, on CJK text 1.0 (`model-table.test.ts`).
 * Until the counting endpoint measures a conversation (`countingEndpoint`), these stand.
 */
export const CLAUDE_TOKENIZER_2: Readonly<Required<PiecePrices>> = {
  word: 1.47,
  digits: 1.47,
  space: 1.47,
  punctuation: 1.47,
  json: 1.35,
  nonAscii: 1.35,
  cjk: 1,
}
/** The same, for the counts by kind of text on exact o200k tokens: the prose figure throughout. */
const CLAUDE_TOKENIZER_2_O200K = 1.47

const CLAUDE_COUNTING_2: ClaudeCounting = {
  ...CLAUDE_COUNTING,
  perToolCall: CLAUDE_COUNTING.perToolCall * CLAUDE_TOKENIZER_2.word,
  pieces: byClass(CLAUDE_COUNTING.pieces as PiecePrices, CLAUDE_TOKENIZER_2),
}
const CLAUDE_COUNTING_O200K_2: ClaudeCounting = {
  ...CLAUDE_COUNTING_O200K,
  text: CLAUDE_COUNTING_O200K.text * CLAUDE_TOKENIZER_2_O200K,
  call: CLAUDE_COUNTING_O200K.call * CLAUDE_TOKENIZER_2_O200K,
  result: CLAUDE_COUNTING_O200K.result * CLAUDE_TOKENIZER_2_O200K,
  perToolCall: CLAUDE_COUNTING_O200K.perToolCall * CLAUDE_TOKENIZER_2_O200K,
}

function byClass(prices: PiecePrices, factors: Required<PiecePrices>): Required<PiecePrices> {
  return {
    word: prices.word * factors.word,
    digits: prices.digits * factors.digits,
    space: prices.space * factors.space,
    json: prices.json * factors.json,
    punctuation: prices.punctuation * factors.punctuation,
    nonAscii: prices.nonAscii * factors.nonAscii,
    cjk: (prices.cjk ?? prices.nonAscii) * factors.cjk,
  }
}

/**
 * Where each provider publishes the windows and output limits below (checked by
 * `model-table.test.ts` against the figures copied from these pages).
 */
export const modelSources: Readonly<Record<ModelInfo['provider'], string>> = {
  openai:
    "https://platform.openai.com/docs/models (each model's page: context window, max output tokens)",
  anthropic:
    'https://docs.anthropic.com/en/docs/about-claude/models/overview (models and legacy models tables)',
  google: 'https://ai.google.dev/gemini-api/docs/models (input and output token limits)',
  meta: 'https://www.llama.com/docs/model-cards-and-prompt-formats/ (context length per release)',
}

/** Context windows and output limits as the providers publish them (`modelSources`). */
export const models: readonly ModelInfo[] = [
  openai('gpt-5.1', 400_000, 128_000, tile('gpt-5')),
  // The ChatGPT snapshots (`gpt-5-chat-latest`, `gpt-5.1-chat-latest`) have the chat window, not GPT-5's.
  openai('gpt-5.1-chat', 128_000, 16_384, tile('gpt-5')),
  openai('gpt-5', 400_000, 128_000, tile('gpt-5')),
  openai('gpt-5-chat', 128_000, 16_384, tile('gpt-5')),
  openai('gpt-5-mini', 400_000, 128_000, patch(1.62)),
  openai('gpt-5-nano', 400_000, 128_000, patch(2.46)),
  openai('gpt-4.1', 1_047_576, 32_768, tile('gpt-4.1')),
  openai('gpt-4.1-mini', 1_047_576, 32_768, patch(1.62)),
  openai('gpt-4.1-nano', 1_047_576, 32_768, patch(2.46)),
  openai('gpt-4o', 128_000, 16_384, tile('gpt-4o')),
  openai('chatgpt-4o-latest', 128_000, 16_384, tile('gpt-4o')),
  openai('gpt-4o-mini', 128_000, 16_384, tile('gpt-4o-mini')),
  openai('o1', 200_000, 100_000, tile('o1')),
  openai('o1-mini', 128_000, 65_536, none),
  openai('o1-preview', 128_000, 32_768, none),
  openai('o3', 200_000, 100_000, tile('o3')),
  openai('o3-mini', 200_000, 100_000, none),
  openai('o4-mini', 200_000, 100_000, patch(1.72)),
  openai('gpt-oss-120b', 131_072, 131_072, none),
  openai('gpt-oss-20b', 131_072, 131_072, none),
  openai('gpt-4-turbo', 128_000, 4_096, tile('gpt-4-turbo'), 'cl100k_base', 'gpt-4'),
  openai('gpt-4-32k', 32_768, 32_768, none, 'cl100k_base', 'gpt-4'),
  openai('gpt-4', 8_192, 8_192, none, 'cl100k_base', 'gpt-4'),
  openai('gpt-3.5-turbo', 16_385, 4_096, none, 'cl100k_base', 'gpt-4'),
  // Variants with windows of their own. Codex: platform.openai.com/docs/models/gpt-5-codex and
  // gpt-5.1-codex. gpt-3.5-turbo-instruct: its page, 4,096 context. The 16k snapshot: 16,385 at
  // OpenAI, 16,384 on Azure (learn.microsoft.com/azure/ai-foundry/openai/concepts/legacy-models),
  // the smaller kept. The 0301 and 0613 snapshots: 4,096 (Azure's legacy models page).
  openai('gpt-5.1-codex', 400_000, 128_000, tile('gpt-5')),
  openai('gpt-5-codex', 400_000, 128_000, tile('gpt-5')),
  variant(
    openai('gpt-3.5-turbo-instruct', 4_096, 4_096, none, 'cl100k_base', 'gpt-4'),
    'completions',
  ),
  variant(openai('gpt-3.5-turbo-16k', 16_384, 4_096, none, 'cl100k_base', 'gpt-4'), 'retired'),
  variant(openai('gpt-3.5-turbo-0613', 4_096, 4_096, none, 'cl100k_base', 'gpt-4'), 'retired'),
  variant(openai('gpt-3.5-turbo-0301', 4_096, 4_096, none, 'cl100k_base', 'gpt-4'), 'retired'),

  // Claude's tokenizer is not public: counted by class of piece as Claude's own usage showed
  // (`CLAUDE_COUNTING`). Opus 4.7 brought a second tokenizer (`tokenizerGeneration: 2`),
  // counted per class of piece by `CLAUDE_TOKENIZER_2` on top. The factor beside each model is
  // the former estimate (o200k pieces × 1.6, × 2.35 with the second tokenizer), kept for
  // `estimate: 'factor'`; it also says which generation a model has.
  // Windows are the standard ones (the 1M-token windows some models offer are opt-in): give
  // `budget` for them.
  // A newer model (claude-opus-5, claude-sonnet-5, ...) gets figures no larger than any
  // current Claude's, and the result says so, until `registerModel` gives its own.
  claudeModel('claude-opus-4-8', 200_000, 128_000, CLAUDE_NEW),
  claudeModel('claude-opus-4-7', 200_000, 128_000, CLAUDE_NEW),
  claudeModel('claude-opus-4-6', 200_000, 128_000, CLAUDE),
  claudeModel('claude-sonnet-4-6', 200_000, 128_000, CLAUDE),
  claudeModel('claude-opus-4-5', 200_000, 64_000, CLAUDE),
  claudeModel('claude-sonnet-4-5', 200_000, 64_000, CLAUDE),
  claudeModel('claude-haiku-4-5', 200_000, 64_000, CLAUDE),
  // Retired from Anthropic's own API or on their way out, still served by Bedrock and Vertex
  // (the legacy models table).
  claudeModel('claude-opus-4-1', 200_000, 32_000, CLAUDE),
  claudeModel('claude-opus-4', 200_000, 32_000, CLAUDE),
  claudeModel('claude-sonnet-4', 200_000, 64_000, CLAUDE),
  claudeModel('claude-3-7-sonnet', 200_000, 64_000, CLAUDE),
  claudeModel('claude-3-5-sonnet', 200_000, 8_192, CLAUDE),
  claudeModel('claude-3-5-haiku', 200_000, 8_192, CLAUDE),
  claudeModel('claude-3-haiku', 200_000, 4_096, CLAUDE),
  claudeModel('claude-3-opus', 200_000, 4_096, CLAUDE),
  // Retired (the legacy models table; still named by old code and gateways): Claude 2.1 had
  // 200,000, Claude 2.0 and Instant 1.2 100,000; each 4,096 out.
  variant(claudeModel('claude-2-1', 200_000, 4_096, CLAUDE), 'retired'),
  variant(claudeModel('claude-2-0', 100_000, 4_096, CLAUDE), 'retired'),
  variant(claudeModel('claude-instant-1-2', 100_000, 4_096, CLAUDE), 'retired'),

  // Gemini 2.x and 3 share the Gemma 3 tokenizer (exact counts: `context-window/gemini-tokenizer`).
  // Measured with it on the 200 τ-bench trajectories: 1.03 to 1.16 times o200k (1.11 overall),
  // LoCoMo 1.08, code 1.17; CJK fewer. The estimate keeps ×1.2.
  estimated('google', 'gemini-3-pro', 1_048_576, 65_536, 1.2, gemini),
  estimated('google', 'gemini-2.5-pro', 1_048_576, 65_536, 1.2, gemini),
  estimated('google', 'gemini-2.5-flash', 1_048_576, 65_536, 1.2, gemini),
  estimated('google', 'gemini-2.5-flash-lite', 1_048_576, 65_536, 1.2, gemini),
  estimated('google', 'gemini-2.0-flash', 1_048_576, 8_192, 1.2, gemini),
  estimated('google', 'gemini-1.5-pro', 2_097_152, 8_192, 1.2, gemini),
  estimated('google', 'gemini-1.5-flash', 1_048_576, 8_192, 1.2, gemini),
  estimated('google', 'gemini-2.0-flash-lite', 1_048_576, 8_192, 1.2, gemini),
  // Variants with windows of their own. Image generation (ai.google.dev/gemini-api/docs/models,
  // Gemini 2.5 Flash Image: 32,768 in and out; some listings give 1,048,576, the smaller kept).
  // Live native audio (cloud.google.com/vertex-ai/generative-ai/docs/models/gemini/2-5-flash-live-api:
  // 128,000 in, 64,000 out; a session starts at 32,000 unless its context is raised: give
  // `budget` for that). Gemini 1.0 Pro, retired: 30,720 in, 2,048 out.
  variant(estimated('google', 'gemini-2.5-flash-image', 32_768, 32_768, 1.2, gemini), 'image'),
  variant(
    estimated('google', 'gemini-live-2.5-flash-native-audio', 128_000, 64_000, 1.2, gemini),
    'live',
  ),
  variant(estimated('google', 'gemini-1.0-pro', 30_720, 2_048, 1.2, gemini), 'retired'),
  // Speech generation (the models page: Gemini 2.5 Flash Preview TTS, 8,192 in, 16,384 out;
  // the output is kept within the window here, as the table holds every model to).
  variant(estimated('google', 'gemini-2.5-flash-preview-tts', 8_192, 8_192, 1.2, gemini), 'tts'),

  estimated('meta', 'llama-4-maverick', 1_048_576, 16_384, 1.2, none),
  estimated('meta', 'llama-4-scout', 10_000_000, 16_384, 1.2, none),
  estimated('meta', 'llama-3.3-70b', 131_072, 8_192, 1.2, none),
  estimated('meta', 'llama-3.2', 131_072, 8_192, 1.2, none),
  estimated('meta', 'llama-3.1', 131_072, 8_192, 1.2, none),
  // Llama 3 itself (`llama3-70b`, `Meta-Llama-3-8B-Instruct`) has an 8K window.
  estimated('meta', 'llama-3', 8_192, 2_048, 1.2, none),
]

function variant(model: ModelInfo, kind: string): ModelInfo {
  return { ...model, variant: kind }
}

/**
 * How the SDKs, gateways and clouds spell a model, rewritten in order to the id the table
 * lists: the path of a gateway, router or cloud resource (`anthropic/…`, `models/…`,
 * `publishers/anthropic/models/…`, an ARN), a fine-tuned OpenAI model's base (`ft:<base>:org::id`),
 * a Bedrock inference profile and vendor (`us.anthropic.…`, `global.…`, `meta.…`), a Vertex
 * date (`@20250929`), a Bedrock version (`-v2:0`), a router's variant (`:free`, `:thinking`),
 * a router's dotted Claude version (`claude-sonnet-4.5`, `claude-3.5-sonnet`), Bedrock's
 * and Groq's Llama (`llama3-1-70b`, `llama3-70b`).
 */
const SPELLINGS: readonly (readonly [RegExp, string])[] = [
  [/^.*\//, ''],
  [/^ft:([^:]+):.*$/, '$1'],
  [/^(?:[a-z]{2,6}(?:-[a-z]+)?\.)?(?:anthropic|meta|openai|google)\./, ''],
  [/@.*$/, ''],
  // Bedrock's Claude 2 and Instant ids: their version is in the `-v` part.
  [/^claude-v2:1$/, 'claude-2-1'],
  [/^claude-v2(?::0)?$/, 'claude-2-0'],
  [/^claude-instant-v1$/, 'claude-instant-1-2'],
  // Azure's GPT-3.5 (`gpt-35-turbo`, `gpt-35-turbo-16k`, `gpt-35-turbo-instruct`).
  [/^gpt-35-/, 'gpt-3.5-'],
  // Fireworks' Llama (`llama-v3-70b-instruct`, `llama-v3p1-8b-instruct`).
  [/^llama-v(\d+)p(\d+)-/, 'llama-$1.$2-'],
  [/^llama-v(\d+)-/, 'llama-$1-'],
  [/-v\d+(?::\d+)?$/, ''],
  [/:[a-z][\w-]*$/, ''],
  [/:\d+$/, ''],
  [/^(claude-(?:[a-z]+-)?\d+)\.(\d+)/, '$1-$2'],
  [/^llama(\d+)-(\d)-/, 'llama-$1.$2-'],
  [/^llama(\d+)-/, 'llama-$1-'],
  [/^meta-llama-/, 'llama-'],
]

/** Older spellings of a listed model that its id is not a prefix of. */
const ALIASES: Readonly<Record<string, string>> = {
  'claude-2': 'claude-2-0',
  'claude-instant-1': 'claude-instant-1-2',
  'gemini-pro': 'gemini-1.0-pro',
  'gpt-4-1106-preview': 'gpt-4-turbo',
  'gpt-4-0125-preview': 'gpt-4-turbo',
  'gpt-4-vision-preview': 'gpt-4-turbo',
}

/** The id as the table would list it: lower case, every spelling of `SPELLINGS` undone. */
export function canonicalModelId(id: string): string {
  requireArgument(typeof id === 'string', 'canonicalModelId', 'id', 'a model id', id)
  let bare = id.trim().toLowerCase()
  for (const [from, to] of SPELLINGS) bare = bare.replace(from, to)
  return ALIASES[bare] ?? bare
}

/**
 * Finds a model by id, however an SDK, gateway or cloud spells it (`canonicalModelId`): a
 * registered model, else a listed one (exact, or the longest listed id the given one extends
 * with a date or suffix), else, for an id of a known provider, figures no larger than that
 * provider's (`assumed` says so). Returns undefined for an id of no known provider.
 */
export function findModel(id: string): ModelInfo | undefined {
  if (typeof id !== 'string') return undefined
  const exact = registered.get(id.trim().toLowerCase())
  if (exact) return exact
  if (!knownPath(id)) return undefined
  const bare = canonicalModelId(id)
  return registered.get(bare) ?? listedModel(id, bare) ?? unlistedModel(id, bare)
}

/**
 * The first part of a path that is a provider, gateway, router or cloud (LiteLLM's `azure/`,
 * `bedrock/`, `vertex_ai/`; OpenRouter's `openai/`; Fireworks' `accounts/`; Vertex's
 * `projects/`, `publishers/`, `models/`; an ARN). Any other (`EleutherAI/gpt-j-6b`,
 * `nvidia/llama-3.1-nemotron-70b-instruct`) is another organisation's model, whatever the
 * rest looks like: it is not taken for one of the table's.
 */
const PATHS =
  /^(?:arn:.*|openai|anthropic|google|gemini|meta|meta-llama|models|publishers|projects|azure|azure_ai|bedrock|bedrock_converse|vertex_ai|vertex_ai_beta|vertex|openrouter|accounts|fireworks|fireworks_ai|together|together_ai|groq|deepinfra|litellm_proxy)$/

function knownPath(id: string): boolean {
  const trimmed = id.trim().toLowerCase()
  const slash = trimmed.indexOf('/')
  return slash < 0 || PATHS.test(trimmed.slice(0, slash))
}

/**
 * The figures used when only the provider is known (`provider: 'anthropic'` with no model):
 * those of an unlisted model of that provider.
 */
export function providerModel(provider: ModelInfo['provider']): ModelInfo {
  return conservative(provider, provider)
}

const registered = new Map<string, ModelInfo>()

/**
 * Adds a model to the table, or overrides a listed one, for this process: its window,
 * output limit, tokenizer (`o200k_base`, `cl100k_base`, or `estimate` with `estimateFactor`)
 * and image pricing. A model registered this way is found by its exact id. Counters already
 * made for that id are not changed: register before the first fit that names it.
 */
export function registerModel(info: {
  id: string
  provider: ModelInfo['provider']
  contextWindow: number
  maxOutputTokens: number
  tokenizer: Tokenizer
  estimateFactor?: number
  image?: ImageModel
}): ModelInfo {
  const bad = (field: string, why: string): never => {
    throw new InvalidOptionError(`model.${field}`, why)
  }
  if (!info || typeof info !== 'object') bad('info', 'expected a model description')
  if (typeof info.id !== 'string' || !info.id.trim()) bad('id', 'expected a model id')
  if (!['openai', 'anthropic', 'google', 'meta'].includes(info.provider))
    bad(
      'provider',
      `expected openai, anthropic, google or meta, got ${describeValue(info.provider)}`,
    )
  for (const field of ['contextWindow', 'maxOutputTokens'] as const)
    if (!Number.isInteger(info[field]) || info[field] < 1)
      bad(field, 'expected a whole number >= 1')
  if (!['o200k_base', 'cl100k_base', 'estimate'].includes(info.tokenizer))
    bad('tokenizer', 'expected o200k_base, cl100k_base or estimate')
  const factor = info.estimateFactor
  if (
    factor !== undefined &&
    !(typeof factor === 'number' && factor >= 1 && Number.isFinite(factor))
  )
    bad('estimateFactor', 'expected a number >= 1')
  const model: ModelInfo = {
    id: info.id.trim().toLowerCase(),
    provider: info.provider,
    contextWindow: info.contextWindow,
    maxOutputTokens: info.maxOutputTokens,
    tokenizer: info.tokenizer,
    ...(info.tokenizer === 'estimate' && { estimateFactor: factor ?? 1.3 }),
    image: info.image ?? { kind: 'unknown' },
    ...(info.tokenizer !== 'estimate' && { toolFormula: 'gpt-4o' as const }),
  }
  registered.set(model.id, model)
  tableVersion++
  return model
}

let tableVersion = 0
/** Grows with every `registerModel`: what is worked out from the whole table is kept until it moves. */
export function modelTableVersion(): number {
  return tableVersion
}

/**
 * A model the table does not list, of a provider it knows by the id's form (`claude-…`,
 * `gemini-…`, `gpt-…`, `o<digit>…`, `llama-…`), with figures no larger than the provider's
 * current models': their smallest window, an output limit of a quarter of it, their largest
 * safety factor; `assumed` says so. `registerModel` gives a model its own.
 */
function unlistedModel(id: string, bare: string): ModelInfo | undefined {
  const provider: ModelInfo['provider'] | undefined = /^claude-/.test(bare)
    ? 'anthropic'
    : /^gemini-/.test(bare)
      ? 'google'
      : /^(gpt-|o\d|chatgpt-)/.test(bare)
        ? 'openai'
        : /^llama-/.test(bare)
          ? 'meta'
          : undefined
  if (!provider) return undefined
  return conservative(provider, bare, id)
}

/** What a note on figures the table does not list ends with. */
const OWN =
  'registerModel({ id, provider, contextWindow, maxOutputTokens, tokenizer }) gives its own'

/** Current models: windows of 100,000 tokens or more (older ones had far smaller windows). */
const CURRENT = 100_000

function conservative(provider: ModelInfo['provider'], bare: string, id?: string): ModelInfo {
  const own = models.filter(
    (m) => m.provider === provider && m.contextWindow >= CURRENT && !m.variant,
  )
  const contextWindow = Math.min(...own.map((m) => m.contextWindow))
  const maxOutputTokens = Math.floor(contextWindow / 4)
  const factor = Math.max(...own.map((m) => m.estimateFactor ?? 1))
  const base = own.find((m) => m.contextWindow === contextWindow) as ModelInfo
  const figures = `window ${contextWindow}, output ${maxOutputTokens}${base.tokenizer === 'estimate' ? `, counts ×${factor}` : ''}`
  return {
    ...base,
    id: bare,
    contextWindow,
    maxOutputTokens,
    ...(base.tokenizer === 'estimate' && { estimateFactor: factor }),
    assumed:
      id === undefined
        ? `no model named: figures no larger than any listed ${provider} model's are used (${figures}); name the model for its own`
        : `model ${JSON.stringify(id)} is not in the model table: figures no larger than any listed ${provider} model's are used (${figures}); ${OWN}`,
  }
}

/**
 * What may follow a listed id in an id that names the same model, part by part (`-` apart): a
 * date or snapshot number (`-2024-08-06`, `-20250929`, `-0613`, `-002`, `-05-06`), `latest`,
 * `preview`, `exp`; for Llama, the size and tuning a host names (`-70b-instruct`, `-17b-16e`,
 * `-instant`, `-versatile`, `-turbo`, `-hf`, `-fp8`); and a window (`-16k`, read as 16,000
 * at most). A whole `-0` is an alias (`claude-sonnet-4-0`).
 */
const SAME = /^(?:\d{2,8}|latest|preview|exp)$/
const LLAMA_SAME = /^(?:instruct|chat|hf|instant|versatile|turbo|fp8|\d+(?:\.\d+)?b|\d+e|a\d+b)$/
const WINDOW = /^(\d+)k$/

type Extension = { kind: 'same'; window?: number } | { kind: 'variant' } | undefined

/** How `rest`, what follows a listed id in the given one, relates the two. */
function extension(rest: string, model: ModelInfo): Extension {
  if (rest === '' || rest === '-0') return { kind: 'same' }
  if (!rest.startsWith('-')) return undefined
  const parts = rest.slice(1).split('-')
  // `-5` after `claude-sonnet-4`: another version, not this model.
  if (/^\d$/.test(parts[0] as string)) return undefined
  let window: number | undefined
  for (const part of parts) {
    const k = WINDOW.exec(part)
    if (k) window = Math.min(window ?? Number.POSITIVE_INFINITY, Number(k[1]) * 1000)
    else if (!SAME.test(part) && !(model.provider === 'meta' && LLAMA_SAME.test(part)))
      return { kind: 'variant' }
  }
  return window === undefined ? { kind: 'same' } : { kind: 'same', window }
}

/**
 * A listed model: exact, else the longest listed id the given one extends. What follows it
 * names the same model (a date, `-latest`, a host's size: `extension`), or a variant the table
 * does not list (`-audio-preview`, `-image`, `-live`, `-search`): a variant gets a window no
 * larger than the smallest its provider lists, as a variant's window can be far smaller than
 * its family's (`gpt-3.5-turbo-instruct`: 4,096; `gemini-2.5-flash-image`: 32,768).
 */
function listedModel(id: string, bare: string): ModelInfo | undefined {
  let best: ModelInfo | undefined
  let how: Extension
  for (const m of models) {
    if (bare === m.id) return m
    if (!bare.startsWith(m.id) || (best && m.id.length <= best.id.length)) continue
    const e = extension(bare.slice(m.id.length), m)
    if (e) {
      best = m
      how = e
    }
  }
  if (!best || !how) return undefined
  if (how.kind === 'variant') return variantOf(best, id)
  if (how.window === undefined || how.window >= best.contextWindow) return best
  const contextWindow = how.window
  const maxOutputTokens = Math.min(best.maxOutputTokens, Math.floor(contextWindow / 4))
  return {
    ...best,
    contextWindow,
    maxOutputTokens,
    assumed: `model ${JSON.stringify(id)} names a window of ${contextWindow} in its id: ${best.id}'s figures with that window are used (output ${maxOutputTokens}); ${OWN}`,
  }
}

/** An unlisted variant of a listed model: its counting, and the smallest window its provider lists. */
function variantOf(base: ModelInfo, id: string): ModelInfo {
  const own = models.filter((m) => m.provider === base.provider)
  const contextWindow = Math.min(...own.map((m) => m.contextWindow))
  const maxOutputTokens = Math.floor(contextWindow / 4)
  return {
    ...base,
    id: canonicalModelId(id),
    contextWindow,
    maxOutputTokens,
    variant: 'unlisted',
    assumed: `model ${JSON.stringify(id)} is a variant of ${base.id} that the model table does not list: a window no larger than any listed ${base.provider} model's is used (window ${contextWindow}, output ${maxOutputTokens}); ${OWN}`,
  }
}

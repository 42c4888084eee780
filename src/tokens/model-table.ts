/** The models the library knows: window, output limit, tokenizer, image pricing and how Claude counts, one row each. */

import {
  CLAUDE_COUNTING,
  CLAUDE_COUNTING_2,
  CLAUDE_COUNTING_O200K,
  CLAUDE_COUNTING_O200K_2,
  type ClaudeCounting,
} from './claude-counting.js'
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

const tile = (family: Extract<ImageModel, { kind: 'tile' }>['family']): ImageModel => ({
  kind: 'tile',
  family,
})
const patch = (factor: number): ImageModel => ({ kind: 'patch', factor })
export const claude: ImageModel = { kind: 'anthropic' }
export const gemini: ImageModel = { kind: 'gemini' }
const none: ImageModel = { kind: 'unknown' }

export const openai = (
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

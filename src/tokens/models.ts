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

/** Context windows and output limits as the providers publish them. */
export const models: readonly ModelInfo[] = [
  openai('gpt-5.1', 400_000, 128_000, tile('gpt-5')),
  openai('gpt-5', 400_000, 128_000, tile('gpt-5')),
  openai('gpt-5-mini', 400_000, 128_000, patch(1.62)),
  openai('gpt-5-nano', 400_000, 128_000, patch(2.46)),
  openai('gpt-4.1', 1_047_576, 32_768, tile('gpt-4.1')),
  openai('gpt-4.1-mini', 1_047_576, 32_768, patch(1.62)),
  openai('gpt-4.1-nano', 1_047_576, 32_768, patch(2.46)),
  openai('gpt-4.5-preview', 128_000, 16_384, tile('gpt-4.5')),
  openai('gpt-4o', 128_000, 16_384, tile('gpt-4o')),
  openai('chatgpt-4o-latest', 128_000, 16_384, tile('gpt-4o')),
  openai('gpt-4o-mini', 128_000, 16_384, tile('gpt-4o-mini')),
  openai('o1', 200_000, 100_000, tile('o1')),
  openai('o1-mini', 128_000, 65_536, none),
  openai('o3', 200_000, 100_000, tile('o3')),
  openai('o3-mini', 200_000, 100_000, none),
  openai('o4-mini', 200_000, 100_000, patch(1.72)),
  openai('gpt-oss-120b', 131_072, 131_072, none),
  openai('gpt-oss-20b', 131_072, 131_072, none),
  openai('gpt-4-turbo', 128_000, 4_096, tile('gpt-4-turbo'), 'cl100k_base', 'gpt-4'),
  openai('gpt-4-32k', 32_768, 32_768, none, 'cl100k_base', 'gpt-4'),
  openai('gpt-4', 8_192, 8_192, none, 'cl100k_base', 'gpt-4'),
  openai('gpt-3.5-turbo', 16_385, 4_096, none, 'cl100k_base', 'gpt-4'),

  estimated('anthropic', 'claude-opus-4-5', 200_000, 64_000, 1.3, claude),
  estimated('anthropic', 'claude-opus-4-1', 200_000, 32_000, 1.3, claude),
  estimated('anthropic', 'claude-opus-4', 200_000, 32_000, 1.3, claude),
  estimated('anthropic', 'claude-sonnet-4-5', 200_000, 64_000, 1.3, claude),
  estimated('anthropic', 'claude-sonnet-4', 200_000, 64_000, 1.3, claude),
  estimated('anthropic', 'claude-haiku-4-5', 200_000, 64_000, 1.3, claude),
  estimated('anthropic', 'claude-3-7-sonnet', 200_000, 64_000, 1.3, claude),
  estimated('anthropic', 'claude-3-5-sonnet', 200_000, 8_192, 1.3, claude),
  estimated('anthropic', 'claude-3-5-haiku', 200_000, 8_192, 1.3, claude),
  estimated('anthropic', 'claude-3-opus', 200_000, 4_096, 1.3, claude),
  estimated('anthropic', 'claude-3-haiku', 200_000, 4_096, 1.3, claude),

  estimated('google', 'gemini-2.5-pro', 1_048_576, 65_536, 1.2, gemini),
  estimated('google', 'gemini-2.5-flash', 1_048_576, 65_536, 1.2, gemini),
  estimated('google', 'gemini-2.5-flash-lite', 1_048_576, 65_536, 1.2, gemini),
  estimated('google', 'gemini-2.0-flash', 1_048_576, 8_192, 1.2, gemini),
  estimated('google', 'gemini-1.5-pro', 2_097_152, 8_192, 1.2, gemini),
  estimated('google', 'gemini-1.5-flash', 1_048_576, 8_192, 1.2, gemini),

  estimated('meta', 'llama-4-maverick', 1_048_576, 16_384, 1.2, none),
  estimated('meta', 'llama-4-scout', 10_000_000, 16_384, 1.2, none),
  estimated('meta', 'llama-3.3-70b', 131_072, 8_192, 1.2, none),
  estimated('meta', 'llama-3.2', 131_072, 8_192, 1.2, none),
  estimated('meta', 'llama-3.1', 131_072, 8_192, 1.2, none),
]

/**
 * Finds a model by id: exact, else the longest listed id the given one starts with, after
 * dropping a provider prefix (`openai/`, `anthropic.`, `models/`) and `meta-llama/Llama-`
 * casing. Returns undefined for a model it does not know.
 */
export function findModel(id: string): ModelInfo | undefined {
  const bare = id
    .trim()
    .toLowerCase()
    .replace(/^(openai|anthropic|google|meta-llama|meta|models)[/.]/, '')
  let best: ModelInfo | undefined
  for (const m of models) {
    if (bare === m.id) return m
    const boundary = bare[m.id.length]
    if (
      bare.startsWith(m.id) &&
      (boundary === '-' || boundary === '.' || boundary === '@' || boundary === ':')
    ) {
      if (!best || m.id.length > best.id.length) best = m
    }
  }
  return best
}

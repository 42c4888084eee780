/**
 * What an image costs, per provider, from their published pricing pages. Data, not code:
 * when a provider changes its figures, this table changes and nothing else.
 */
export const imagePricing = {
  /** OpenAI tile models: fit in `fit`², scale the short side to `shortSide`, then tiles of `tile` px. */
  tile: {
    'gpt-4o': { base: 85, perTile: 170 },
    'gpt-4o-mini': { base: 2833, perTile: 5667 },
    'gpt-4.1': { base: 85, perTile: 170 },
    'gpt-4-turbo': { base: 85, perTile: 170 },
    'gpt-5': { base: 70, perTile: 140 },
    o1: { base: 75, perTile: 150 },
    o3: { base: 75, perTile: 150 },
    default: { base: 85, perTile: 170 },
  },
  tileGeometry: { fit: 2048, shortSide: 768, tile: 512 },
  /** OpenAI patch models: 32-px patches, at most `cap`, times a per-model factor. */
  patch: {
    size: 32,
    cap: 1536,
    factor: {
      'gpt-4.1-mini': 1.62,
      'gpt-4.1-nano': 2.46,
      'gpt-5-mini': 1.62,
      'gpt-5-nano': 2.46,
      'o4-mini': 1.72,
    } as Record<string, number>,
  },
  /** Anthropic: width × height / 750 after scaling the long side down to 1568 px. */
  anthropic: { divisor: 750, maxLongSide: 1568, maxTokens: 1600 },
  /** Gemini: 258 per 768-px tile; an image with both sides up to 384 px is one tile. */
  gemini: { perTile: 258, tile: 768, small: 384 },
  /** A model with no published figure: priced like the dearest of the above. */
  unknown: { tokens: 1600 },
} as const

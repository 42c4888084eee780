import type { ImagePart } from '../messages/message.js'
import { imagePricing } from './image-pricing.js'
import { imageSize, type Size } from './image-size.js'

export type ImageModel =
  | { kind: 'tile'; family: keyof typeof imagePricing.tile }
  | { kind: 'patch'; factor: number }
  | { kind: 'anthropic' }
  | { kind: 'gemini' }
  | { kind: 'unknown' }

/** Tokens an image costs on a model; an image of unknown size is priced at the worst case. */
export function imageTokens(part: ImagePart, model: ImageModel): number {
  const size = imageSize(part)
  switch (model.kind) {
    case 'tile':
      return tileTokens(size, part.detail, imagePricing.tile[model.family])
    case 'patch':
      return patchTokens(size, model.factor)
    case 'anthropic':
      return anthropicTokens(size)
    case 'gemini':
      return geminiTokens(size)
    default:
      return imagePricing.unknown.tokens
  }
}

function tileTokens(
  size: Size | undefined,
  detail: ImagePart['detail'],
  price: { base: number; perTile: number },
): number {
  if (detail === 'low') return price.base
  const { fit, shortSide, tile } = imagePricing.tileGeometry
  // Unknown size: the largest tile count the scaling allows (768 × 2048: 2 × 4 tiles).
  if (!size) return price.base + price.perTile * Math.ceil(shortSide / tile) * Math.ceil(fit / tile)
  let { width: w, height: h } = size
  if (w > fit || h > fit) {
    const r = fit / Math.max(w, h)
    w *= r
    h *= r
  }
  if (Math.min(w, h) > shortSide) {
    const r = shortSide / Math.min(w, h)
    w *= r
    h *= r
  }
  return price.base + price.perTile * Math.ceil(w / tile) * Math.ceil(h / tile)
}

function patchTokens(size: Size | undefined, factor: number): number {
  const { size: p, cap } = imagePricing.patch
  if (!size) return Math.ceil(cap * factor)
  let patches = Math.ceil(size.width / p) * Math.ceil(size.height / p)
  if (patches > cap) {
    const r = Math.sqrt((p * p * cap) / (size.width * size.height))
    patches = Math.min(cap, Math.ceil((size.width * r) / p) * Math.ceil((size.height * r) / p))
  }
  return Math.ceil(patches * factor)
}

function anthropicTokens(size: Size | undefined): number {
  const { divisor, maxLongSide, maxTokens } = imagePricing.anthropic
  if (!size) return maxTokens
  const r = Math.min(1, maxLongSide / Math.max(size.width, size.height))
  return Math.min(maxTokens, Math.ceil((size.width * r * size.height * r) / divisor))
}

function geminiTokens(size: Size | undefined): number {
  const { perTile, tile, small } = imagePricing.gemini
  if (!size) return perTile * 4
  if (size.width <= small && size.height <= small) return perTile
  return perTile * Math.ceil(size.width / tile) * Math.ceil(size.height / tile)
}

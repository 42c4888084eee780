import { encode } from 'gpt-tokenizer/encoding/o200k_base'

/**
 * A request body's tokens counted apart from the library: o200k on every string value of the
 * serialized body, but those the providers do not read as text (ids, types, roles, statuses,
 * signatures and encrypted blobs, which are sent back byte for byte).
 */
const SKIP = new Set([
  'type',
  'id',
  'call_id',
  'tool_use_id',
  'role',
  'status',
  'signature',
  'thoughtSignature',
  'encrypted_content',
])

export function wireTokens(value: unknown, key = ''): number {
  if (typeof value === 'string')
    return SKIP.has(key) ? 0 : encode(value, { disallowedSpecial: new Set() }).length
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + wireTokens(v), 0)
  if (value && typeof value === 'object')
    return Object.entries(value).reduce((n, [k, v]) => n + wireTokens(v, k), 0)
  return 0
}

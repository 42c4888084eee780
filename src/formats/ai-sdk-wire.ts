/** The AI SDK's `ModelMessage` as JSON, and what this codec keeps of it for the way back (`pinned` among it). */
import { fieldsOf, isJson, type Json, metadataFor } from '../providers/codec-kit.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const AI_SDK = 'ai-sdk'

export type Part = Json & { type: string }

/** A part as the SDK writes one: an object with a string `type`. */
export function isPart(v: unknown): v is Part {
  return isJson(v) && typeof v.type === 'string'
}

/** A Vercel AI SDK `ModelMessage` (v5 and later) as plain JSON. */
export type ModelMessageJson = {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | Part[]
} & Json

export const { meta, withMeta } = metadataFor(AI_SDK)
export const opts = (p: Json): Json =>
  p.providerOptions !== undefined ? { providerOptions: p.providerOptions } : {}

/** Where a `ModelMessage` carries `pinned`: its own key of `providerOptions`, which providers leave alone. */
const PINNED_KEY = 'contextWindow'

export function pinnedOf(m: Json): boolean {
  return fieldsOf(fieldsOf(m.providerOptions)[PINNED_KEY]).pinned === true
}

/** `base` (a message's kept `providerOptions`) saying `pinned` as the message does. */
export function withPinned(base: Json, pinned: boolean): Json {
  const options = fieldsOf(base.providerOptions)
  const own = fieldsOf(options[PINNED_KEY])
  if (pinned) return { ...base, providerOptions: { ...options, [PINNED_KEY]: { ...own, pinned } } }
  if (own.pinned === undefined) return base
  const { pinned: _p, ...ownRest } = own
  const { [PINNED_KEY]: _o, ...rest } = options
  const next = Object.keys(ownRest).length ? { ...rest, [PINNED_KEY]: ownRest } : rest
  const { providerOptions: _x, ...without } = base
  return Object.keys(next).length ? { ...without, providerOptions: next } : without
}

/** What the counting endpoint's measurements are kept by: each message's content key, and counts scaled by a measured ratio. */
import type { Message } from '../../messages/message.js'
import { unchangedOf } from '../assemble.js'
import type { FitResult } from '../result.js'

export const scale = (n: number, ratio: number | undefined): number =>
  ratio === undefined ? n : Math.ceil(n * ratio)

/**
 * Each message's content key, by object. A key depends on the content alone, so one table
 * serves every endpoint, and a fit's unchanged copy of a message takes its original's key
 * (`fitCounted`) instead of being serialized again on every turn.
 */
export const keys = new WeakMap<Message, number>()
export function keyOf(m: Message): number {
  let k = keys.get(m)
  if (k === undefined) {
    k = hash(JSON.stringify(m), 1)
    keys.set(m, k)
  }
  return k
}

/** The messages of a fit that went out as they came in share their input's key. */
export function shareKeys(input: readonly Message[], result: FitResult): void {
  for (const { from, position } of unchangedOf(result) ?? []) {
    const copy = result.messages[position]
    const original = input[from]
    if (copy && original && !keys.has(copy)) keys.set(copy, keyOf(original))
  }
}

/** A 53-bit hash of `s` (cyrb53), seeded: keys for counts, never sent anywhere. */
export function hash(s: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed
  let h2 = 0x41c6ce57 ^ seed
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

/** Each figure of a breakdown times `ratio`, but the one named `keep`. */
export function scaled(
  breakdown: Record<string, number>,
  ratio: number,
  keep: string,
): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(breakdown)) if (k !== keep) out[k] = Math.ceil(v * ratio)
  return out
}

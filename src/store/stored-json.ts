/** Readers of what a caller or a server hands a store, checked as they read (no field is taken on trust). */

import { isRecord } from '../options-check.js'

/** A field of `v` when `v` is an object, else undefined. */
export function fieldOf(v: unknown, key: string): unknown {
  return isRecord(v) ? v[key] : undefined
}

/** A whole number JavaScript holds exactly (`Number.isSafeInteger`, as a type guard). */
export function isWhole(v: unknown): v is number {
  return Number.isSafeInteger(v)
}

/** The text up to its first line break. */
export function firstLineOf(text: string): string {
  const end = text.indexOf('\n')
  return end < 0 ? text : text.slice(0, end)
}

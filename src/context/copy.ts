import { copyData } from '../messages/copy.js'
/**
 * A deep copy of plain data (what a message holds), frozen when asked: several times faster
 * than `structuredClone` on small objects, which matters when a fit copies what it keeps.
 * A `__proto__` key is copied as data, never as the copy's prototype. Anything that is not
 * a plain object or array is handed to `structuredClone`.
 */
export function copyPlain<T>(value: T, freeze = false): T {
  return copyData(value, freeze, freeze ? cloneFrozen : cloneOther)
}

const cloneOther = (value: object): unknown => structuredClone(value)
const cloneFrozen = (value: object): unknown => Object.freeze(structuredClone(value))

/** A deep copy that cannot be modified: what a context's history stores. One pass, no structuredClone. */
export function frozenCopy<T>(value: T): T {
  return copyPlain(value, true)
}

/**
 * A deep copy of plain data (what a message holds), frozen when asked: several times faster
 * than `structuredClone` on small objects, which matters when a fit copies what it keeps.
 * A `__proto__` key is copied as data, never as the copy's prototype. Anything that is not
 * a plain object or array is handed to `structuredClone`.
 */
export function copyPlain<T>(value: T, freeze = false): T {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    const out = value.map((v) => copyPlain(v, freeze))
    return (freeze ? Object.freeze(out) : out) as T
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) {
    const out = structuredClone(value)
    return freeze ? Object.freeze(out) : out
  }
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const v = copyPlain((value as Record<string, unknown>)[key], freeze)
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    else out[key] = v
  }
  return (freeze ? Object.freeze(out) : out) as T
}

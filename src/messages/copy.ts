/**
 * A deep copy of plain data (what a message holds): plain objects and arrays are copied
 * key by key, frozen when asked, and anything else (bytes, a URL, a Date) is handed to
 * `other`. A `__proto__` key is copied as data, never as the copy's prototype. Several
 * times faster than `structuredClone` on small objects, which matters on the hot path.
 */
export function copyData<T>(value: T, freeze: boolean, other: (value: object) => unknown): T {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    const out = new Array(value.length)
    for (let i = 0; i < value.length; i++) out[i] = copyData(value[i], freeze, other)
    return (freeze ? Object.freeze(out) : out) as T
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return other(value) as T
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const v = copyData((value as Record<string, unknown>)[key], freeze, other)
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

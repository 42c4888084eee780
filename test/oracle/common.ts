// Shared by the provider oracles. Imports nothing from src/: the oracles are written from the
// providers' published rules, apart from the library's own validate().

export type Json = Record<string, unknown>

export const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Every string in a request is sent as UTF-8 JSON: a lone surrogate has no UTF-8 form and
 * the request is refused (Anthropic: HTTP 400 "no low surrogate in string").
 */
export function loneSurrogates(value: unknown, where: string, out: string[]): void {
  const stack: [unknown, string][] = [[value, where]]
  while (stack.length) {
    const [v, at] = stack.pop() as [unknown, string]
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) out.push(`${at}: string with a lone surrogate`)
    } else if (Array.isArray(v)) {
      for (let k = 0; k < v.length; k++) stack.push([v[k], `${at}.${k}`])
    } else if (isObject(v)) for (const [k, x] of Object.entries(v)) stack.push([x, `${at}.${k}`])
  }
}

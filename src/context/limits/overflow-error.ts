/**
 * A provider's "too long" error read into figures: what `withContextRetry` and the learned
 * limit (`learned-limit.ts`) act on, and what an app calls to tell that error from others.
 */
import type { Provider } from '../../providers/provider.js'
import { providerReplies } from '../../providers/replies.js'
import type { OverflowFigures } from '../../providers/types.js'

/** What a provider said when the request was too long. */
export interface OverflowReport extends OverflowFigures {
  provider: Provider | 'unknown'
}

/**
 * Recognises a provider's "too long" error from its message or body. Each provider API reads
 * its own messages (`overflow` in its folder under `src/providers/`); when several match, the
 * one that gives the most figures wins. An API's error code (OpenAI's
 * `context_length_exceeded`) is recognised when no API's message is, and a generic "too long"
 * as provider `unknown`.
 */
export function parseOverflowError(error: unknown): OverflowReport | undefined {
  let text: string
  try {
    text = errorText(error)
  } catch {
    // A getter that throws, a proxy: not a report we can read.
    return undefined
  }
  if (!text) return undefined
  let best: OverflowReport | undefined
  let figures = -1
  for (const [provider, api] of providerReplies()) {
    const read = api.overflow.read(text)
    if (!read) continue
    const n = Object.keys(read).length
    if (n > figures) {
      best = { provider, ...read }
      figures = n
    }
  }
  if (best) return best
  for (const [provider, api] of providerReplies())
    if (api.overflow.code && text.includes(api.overflow.code)) return { provider }
  if (/prompt is too long|input is too long|too many tokens/i.test(text))
    return { provider: 'unknown' }
  return undefined
}

/**
 * The text of an error in every shape it reaches the user: the SDKs' own errors (`message`,
 * `code`, `error`, `body`), the AI SDK's `APICallError` (`data.error.code`, `responseBody`)
 * and `RetryError` (`lastError`, `errors`), and errors that wrap another one (`cause`, as
 * LangChain, the Agents SDK and Mastra do; Mastra's `details`). Wrappers are followed a few
 * levels deep, and a cycle stops the walk.
 */
function errorText(error: unknown, depth = 0, seen = new Set<object>()): string {
  if (!error) return ''
  if (typeof error === 'string') return error
  if (typeof error !== 'object' && typeof error !== 'function') return ''
  if (seen.has(error) || depth > 4) return ''
  seen.add(error)
  const parts: string[] = []
  const e = error as Record<string, unknown>
  if (typeof e.message === 'string') parts.push(e.message)
  if (typeof e.code === 'string') parts.push(e.code)
  if (typeof e.responseBody === 'string') parts.push(e.responseBody.slice(0, 100_000))
  for (const inner of [e.error, e.body, e.data, e.details])
    if (inner !== undefined) parts.push(typeof inner === 'string' ? inner : stringsOf(inner))
  for (const wrapped of [
    e.cause,
    e.lastError,
    ...(Array.isArray(e.errors) ? e.errors.slice(-3) : []),
  ])
    if (wrapped && wrapped !== error) parts.push(errorText(wrapped, depth + 1, seen))
  return parts.join(' ')
}

/** The strings and numbers inside a body, in order; cycles and depth cannot make it loop or overflow. */
function stringsOf(value: unknown): string {
  const out: string[] = []
  const seen = new Set<object>()
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }]
  while (stack.length > 0 && out.length < 10_000) {
    const { v, depth } = stack.pop() as { v: unknown; depth: number }
    if (typeof v === 'string') out.push(v)
    else if (typeof v === 'number') out.push(String(v))
    else if (v && typeof v === 'object' && !seen.has(v) && depth < 32) {
      seen.add(v)
      const values = Object.values(v)
      for (let k = values.length - 1; k >= 0; k--) stack.push({ v: values[k], depth: depth + 1 })
    }
  }
  return out.join(' ')
}

import type { Message } from '../messages/message.js'
import type { ChatContext } from './chat-context.js'

/** What a provider said when the request was too long. */
export interface OverflowReport {
  provider: 'openai' | 'anthropic' | 'unknown'
  /** The model's limit and the size of the rejected request, when the message gives them. */
  limit?: number
  actual?: number
}

/**
 * Recognises a provider's "too long" error from its message or body: OpenAI
 * `context_length_exceeded` ("maximum context length is N tokens. However, your messages
 * resulted in M tokens") and Anthropic ("prompt is too long: M tokens > N maximum").
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
  // Each pattern starts with a literal and has no lazy gap: one linear scan per pattern.
  const limit = /maximum context length is (\d+) tokens/i.exec(text)
  if (limit) {
    const rest = text.slice(limit.index + limit[0].length)
    const actual = /(?:resulted in|requested) (\d+) tokens/i.exec(rest)
    if (actual) return { provider: 'openai', limit: Number(limit[1]), actual: Number(actual[1]) }
  }
  const anthropic = /prompt is too long:\s*(\d+) tokens\s*>\s*(\d+)/i.exec(text)
  if (anthropic)
    return { provider: 'anthropic', actual: Number(anthropic[1]), limit: Number(anthropic[2]) }
  if (/context_length_exceeded/.test(text)) return { provider: 'openai' }
  if (/prompt is too long|input is too long|too many tokens/i.test(text))
    return { provider: 'unknown' }
  return undefined
}

function errorText(error: unknown): string {
  if (!error) return ''
  if (typeof error === 'string') return error
  if (typeof error !== 'object' && typeof error !== 'function') return ''
  const parts: string[] = []
  const e = error as { message?: unknown; error?: unknown; body?: unknown; code?: unknown }
  if (typeof e.message === 'string') parts.push(e.message)
  if (typeof e.code === 'string') parts.push(e.code)
  for (const inner of [e.error, e.body])
    if (inner !== undefined) parts.push(typeof inner === 'string' ? inner : stringsOf(inner))
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

export interface ContextRetryOptions {
  /** Tokens taken off beyond the reported excess. Default: 5% of the limit, at least 256. */
  margin?: number
  /** The budget the first attempt used; default: the context's. */
  budget?: number
}

export interface ContextRetryResult<T> {
  value: T
  /** Set when the first attempt was rejected as too long and a smaller fit was sent. */
  retried?: { report: OverflowReport; budget: number; messages: number }
}

/**
 * Calls the model with the context's messages; if the provider rejects the request as too
 * long, fits again with the budget shrunk by the reported excess plus a margin, retries
 * once, and says what happened. Any other error, or a second rejection, is thrown as is.
 */
export async function withContextRetry<T>(
  call: (messages: Message[]) => Promise<T>,
  ctx: ChatContext,
  options: ContextRetryOptions = {},
): Promise<ContextRetryResult<T>> {
  const first = await ctx.getMessages()
  try {
    return { value: await call(first) }
  } catch (error) {
    const report = parseOverflowError(error)
    if (!report) throw error
    const sent = (await ctx.fit()).tokens.total
    const base = options.budget ?? ctx.budget ?? sent
    const excess =
      report.actual !== undefined && report.limit !== undefined
        ? report.actual - report.limit
        : Math.ceil(sent * 0.1)
    const margin = options.margin ?? Math.max(256, Math.ceil((report.limit ?? base) * 0.05))
    const budget = Math.max(1, Math.min(base, sent) - excess - margin)
    const messages = await ctx.getMessages({ budget })
    return { value: await call(messages), retried: { report, budget, messages: messages.length } }
  }
}

import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import { providerReplies } from '../providers/replies.js'
import type { OverflowFigures } from '../providers/types.js'
import type { Provider } from '../providers/validate.js'
import type { ChatContext } from './chat-context.js'
import { fitWithin, promptTokensOf, windowAfterRejection } from './learned-limit.js'

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

export interface ContextRetryOptions {
  /** Tokens kept below the learnt window, beyond what the provider's own figures say. Default 0. */
  margin?: number
  /** What the rejected request held, reserve included, when the context cannot say. */
  budget?: number
}

export interface ContextRetryResult<T> {
  value: T
  /** Set when the first attempt was rejected as too long and a smaller fit was sent. */
  retried?: { report: OverflowReport; budget: number; messages: number }
}

/**
 * Calls the model with the context's messages; if the provider rejects the request as too
 * long, the context learns the window the rejection gives (`ctx.learnLimit`: every later
 * view fits it, so the next turn is not rejected again), fits again and retries once. The
 * provider's limit already holds the room for the reply: the reserve is taken from it once,
 * by the fit. The usage a reply reports (`usage.prompt_tokens`, `usage.input_tokens` with
 * cache reads and writes, `usageMetadata.promptTokenCount`) is given to `ctx.recordUsage`.
 * Any other error, or a second rejection, is thrown as is.
 */
export async function withContextRetry<T>(
  call: (messages: Message[]) => Promise<T>,
  ctx: ChatContext,
  options: ContextRetryOptions = {},
): Promise<ContextRetryResult<T>> {
  // Checked before the first call: a bad option must not wait for an overflow to be found.
  requireArgument(typeof call === 'function', 'withContextRetry', 'call', 'a function', call)
  requireArgument(
    typeof (ctx as ChatContext | null)?.getMessages === 'function',
    'withContextRetry',
    'ctx',
    'a ChatContext',
    ctx,
  )
  requireOptions(options, 'withContextRetry', ['margin', 'budget'])
  const margin = options.margin ?? 0
  if (!Number.isInteger(margin) || margin < 0)
    throw new InvalidOptionError(
      'margin',
      `expected whole tokens >= 0, got ${describeValue(margin)}`,
    )
  const fallback = options.budget
  if (fallback !== undefined && (!Number.isInteger(fallback) || fallback < 1))
    throw new InvalidOptionError(
      'budget',
      `expected whole tokens >= 1, got ${describeValue(fallback)}`,
    )
  const first = await ctx.getMessages()
  try {
    return { value: observed(ctx, await call(first)) }
  } catch (error) {
    const report = parseOverflowError(error)
    if (!report) throw error
    const { tokens } = await ctx.fitAsync()
    const learnt =
      windowAfterRejection(report, tokens.total, tokens.reserve) ??
      fallback ??
      tokens.total + tokens.reserve
    const window = Math.max(1, learnt - margin)
    await ctx.learnLimit(window)
    const messages = await fitWithin(
      (budget) => (budget === window ? ctx.getMessages() : ctx.getMessages({ budget })),
      window,
      report.limit,
    )
    const budget = ctx.learnedLimit ?? window
    return {
      value: observed(ctx, await call(messages)),
      retried: { report, budget, messages: messages.length },
    }
  }
}

/** The usage a reply reports (any SDK's shape) calibrates the context's later views. */
function observed<T>(ctx: ChatContext, value: T): T {
  const promptTokens = promptTokensOf(value)
  if (promptTokens !== undefined) ctx.recordUsage({ promptTokens })
  return value
}

import { InvalidOptionError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { describeValue, requireArgument, requireOptions } from '../../options-check.js'
import { fitWithin, promptTokensOf, windowAfterRejection } from '../limits/learned-limit.js'
import { type OverflowReport, parseOverflowError } from '../limits/overflow-error.js'
import type { ChatContext, ContextFormat } from './chat-context.js'

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
  ctx: ChatContext<ContextFormat>,
  options: ContextRetryOptions = {},
): Promise<ContextRetryResult<T>> {
  // Checked before the first call: a bad option must not wait for an overflow to be found.
  requireArgument(typeof call === 'function', 'withContextRetry', 'call', 'a function', call)
  requireArgument(
    typeof (ctx as ChatContext<ContextFormat> | null)?.getMessages === 'function',
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
function observed<T>(ctx: ChatContext<ContextFormat>, value: T): T {
  const promptTokens = promptTokensOf(value)
  if (promptTokens !== undefined) ctx.recordUsage({ promptTokens })
  return value
}

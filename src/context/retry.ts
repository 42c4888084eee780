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
  const text = errorText(error)
  if (!text) return undefined
  const openai =
    /maximum context length is (\d+) tokens[\s\S]*?(?:resulted in|requested) (\d+) tokens/i.exec(
      text,
    )
  if (openai) return { provider: 'openai', limit: Number(openai[1]), actual: Number(openai[2]) }
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
  const parts: string[] = []
  const e = error as { message?: unknown; error?: unknown; body?: unknown; code?: unknown }
  if (typeof e.message === 'string') parts.push(e.message)
  if (typeof e.code === 'string') parts.push(e.code)
  for (const inner of [e.error, e.body])
    if (inner !== undefined) parts.push(typeof inner === 'string' ? inner : JSON.stringify(inner))
  return parts.join(' ')
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
    const sent = (await ctx.fitAsync()).tokens.total
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

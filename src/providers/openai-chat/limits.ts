import { tokenFigure, usageObject } from '../figures.js'
import type { FunctionTool, OverflowRule, RequestLimits } from '../types.js'

/**
 * OpenAI's image input requirements (Chat Completions and Responses alike): up to 500
 * images and 50 MB of image bytes in one request, 20 MB per image.
 */
export const requestLimits: RequestLimits = { images: 500, imageBytes: 50 * 1000 * 1000 }

/**
 * `context_length_exceeded`: "This model's maximum context length is N tokens. However, your
 * messages resulted in M tokens", or "you requested T tokens (M in the messages, C in the
 * completion)". Each pattern starts with a literal and has no lazy gap: one linear scan.
 */
export const overflow: OverflowRule = {
  read(text) {
    const limit = /maximum context length is (\d+) tokens/i.exec(text)
    if (!limit) return undefined
    const sent = /(resulted in|requested) (\d+) tokens(?: \((\d+) in the messages)?/i.exec(
      text.slice(limit.index + limit[0].length),
    )
    if (!sent) return { limit: Number(limit[1]) }
    const actual = Number(sent[2])
    const prompt =
      sent[3] !== undefined ? Number(sent[3]) : /resulted/i.test(sent[1] ?? '') ? actual : undefined
    return { limit: Number(limit[1]), actual, ...(prompt !== undefined && { prompt }) }
  },
  code: 'context_length_exceeded',
}

/** `usage.prompt_tokens` (cached tokens are inside it). */
export function promptTokens(response: Record<string, unknown>): number | undefined {
  const usage = usageObject(response)
  return 'prompt_tokens' in usage ? tokenFigure(usage.prompt_tokens) : undefined
}

/** A function tool as Chat Completions takes it: `{ type: 'function', function }`. */
export function defineTool(tool: FunctionTool): Record<string, unknown> {
  return { type: 'function', function: { ...tool } }
}

import { InvalidInputError } from '../../errors.js'
import { isJson } from '../codec-kit.js'
import { tokenFigure, usageObject } from '../figures.js'
import type { FunctionTool, NativeContext, OverflowRule } from '../types.js'

/** The same image limits as Chat Completions (one page of OpenAI's guide covers both). */
export { requestLimits } from '../openai-chat/limits.js'

/** "Your input exceeds the context window of this model." It carries no numbers. */
export const overflow: OverflowRule = {
  read: (text) =>
    /exceeds the context window|context window of this model/i.test(text) ? {} : undefined,
  code: 'context_length_exceeded',
}

/** `usage.input_tokens` (cached tokens are inside it). */
export function promptTokens(response: Record<string, unknown>): number | undefined {
  const usage = usageObject(response)
  return 'input_tokens' in usage ? tokenFigure(usage.input_tokens) : undefined
}

/** Server-side compaction (`context_management: [{ type: 'compaction', compact_threshold }]`). */
export const native: NativeContext = {
  runs: ['compact'],
  request: (parts) => ({
    body: parts.compact
      ? { context_management: [{ type: 'compaction', compact_threshold: parts.compact.trigger }] }
      : {},
    betas: [],
  }),
  read(response) {
    if (!Array.isArray(response.output)) return undefined
    const compactions: { id?: string; encrypted: boolean }[] = []
    response.output.forEach((item, k) => {
      if (!isJson(item) || item.type !== 'compaction') return
      const c = item
      if (typeof c.encrypted_content !== 'string')
        throw new InvalidInputError('a compaction item has no encrypted_content', {
          field: `output.${k}.encrypted_content`,
        })
      compactions.push({ ...(typeof c.id === 'string' && { id: c.id }), encrypted: true })
    })
    return { provider: 'openai', applied: [], compactions }
  },
}

/**
 * A function tool as the Responses API takes it: flat, and not strict (strict mode requires
 * every parameter, and a tool's may be optional).
 */
export function defineTool(tool: FunctionTool): Record<string, unknown> {
  return { type: 'function', ...tool, strict: false }
}

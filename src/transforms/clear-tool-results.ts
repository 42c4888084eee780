import type { Message } from '../messages/message.js'
import type { Unit } from '../messages/units.js'
import { positiveInt } from '../strategies/buffered.js'
import type { Transform } from '../strategies/types.js'

export interface ClearToolResultsOptions {
  /** Start clearing once the input (messages, tool schemas, priming) passes this many tokens. Default: always. */
  trigger?: number
  /** The newest tool exchanges left untouched. Default 3. */
  keep?: number
  /**
   * Clear at least this many tokens at a time, or nothing (as Anthropic does): clearing
   * invalidates the prompt cache from that point, so a small gain is not worth it.
   */
  clearAtLeast?: number
  /** Tool names never cleared. */
  excludeTools?: string[]
  /** Also replace the call arguments with `{}`: of every cleared call, or of the tools named. */
  clearInputs?: boolean | string[]
  /** Text that replaces a cleared result. */
  placeholder?: string
}

export const CLEARED = '[tool result cleared to save context]'

/**
 * Anthropic's server-side context editing (`clear_tool_uses`) done on the client: once over
 * `trigger`, the results of the oldest tool exchanges (all but the newest `keep`, never
 * tools in `excludeTools`) are replaced by a short placeholder, oldest first, in batches of
 * at least `clearAtLeast` tokens. Calls keep their results (now placeholders): still valid.
 */
export function clearToolResults(
  options: ClearToolResultsOptions = {},
): Transform<'clearToolResults', ClearToolResultsOptions> {
  const keep = positiveInt('keep', options.keep ?? 3, true)
  const trigger = positiveInt('trigger', options.trigger ?? 0, true)
  const clearAtLeast = positiveInt('clearAtLeast', options.clearAtLeast ?? 0, true)
  const exclude = new Set(options.excludeTools ?? [])
  const placeholder = options.placeholder ?? CLEARED
  return {
    name: 'clearToolResults',
    reason: 'cleared',
    options: { ...options, keep },
    apply(view) {
      const out = new Map<number, Message | null>()
      const total =
        view.rangeTokens(0, view.unitCount) + view.overhead.tools + view.overhead.priming
      if (total <= trigger) return out
      const exchanges: Unit[] = []
      for (let u = 0; u < view.unitCount; u++)
        if (view.kind(u) === 'exchange') exchanges.push(view.unit(u))
      const old = exchanges.slice(0, Math.max(0, exchanges.length - keep))
      let cleared = 0
      const over = total - trigger
      for (const unit of old) {
        // Enough has been cleared to get under the trigger and to make the batch worth it.
        if (cleared >= over && cleared >= clearAtLeast) break
        for (let i = unit.start + 1; i < unit.end; i++) {
          const m = view.message(i)
          if (
            m.role !== 'tool' ||
            (m.toolName && exclude.has(m.toolName)) ||
            m.content === placeholder
          )
            continue
          const replaced: Message = { ...m, content: placeholder }
          cleared += view.messageTokens(i) - view.counter.countMessage(replaced)
          out.set(i, replaced)
        }
        const call = view.message(unit.start)
        if (options.clearInputs && call.role === 'assistant' && call.toolCalls) {
          const only = Array.isArray(options.clearInputs) ? new Set(options.clearInputs) : undefined
          const calls = call.toolCalls.map((c) =>
            exclude.has(c.name) || (only && !only.has(c.name)) ? c : { ...c, arguments: '{}' },
          )
          const replaced: Message = { ...call, toolCalls: calls }
          cleared += view.messageTokens(unit.start) - view.counter.countMessage(replaced)
          out.set(unit.start, replaced)
        }
      }
      if (cleared < clearAtLeast) out.clear()
      return out
    },
  }
}

import type { Message } from '../messages/message.js'
import { requireOptions } from '../options-check.js'
import { newestByCount, oldestByCount } from './budget.js'
import { positiveInt } from './buffered.js'
import type { PlanItem, Strategy } from './types.js'

export interface HeadAndTailOptions {
  /** How many of the oldest messages to keep after the system prompt. */
  head: number
  /** How many of the newest messages to keep. */
  tail: number
  /** The text standing for what was skipped: `{count}` is replaced, or a function of the count. */
  placeholder?: string | ((skipped: number) => string)
}

const DEFAULT_PLACEHOLDER = 'Skipped {count} messages.'

/**
 * The first `head` and the last `tail` messages, with one user message between them saying
 * how many were skipped (AutoGen `HeadAndTailChatCompletionContext`). Head and tail end on
 * unit boundaries, so neither splits a tool exchange; the count is the exact number of
 * messages the placeholder stands for.
 */
export function headAndTail(
  options: HeadAndTailOptions,
): Strategy<'headAndTail', HeadAndTailOptions> {
  requireOptions(options, 'headAndTail', ['head', 'tail', 'placeholder'])
  const head = positiveInt('head', options?.head, true)
  const tail = positiveInt('tail', options?.tail, true)
  const placeholder = options.placeholder ?? DEFAULT_PLACEHOLDER
  return {
    name: 'headAndTail',
    options: { head, tail, placeholder },
    budgetAware: false,
    ownWindow: true,
    async: false,
    select(view) {
      const n = view.unitCount
      const first = view.mandatory().first
      const h = oldestByCount(view, first, head)
      const t = newestByCount(view, h, n, tail)
      const out = view.items(0, h)
      if (t > h) {
        const from = view.unit(h).start
        const to = view.unit(t - 1).end
        const replaces = Array.from({ length: to - from }, (_, k) => from + k)
        const text =
          typeof placeholder === 'function'
            ? placeholder(replaces.length)
            : placeholder.replaceAll('{count}', String(replaces.length))
        const synthetic: Message = { role: 'user', content: text }
        out.push({ synthetic, replaces, reason: 'placeholder' } satisfies PlanItem)
      }
      return view.items(t, n, out)
    },
  }
}

import type { Message } from '../messages/message.js'
import { requireOptions } from '../options-check.js'
import { isEmpty } from '../providers/message-tests.js'
import { positiveInt } from '../strategies/buffered.js'
import type { Transform } from '../strategies/types.js'

export interface DropThoughtsOptions {
  /** How many of the newest assistant messages keep their reasoning. Default 0. */
  keepLast?: number
}

/**
 * Takes the reasoning text out of older assistant messages (AutoGen's reasoning-model
 * context example): it is rarely needed again and often long.
 */
export function dropThoughts(
  options: DropThoughtsOptions = {},
): Transform<'dropThoughts', DropThoughtsOptions> {
  requireOptions(options, 'dropThoughts', ['keepLast'])
  const keepLast = positiveInt('keepLast', options.keepLast ?? 0, true)
  return {
    name: 'dropThoughts',
    reason: 'thought-dropped',
    options: { keepLast },
    apply(view) {
      const out = new Map<number, Message | null>()
      let kept = 0
      for (let i = view.messages.length - 1; i >= 0; i--) {
        const m = view.messages[i]
        if (m?.role !== 'assistant' || m.thought === undefined) continue
        if (kept < keepLast) {
          kept++
          continue
        }
        const { thought: _thought, ...rest } = m
        // A reply that was only reasoning has nothing left to send: it goes, not an empty message.
        out.set(i, isEmpty(rest) ? null : rest)
      }
      return out
    },
  }
}

import type { Message } from '../messages/message.js'
import { requireOptions } from '../options-check.js'
import { positiveInt } from './buffered.js'
import type { PlanItem, Strategy } from './types.js'

export interface UserTurnsOptions {
  /** How many of the newest user turns to keep; a turn opens at a user message. */
  maxTurns: number
  /**
   * Take out completed tool exchanges (calls and their results) of earlier turns and keep
   * the answers; an exchange whose assistant message also has text keeps that text.
   */
  removeToolExchanges?: boolean
}

/**
 * The newest `maxTurns` user turns, cut only at a user message (agentflow
 * `MessageContextManager`). The system prompt is kept, and so are system messages later in
 * the history, in their place.
 */
export function userTurns(options: UserTurnsOptions): Strategy<'userTurns', UserTurnsOptions> {
  requireOptions(options, 'userTurns', ['maxTurns', 'removeToolExchanges'])
  const maxTurns = positiveInt('maxTurns', options?.maxTurns)
  const removeToolExchanges = options.removeToolExchanges ?? false
  return {
    name: 'userTurns',
    options: { maxTurns, removeToolExchanges },
    budgetAware: false,
    ownWindow: true,
    async: false,
    select(view) {
      const n = view.unitCount
      let start = n
      let turns = 0
      let newestTurn = n
      for (let u = n - 1; u >= 0 && turns < maxTurns; u--) {
        if (view.role(u) === 'user') {
          turns++
          start = u
          if (turns === 1) newestTurn = u
        }
      }
      if (turns === 0) start = 0
      const out: PlanItem[] = []
      for (let u = 0; u < n; u++) {
        const unit = view.unit(u)
        const keep = u >= start || unit.kind === 'system' || view.role(u) === 'system'
        if (!keep) continue
        if (removeToolExchanges && unit.kind === 'exchange' && unit.complete && u < newestTurn) {
          const call = view.first(u)
          if (call.role === 'assistant' && hasText(call)) {
            const { toolCalls: _calls, ...text } = call
            out.push({ index: unit.start, message: text, reason: 'calls-removed' })
          }
          continue
        }
        view.items(u, u + 1, out)
      }
      return out
    },
  }
}

function hasText(m: Message): boolean {
  return typeof m.content === 'string' ? m.content.length > 0 : (m.content?.length ?? 0) > 0
}

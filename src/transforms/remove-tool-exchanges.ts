import type { Message } from '../messages/message.js'
import type { Unit } from '../messages/units.js'
import type { Transform } from '../strategies/types.js'

export interface RemoveToolExchangesOptions {
  /** Only exchanges that start before this message index. Default: all but the newest exchange. */
  before?: number
}

/** Takes completed tool exchanges out (an assistant message with text keeps the text). */
export function removeToolExchanges(
  options: RemoveToolExchangesOptions = {},
): Transform<'removeToolExchanges', RemoveToolExchangesOptions> {
  return {
    name: 'removeToolExchanges',
    reason: 'calls-removed',
    options,
    apply(view) {
      const out = new Map<number, Message | null>()
      const exchanges: Unit[] = []
      for (let u = 0; u < view.unitCount; u++) {
        const unit = view.unit(u)
        if (unit.kind === 'exchange' && unit.complete) exchanges.push(unit)
      }
      const limit = options.before ?? exchanges[exchanges.length - 1]?.start ?? 0
      for (const unit of exchanges) {
        if (unit.start >= limit) continue
        const call = view.message(unit.start)
        const hasText =
          typeof call.content === 'string'
            ? call.content.length > 0
            : (call.content?.length ?? 0) > 0
        if (call.role === 'assistant' && hasText) {
          const { toolCalls: _calls, ...text } = call
          out.set(unit.start, text)
        } else {
          out.set(unit.start, null)
        }
        for (let i = unit.start + 1; i < unit.end; i++) out.set(i, null)
      }
      return out
    },
  }
}

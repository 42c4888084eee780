import type { Message } from '../messages/message.js'
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
      const exchanges = view.units.filter((u) => u.kind === 'exchange' && u.complete)
      const limit = options.before ?? exchanges[exchanges.length - 1]?.start ?? 0
      for (const unit of exchanges) {
        if (unit.start >= limit) continue
        const call = view.messages[unit.start] as Message
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

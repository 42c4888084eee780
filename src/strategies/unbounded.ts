import { ContextOverflowError } from '../errors.js'
import type { Strategy } from './types.js'

/**
 * Everything, in order (AutoGen `UnboundedChatCompletionContext`). It never drops: with a
 * budget the history is over, it throws `ContextOverflowError` rather than send less than
 * everything under a name that promises everything.
 */
export function unbounded(): Strategy<'unbounded', Record<string, never>> {
  return {
    name: 'unbounded',
    options: {},
    budgetAware: false,
    async: false,
    select: (view) => {
      const messages = view.rangeTokens(0, view.unitCount)
      if (messages > view.available) {
        const { tools, reserve, priming } = view.overhead
        throw new ContextOverflowError('the whole history (unbounded never drops)', {
          required: messages + tools + reserve + priming,
          budget: view.budget,
          breakdown: { messages, tools, reserve, priming },
        })
      }
      return view.items(0, view.unitCount)
    },
  }
}

import type { Strategy } from './types.js'

/** Everything, in order (AutoGen `UnboundedChatCompletionContext`). */
export function unbounded(): Strategy<'unbounded', Record<string, never>> {
  return {
    name: 'unbounded',
    options: {},
    budgetAware: false,
    async: false,
    select: (view) => view.items(0, view.unitCount),
  }
}

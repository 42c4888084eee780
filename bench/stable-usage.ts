import type { Message } from '../src/messages/message.js'
import { lib } from './lib.js'
import { history } from './traffic.js'

const { ChatContext, tokenLimited, exactCounter } = lib

/**
 * A cache-stable view (tokenLimited with `stable`) over `messages` of τ-bench traffic, one
 * model call per user or tool turn: the share of calls whose sent list starts with the
 * previous call's list. With `scale`, usage is recorded after every call as the adapters do:
 * our count times `scale`, with a fixed ±1.5% wobble.
 */
export function stablePrefixShare(messages: number, scale?: number): number {
  const counter = exactCounter()
  const ctx = new ChatContext({
    strategy: tokenLimited({ stable: { evictAtLeast: 1500 } }),
    budget: 6000,
    counter,
  })
  let previous: Message[] | undefined
  let calls = 0
  let hits = 0
  let k = 0
  for (const m of history(messages)) {
    ctx.addMessage(m)
    if (m.role === 'system' || m.role === 'assistant') continue
    const view = ctx.getMessagesSync()
    if (previous) {
      calls++
      if (previous.every((p, i) => view[i] === p)) hits++
    }
    previous = view
    if (scale !== undefined) {
      const wobble = ((((k++ * 7919) % 31) - 15) / 15) * 0.015
      ctx.recordUsage({
        promptTokens: Math.round(counter.countMessages(view) * scale * (1 + wobble)),
      })
    }
  }
  return hits / calls
}

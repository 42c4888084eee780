import type { Message } from '../src/messages/message.js'
import { tauBench } from '../test/tau-bench.js'
import { lib } from './lib.js'

const { fromOpenAIChat } = lib

// The benches' traffic: τ-bench trajectories concatenated, the system prompt once.
const records = tauBench()
export const system = fromOpenAIChat(records[0]?.traj ?? [])[0] as Message
const body = records.flatMap((r) => fromOpenAIChat(r.traj).slice(1))
/** How many messages `history` takes before its traffic repeats (after the system prompt). */
export const period = body.length

/** `n` messages of that traffic (fresh objects), ending on a user turn as before a model call. */
export function history(n: number): Message[] {
  const out: Message[] = [system]
  while (out.length < n) {
    for (const m of body) {
      if (out.length >= n) break
      out.push(structuredClone(m))
    }
  }
  // End on a whole unit and a user turn, as an agent loop does before a call.
  while (out.length > 1 && out[out.length - 1]?.role !== 'user') out.pop()
  return out
}

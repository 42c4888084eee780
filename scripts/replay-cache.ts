// Replays conversations turn by turn into a ChatContext and measures prompt-cache friendliness.
// npm run replay:cache
import { ChatContext } from '../src/context/chat-context.js'
import { fromOpenAIChat } from '../src/formats/openai-chat.js'
import type { Message } from '../src/messages/message.js'
import { tokenLimited } from '../src/strategies/token-limited.js'
import { exactCounter } from '../src/tokens/counters.js'
import { readLocomo } from '../test/locomo-data.js'
import { tauBench } from '../test/tau-bench.js'
import { type LocomoSample, locomoChat } from './locomo.js'

const counter = exactCounter()

function tauStream(): Message[] {
  const data = tauBench()
  return data.flatMap((r, k) => fromOpenAIChat(r.traj).slice(k === 0 ? 0 : 1))
}

function locomoStream(): Message[] {
  const data = readLocomo() as LocomoSample[]
  return data.flatMap((s, k) => locomoChat(s).messages.slice(k === 0 ? 0 : 1))
}

/** A model call happens after every message that is not the assistant's own. */
function replay(stream: Message[], budget: number, stable: boolean) {
  const ctx = new ChatContext({ strategy: tokenLimited({ stable }), budget })
  let previous: Message[] | undefined
  let calls = 0
  let hits = 0
  let uncached = 0
  let unused = 0
  for (const m of stream) {
    ctx.addMessage(m)
    if (m.role === 'assistant') continue
    const view = ctx.getMessagesSync()
    const tokens = counter.countMessages(view)
    let common = 0
    if (previous) {
      while (common < previous.length && view[common] === previous[common]) common++
      if (common === previous.length) hits++
      calls++
    }
    let cached = 0
    for (let k = 0; k < common; k++) cached += counter.countMessage(view[k] as Message)
    uncached += tokens - cached
    unused += (budget - tokens) / budget
    previous = view
  }
  return { calls, prefixStable: hits / calls, uncached, unused: unused / (calls + 1) }
}

const rows: string[] = []
for (const [name, stream] of [
  ['τ-bench airline (200 trajectories concatenated)', tauStream()],
  ['LoCoMo dev (3 conversations concatenated)', locomoStream()],
] as const) {
  for (const budget of [8_000, 32_000]) {
    const plain = replay(stream, budget, false)
    const stable = replay(stream, budget, true)
    for (const [label, r] of [
      ['tokenLimited', plain],
      ['tokenLimited stable', stable],
    ] as const) {
      rows.push(
        `| ${name} | ${budget} | ${label} | ${r.calls} | ${(r.prefixStable * 100).toFixed(1)}% | ${(r.uncached / 1e6).toFixed(2)} M | ${(r.unused * 100).toFixed(1)}% |`,
      )
    }
  }
}
console.log(
  '| data | budget | view | model calls | prefix unchanged | tokens billed uncached | budget unused (mean) |',
)
console.log('| --- | --- | --- | --- | --- | --- | --- |')
for (const r of rows) console.log(r)

// Replays conversations turn by turn into a ChatContext and measures prompt-cache economics:
// how often the sent list starts with the previous one, the tokens billed uncached (those
// after the longest prefix shared with the previous call), and the room left unused.
// npm run replay:cache [-- --low-water 0.72]
import '../src/tokens/node-encodings.js'
import { parseArgs } from 'node:util'
import { ChatContext } from '../src/context/chat/chat-context.js'
import type { Message } from '../src/messages/message.js'
import { fromOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { type StableOptions, tokenLimited } from '../src/strategies/token-limited.js'
import { exactCounter } from '../src/tokens/counters.js'
import { readLocomo } from '../test/locomo-data.js'
import { tauBench } from '../test/tau-bench.js'
import { type LocomoSample, locomoChat } from './locomo.js'

const { values } = parseArgs({ options: { 'low-water': { type: 'string' } } })
const counter = exactCounter()

/** Trajectories one after another in one conversation (one system prompt), as a long-running agent sees them. */
function tauStream(n: number): Message[] {
  return tauBench()
    .slice(0, n)
    .flatMap((r, k) => fromOpenAIChat(r.traj).slice(k === 0 ? 0 : 1))
}

function locomoStream(): Message[] {
  const data = readLocomo() as LocomoSample[]
  return data.flatMap((s, k) => locomoChat(s).messages.slice(k === 0 ? 0 : 1))
}

interface Replay {
  calls: number
  /** Share of calls (after the first) whose sent list starts with the previous call's. */
  prefixStable: number
  /** Tokens after the prefix shared with the previous call, summed over calls. */
  uncached: number
  /** Mean over calls of the room the history could have filled but did not, as a share of the budget. */
  unused: number
}

/** A model call happens after every message that is not the assistant's own. */
function replay(stream: Message[], budget: number, stable: false | StableOptions): Replay {
  const ctx = new ChatContext({ strategy: tokenLimited({ stable }), budget })
  let previous: Message[] | undefined
  let calls = 0
  let hits = 0
  let uncached = 0
  let unused = 0
  let history = 0
  for (const m of stream) {
    ctx.addMessage(m)
    history += counter.countMessage(m)
    if (m.role === 'assistant') continue
    const view = ctx.getMessagesSync()
    const tokens = counter.countMessages(view)
    let common = 0
    if (previous) {
      while (common < previous.length && view[common] === previous[common]) common++
      if (common === previous.length) hits++
    }
    calls++
    let cached = 0
    for (let k = 0; k < common; k++) cached += counter.countMessage(view[k] as Message)
    uncached += tokens - cached
    // While the whole history fits, nothing is left out: only room it could have used counts.
    unused += Math.max(0, Math.min(budget, history) - tokens) / budget
    previous = view
  }
  return { calls, prefixStable: hits / (calls - 1), uncached, unused: unused / calls }
}

const lowWater = values['low-water'] === undefined ? undefined : Number(values['low-water'])
const stable: StableOptions = lowWater === undefined ? {} : { lowWater }
const rows: string[] = []
for (const [name, stream] of [
  ['τ-bench airline (30 trajectories)', tauStream(30)],
  ['τ-bench airline (all 200 trajectories)', tauStream(200)],
  ['LoCoMo dev (3 conversations)', locomoStream()],
] as const) {
  for (const budget of [6_000, 8_000]) {
    for (const [label, r] of [
      ['tokenLimited', replay(stream, budget, false)],
      ['tokenLimited stable', replay(stream, budget, stable)],
    ] as const) {
      const goal =
        label === 'tokenLimited' ? '' : r.prefixStable >= 0.9 && r.unused < 0.15 ? 'yes' : 'NO'
      rows.push(
        `| ${name} | ${budget} | ${label} | ${r.calls} | ${(r.prefixStable * 100).toFixed(1)}% | ${(r.uncached / 1e6).toFixed(2)} M | ${(r.unused * 100).toFixed(1)}% | ${goal} |`,
      )
    }
  }
}
console.log(
  '| data (one conversation) | budget | view | model calls | prefix unchanged | tokens billed uncached | budget unused (mean) | ≥ 90% and < 15% |',
)
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
for (const r of rows) console.log(r)

// τ-bench agent traffic through ChatContexts fed alike: per-call cost and prompt-cache
// economics of the default options against `ledger: false`.
// npx tsx scripts/agent-traffic.ts [trajectories] [budget]
import '../src/tokens/node-encodings.js'
import { ChatContext } from '../src/context/chat-context.js'
import type { Message } from '../src/messages/message.js'
import { fromOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { tauBench } from '../test/tau-bench.js'

const n = Number(process.argv[2] ?? 40)
const budget = Number(process.argv[3] ?? 8000)
const stable = process.argv[4] === 'stable'
const stream: Message[] = tauBench()
  .slice(0, n)
  .flatMap((r, k) => fromOpenAIChat(r.traj).slice(k === 0 ? 0 : 1))

const opts = stable ? { stable: true as const } : {}
const a = new ChatContext({ budget, ...opts })
const b = process.env.ONLY ? a : new ChatContext({ budget, ledger: false, ...opts })
const times = { a: [] as number[], b: [] as number[] }
const prev = { a: undefined as Message[] | undefined, b: undefined as Message[] | undefined }
const hits = { a: 0, b: 0 }
let calls = 0
for (const m of stream) {
  for (const [k, ctx] of [['a', a], ['b', b]] as const) {
    ctx.addMessage(m)
  }
  if (m.role === 'assistant') continue
  calls++
  for (const [k, ctx] of [['a', a], ['b', b]] as const) {
    const s = performance.now()
    const view = ctx.getMessagesSync()
    times[k].push(performance.now() - s)
    const p = prev[k]
    if (p) {
      let c = 0
      while (c < p.length && view[c] === p[c]) c++
      if (c === p.length) hits[k]++
    }
    prev[k] = view
  }
}
const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0)
const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number
console.log(
  JSON.stringify({
    calls,
    defaultMeanUs: (sum(times.a) / calls) * 1000,
    plainMeanUs: (sum(times.b) / calls) * 1000,
    ratioMean: sum(times.a) / sum(times.b),
    defaultMedUs: med(times.a) * 1000,
    plainMedUs: med(times.b) * 1000,
    prefixDefault: hits.a / (calls - 1),
    prefixPlain: hits.b / (calls - 1),
  }),
)

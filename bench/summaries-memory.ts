/**
 * The summaries section of `npm run bench`, run in a process of its own (`bench/run.ts`
 * starts it):
 *   node --expose-gc --import tsx bench/summaries-memory.ts [conversations]
 * One `summarizing()` instance, as a server shares one, serves 1,000 conversations (τ-bench
 * airline traffic, each conversation a different stretch of it), each growing a turn at a
 * time through `fitAsync` into a budget small enough that it is summarized again and again.
 * Every tenth conversation also runs through a `ChatContext` with the same instance, and its
 * saved state is measured against its history's JSON.
 *
 * Reports the heap (after gc, typed-array buffers included) before, after the first 100
 * conversations and after all of them, each time with the conversations released: a
 * strategy that kept a conversation's summaries after it is gone grows with the count.
 */
import type { Message } from '../src/messages/message.js'
import { lib } from './lib.js'
import { history } from './traffic.js'

const { ChatContext, fitAsync, summarizing, estimateCounter } = lib

const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with node --expose-gc')
const collect = gc
const heap = () => {
  collect()
  collect()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

const total = Number(process.argv[2] ?? 1000)
const traffic = history(3_000).slice(1)
const system: Message = { role: 'system', content: 'You are an airline agent.' }
// A counter with no tokenizer cache, so what the heap holds is the strategy's and the library's.
const counter = estimateCounter({ base: 'chars' })
const strategy = summarizing({ leaveLastN: 2, trigger: 0.6 })
const BUDGET = 1_500
const LENGTH = 40

/** Conversation `k`: 40 messages from its own place in the traffic, opening on a user turn. */
function conversation(k: number): Message[] {
  let at = (k * 37) % (traffic.length - LENGTH * 2)
  while (traffic[at]?.role !== 'user') at++
  const out = [system, ...structuredClone(traffic.slice(at, at + LENGTH))]
  while (out.length > 1 && out[out.length - 1]?.role !== 'user') out.pop()
  return out
}

let summarized = 0
let worstState = 0
let states = 0

/** One conversation through fitAsync, a turn at a time; every tenth through a ChatContext too. */
async function run(k: number): Promise<void> {
  const full = conversation(k)
  const sent: Message[] = []
  for (const m of full) {
    sent.push(m)
    if (m.role !== 'user') continue
    const r = await fitAsync(sent, { strategy, budget: BUDGET, counter })
    if (r.inserted.some((i) => i.reason === 'summary')) summarized++
  }
  if (k % 10 !== 0) return
  const ctx = new ChatContext({ strategy, budget: BUDGET, counter })
  for (const m of full) {
    await ctx.addMessage(m)
    if (m.role === 'user') await ctx.getMessages()
  }
  const state = JSON.stringify(ctx.saveState()).length
  worstState = Math.max(worstState, state / JSON.stringify(ctx.history()).length)
  states++
}

const before = heap()
for (let k = 0; k < 100; k++) await run(k)
const after100 = heap()
for (let k = 100; k < total; k++) await run(k)
const afterAll = heap()

console.log(
  JSON.stringify({
    conversations: total,
    fitsSummarized: summarized,
    heapBeforeBytes: before,
    heapAfter100Bytes: after100,
    heapAfterAllBytes: afterAll,
    growthAfter100Bytes: after100 - before,
    growthAfterAllBytes: afterAll - before,
    savedStates: states,
    worstStateOverHistory: worstState,
  }),
)

// Where a 100,000-message ChatContext's heap goes, stage by stage (node --expose-gc --import tsx).
import { ChatContext } from '../src/context/chat-context.js'
import { copyPlain } from '../src/context/copy.js'
import { fromOpenAIChat } from '../src/formats/openai-chat.js'
import type { Message } from '../src/messages/message.js'
import { exactCounter } from '../src/tokens/counters.js'
import { tauBench } from '../test/tau-bench.js'

const gc = (globalThis as { gc?: () => void }).gc as () => void
const records = tauBench()
const system = fromOpenAIChat(records[0]?.traj ?? [])[0] as Message
const body = records.flatMap((r) => fromOpenAIChat(r.traj).slice(1))
function history(n: number): Message[] {
  const out: Message[] = [system]
  while (out.length < n) {
    for (const m of body) {
      if (out.length >= n) break
      out.push(structuredClone(m))
    }
  }
  while (out.length > 1 && out[out.length - 1]?.role !== 'user') out.pop()
  return out
}
const json = Buffer.byteLength(JSON.stringify(history(100_000)))
const fresh = () => JSON.parse(JSON.stringify(history(100_000))) as Message[]
const stage = process.argv[2] ?? 'context'
if (process.argv[3] === 'shapes') {
  for (let i = 0; i < 2000; i++) {
    const o: Record<string, number> = {}
    for (let k = 0; k < 6; k++) o[`k${(i * 7 + k * 13) % 50}`] = k
    copyPlain(o, true)
    copyPlain(o)
  }
}
if (process.argv[3] === 'warm') {
  const c = exactCounter()
  for (const m of history(100_000)) c.countMessage(structuredClone(m))
}
gc()
gc()
const before = process.memoryUsage().heapUsed
let keep: unknown
if (stage === 'parsed') keep = fresh()
else if (stage === 'copies') keep = fresh().map((m) => copyPlain(m, true))
else if (stage === 'unfrozen') keep = fresh().map((m) => copyPlain(m))
else if (stage === 'frozenparsed') keep = fresh().map((m) => deepFreeze(m))
else if (stage === 'spread') keep = fresh().map((m) => spreadCopy(m))
else if (stage === 'sc') keep = fresh().map((m) => structuredClone(m))
else if (stage === 'hist') keep = history(100_000)
else if (stage === 'histcopy') keep = history(100_000).map((m) => copyPlain(m, true))
else if (stage === 'jsoncopy') keep = history(100_000).map((m) => JSON.parse(JSON.stringify(m)))
else if (stage === 'counted') {
  const c = exactCounter()
  const ms = fresh().map((m) => copyPlain(m, true))
  for (const m of ms) c.countMessage(m)
  keep = [ms, c]
} else {
  const held = new ChatContext({ budget: 8_000 })
  held.addMessages(fresh())
  keep = held
}
gc()
gc()
const heap = process.memoryUsage().heapUsed - before
console.log(
  `${stage}: JSON ${(json / 1e6).toFixed(1)} MB, heap ${(heap / 1e6).toFixed(1)} MB, heap/JSON ${(heap / json).toFixed(2)}`,
)
void keep

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k])
    Object.freeze(v)
  }
  return v
}

function spreadCopy<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) return v.map(spreadCopy) as T
  const o = { ...(v as object) } as Record<string, unknown>
  for (const k in o) {
    const x = o[k]
    if (x !== null && typeof x === 'object') o[k] = spreadCopy(x)
  }
  return o as T
}

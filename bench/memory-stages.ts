/**
 * Where the heap of `npm run bench`'s memory section goes, one stage per run, each in its own
 * process (the tokenizer is loaded before measuring):
 *   node --expose-gc --import tsx bench/memory-stages.ts [parsed|copies|context]
 * parsed: the JSON-parsed history alone; copies: its frozen copies (what a context stores);
 * context: a ChatContext({ budget: 8_000 }) after addMessages, as the bench measures it.
 */
import { ChatContext } from '../src/context/chat-context.js'
import { copyPlain } from '../src/context/copy.js'
import type { Message } from '../src/messages/message.js'
import { exactCounter } from '../src/tokens/counters.js'
import { history, system } from './traffic.js'

const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with node --expose-gc')
const json = Buffer.byteLength(JSON.stringify(history(100_000)))
const fresh = () => JSON.parse(JSON.stringify(history(100_000))) as Message[]
const stage = process.argv[2] ?? 'context'
exactCounter().countMessage(system)
gc()
gc()
const before = process.memoryUsage().heapUsed
let keep: unknown
if (stage === 'parsed') keep = fresh()
else if (stage === 'copies') keep = fresh().map((m) => copyPlain(m, true))
else if (stage === 'context') {
  const held = new ChatContext({ budget: 8_000 })
  held.addMessages(fresh())
  keep = held
} else throw new Error(`unknown stage ${stage}: parsed, copies or context`)
gc()
gc()
const heap = process.memoryUsage().heapUsed - before
console.log(
  `${stage}: JSON ${(json / 1e6).toFixed(1)} MB, heap ${(heap / 1e6).toFixed(1)} MB, heap/JSON ${(heap / json).toFixed(2)}`,
)
void keep

/**
 * The memory section of `npm run bench`, run in a process of its own so that nothing the
 * other sections made is counted (`bench/run.ts` starts it):
 *   node --expose-gc --import tsx bench/memory-stages.ts [parsed|copies|context] [--json]
 * parsed: the JSON-parsed history alone; copies: its frozen copies (what a context stores);
 * context: a ChatContext({ budget: 8_000 }) given the parsed history, then fitted once.
 *
 * Each stage reports two figures against the history's JSON size, each counting the heap
 * and the typed arrays' buffers (`arrayBuffers`, outside the heap):
 * - held: what the stage's result keeps alive, measured as the heap with it less the heap
 *   once it is released (so the tokenizer's own cache, which a process keeps with or without
 *   a context, is not counted);
 * - growth: the heap after less the heap before, tokenizer cache and all.
 * The history is parsed inside a function that returns only the result, so no temporary of
 * the caller (a register of this module's frame) keeps the parsed input alive.
 */
import type { Message } from '../src/messages/message.js'
import { copyPlain, lib } from './lib.js'
import { history, system } from './traffic.js'

const { ChatContext, exactCounter } = lib

const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with node --expose-gc')
const collect = gc
/** The JavaScript heap plus the typed arrays' backing stores, which V8 keeps outside it. */
const heap = () => {
  collect()
  collect()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

const text = JSON.stringify(history(100_000))
const json = Buffer.byteLength(text)
const stage = process.argv[2] ?? 'context'

function build(): { keep: unknown; messages: number } {
  const parsed = JSON.parse(text) as Message[]
  const messages = parsed.length
  if (stage === 'parsed') return { keep: parsed, messages }
  if (stage === 'copies') return { keep: parsed.map((m) => copyPlain(m, true)), messages }
  if (stage === 'context') {
    const ctx = new ChatContext({ budget: 8_000 })
    ctx.addMessages(parsed)
    ctx.fit()
    return { keep: ctx, messages }
  }
  throw new Error(`unknown stage ${stage}: parsed, copies or context`)
}

exactCounter().countMessage(system)
const before = heap()
let built: { keep: unknown; messages: number } | undefined = build()
const messages = built.messages
const after = heap()
const rss = process.memoryUsage().rss
built = undefined
const released = heap()
const result = {
  stage,
  messages,
  jsonBytes: json,
  heldBytes: after - released,
  growthBytes: after - before,
  rssBytes: rss,
}
if (process.argv.includes('--json')) console.log(JSON.stringify(result))
else
  console.log(
    `${stage}: ${messages} messages, JSON ${(json / 1e6).toFixed(1)} MB, held ${(result.heldBytes / 1e6).toFixed(1)} MB (${(result.heldBytes / json).toFixed(2)}× JSON), heap growth ${(result.growthBytes / 1e6).toFixed(1)} MB (${(result.growthBytes / json).toFixed(2)}×)`,
  )

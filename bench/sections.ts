/**
 * Sections of `npm run bench` that compare our per-message work with the tokenizer's own,
 * each run in a process of its own (`bench/run.ts` starts them), so that the heaps the
 * other sections leave behind do not slow one side's collections more than the other's:
 *   node --expose-gc --import tsx bench/sections.ts agent-loop|growing|counting
 * Prints one line of JSON.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import type { Message } from '../src/messages/message.js'
import { lib, messageText } from './lib.js'
import { history, system } from './traffic.js'

const { ChatContext, exactCounter, fit } = lib

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] as number
}

/** 10,000 turns of addMessage + getMessagesSync at 8,000 tokens, against counting every message once. */
function agentLoop() {
  const loop = history(10_001).slice(1)
  const fresh = structuredClone(loop)
  const once = exactCounter()
  const t0 = performance.now()
  for (const m of fresh) once.countMessage(m)
  const tokenizeOnceMs = performance.now() - t0
  // Newest messages only, as the peers keep: the ledger's cost is measured apart (agent-ledger).
  const ctx = new ChatContext({ budget: 8_000, initialMessages: [system], ledger: false })
  const per: number[] = []
  const start = performance.now()
  for (const m of loop) {
    const s = performance.now()
    ctx.addMessage(m)
    if (!(m.role === 'assistant' && m.toolCalls?.length)) ctx.getMessagesSync()
    per.push(performance.now() - s)
  }
  const totalMs = performance.now() - start
  return {
    workload: 'agent-loop',
    totalMs,
    earlyMs: median(per.slice(50, 150)),
    lateMs: median(per.slice(-100)),
    tokenizeOnceMs,
  }
}

/** fit() on a 100,000-message array, one message more per call (one array pushed to, and a new array of the same messages). */
function growing() {
  const pool = history(100_400)
  const grown = pool.slice(0, 100_000)
  fit(grown, { budget: 8_000, ledger: false }) // the first call indexes the whole array
  const perPush: number[] = []
  const perCopy: number[] = []
  for (let k = 100_000; k < pool.length; k++) {
    const next = pool[k] as Message
    grown.push(next)
    if (next.role === 'assistant' && next.toolCalls?.length) continue
    let s = performance.now()
    fit(grown, { budget: 8_000, ledger: false })
    perPush.push(performance.now() - s)
    // As the AI SDK's prepareStep: a new array each step, holding the same message objects.
    const copy = [...grown]
    s = performance.now()
    fit(copy, { budget: 8_000, ledger: false })
    perCopy.push(performance.now() - s)
  }
  return {
    workload: 'fit-growing-array',
    messages: grown.length,
    calls: perPush.length,
    pushedMs: median(perPush),
    newArrayMs: median(perCopy),
  }
}

/**
 * The default for agents: one new turn over a 1,000-message agent history (counts cached),
 * with the ledger of what is dropped and without it, each call a fit of the whole history.
 */
function agentLedger() {
  const pool = history(1_300)
  let n = 1_000
  while (pool[n]?.role !== 'user') n++
  const out: Record<string, number> = {}
  for (const [name, ledger] of [
    ['ledgerMs', 'auto'],
    ['withoutMs', false],
  ] as const) {
    for (const [how, make] of [
      ['context', () => new ChatContext({ budget: 8_000, initialMessages: [system], ledger })],
      ['fit', undefined],
    ] as const) {
      const grown = pool.slice(0, n)
      const ctx = make?.()
      ctx?.addMessages(grown.slice(1))
      if (ctx) ctx.getMessagesSync()
      else fit(grown, { budget: 8_000, ledger })
      const per: number[] = []
      for (let k = n; k < pool.length; k++) {
        const m = pool[k] as Message
        if (ctx) ctx.addMessage(m)
        else grown.push(m)
        if (m.role === 'assistant' && m.toolCalls?.length) continue
        const s = performance.now()
        if (ctx) ctx.getMessagesSync()
        else fit(grown, { budget: 8_000, ledger })
        per.push(performance.now() - s)
      }
      out[`${how}${name[0]?.toUpperCase()}${name.slice(1)}`] = median(per)
    }
  }
  return { workload: 'agent-ledger', messages: n, ...out }
}

/** Our message accounting against raw countTokens on the same text, both warm. */
function counting() {
  const sample = structuredClone(history(20_000))
  const texts = sample.map((m) => [
    messageText(m),
    m.role,
    m.name ?? '',
    m.role === 'tool' ? (m.toolName ?? '') : '',
  ])
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t.join('')), 0)
  // Both passes run warm: gpt-tokenizer caches merges, so a cold first pass would favour the second.
  for (const t of texts) for (const s of t) if (s) countTokens(s, { disallowedSpecial: new Set() })
  const r0 = performance.now()
  for (const t of texts) for (const s of t) if (s) countTokens(s, { disallowedSpecial: new Set() })
  const rawMs = performance.now() - r0
  const c = exactCounter()
  const c0 = performance.now()
  for (const m of sample) c.countMessage(m)
  const oursMs = performance.now() - c0
  return { workload: 'counting', messages: sample.length, bytes, rawMs, oursMs }
}

const which = process.argv[2]
const sections: Record<string, () => unknown> = {
  'agent-loop': agentLoop,
  growing,
  counting,
  'agent-ledger': agentLedger,
}
const run = which === undefined ? undefined : sections[which]
if (!run) throw new Error(`unknown section ${which}: ${Object.keys(sections).join(', ')}`)
const result = run()
console.log(JSON.stringify(result))

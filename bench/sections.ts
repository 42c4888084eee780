/**
 * Sections of `npm run bench` that compare our per-message work with the tokenizer's own,
 * each run in a process of its own (`bench/run.ts` starts them), so that the heaps the
 * other sections leave behind do not slow one side's collections more than the other's:
 *   node --expose-gc --import tsx bench/sections.ts agent-loop|growing|counting|...
 * Prints one line of JSON (`--list`: the sections' names, for scripts/bench-compare.ts).
 */
import { execFileSync } from 'node:child_process'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { type LocomoSample, locomoChat } from '../scripts/locomo.js'
import type { Message } from '../src/messages/message.js'
import { readLocomo } from '../test/locomo-data.js'
import { tauBench } from '../test/tau-bench.js'
import { credentialSpans, lib, messageText } from './lib.js'
import { history, period, system } from './traffic.js'

const {
  ChatContext,
  countingEndpoint,
  estimateCounter,
  exactCounter,
  fit,
  fitAsync,
  fitCounted,
  fromGemini,
  fromOpenAIChat,
  recall,
} = lib

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

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(s.length * q))] as number
}

/**
 * The variants' entries, first to last on even calls and last to first on odd ones: the
 * first to meet a message's text pays the tokenizer's cold merge cache, so neither always does.
 */
function turnAbout<T>(variants: readonly T[], call: number): [number, T][] {
  const entries = [...variants.entries()]
  return call % 2 === 0 ? entries : entries.reverse()
}

/**
 * A chat without tool calls: user and assistant texts in turn, of varied length, each a fresh
 * object. `ledger: 'auto'` writes nothing for it, so the default should cost what `false` does.
 */
function chat(n: number): Message[] {
  const words =
    'the order ships on monday from the warehouse in lyon and arrives within three days unless the customer asks for express delivery'.split(
      ' ',
    )
  let seed = 7
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
    return seed / 2_147_483_648
  }
  const text = (len: number) =>
    Array.from({ length: len }, () => words[Math.floor(next() * words.length)]).join(' ')
  const out: Message[] = [{ role: 'system', content: 'You are a helpful assistant.' }]
  for (let i = 1; i < n; i++)
    out.push(
      i % 2 === 1
        ? { role: 'user', content: `${text(10 + Math.floor(next() * 40))}?` }
        : { role: 'assistant', content: `${text(40 + Math.floor(next() * 120))}.` },
    )
  return out
}

/**
 * The default (`ledger: 'auto'`) against `ledger: false` on a growing chat without tool calls:
 * stateless fit() per call on one array pushed to (its index is reused), at 1k, 10k and 100k
 * messages. Each option has its own array and message objects; their calls alternate.
 */
function growingChatLedger() {
  const sizes = [1_000, 10_000, 100_000]
  const calls = 200
  const last = (sizes.at(-1) as number) + calls + 1
  const variants = [
    ['default', {}],
    ['ledgerFalse', { ledger: false }],
  ] as const
  const pools = variants.map(() => chat(last))
  const grown = variants.map(() => [] as Message[])
  const out: Record<string, number> = {}
  for (const size of sizes) {
    // Grown to size (the first call catches the index up), then timed one message more per call.
    for (const [v, [, options]] of variants.entries()) {
      const pool = pools[v] as Message[]
      const g = grown[v] as Message[]
      while (g.length < size) g.push(pool[g.length] as Message)
      fit(g, { budget: 8_000, ...options })
    }
    const per = variants.map(() => [] as number[])
    for (let k = 0; k < calls; k++)
      for (const [v, [, options]] of turnAbout(variants, k)) {
        const g = grown[v] as Message[]
        g.push((pools[v] as Message[])[g.length] as Message)
        const s = performance.now()
        fit(g, { budget: 8_000, ...options })
        ;(per[v] as number[]).push(performance.now() - s)
      }
    for (const [v, [name]] of variants.entries())
      out[`${name}Ms_${size}`] = median(per[v] as number[])
    out[`ratio_${size}`] =
      (out[`defaultMs_${size}`] as number) / (out[`ledgerFalseMs_${size}`] as number)
  }
  return { workload: 'growing-chat-ledger', calls, ...out }
}

/**
 * Per-call cost of a ChatContext as its agent history grows from 1k to 200k messages, with
 * the default options and with `ledger: true`: a call is the messages added since the last
 * view and the view (addMessage + getMessagesSync). Both contexts grow together and their
 * calls alternate; the claim is that the per-call figure does not grow with the history.
 * The history repeats τ-bench's ~5,100 messages and a call's cost depends on the messages
 * at the cut, so every size is 1,000 plus whole repeats (1k, 6k, 16k, 47k, 200k): the same
 * messages are timed at each. The 90th percentile shows the tail.
 */
function contextScaling() {
  const sizes = [1_000, 4_000, 16_000, 48_000, 200_000].map(
    (n) => 1_000 + Math.round((n - 1_000) / period) * period,
  )
  const turns = 50
  const pool = history((sizes.at(-1) as number) + 400)
  const variants = [
    ['default', new ChatContext({ budget: 8_000, initialMessages: [system] })],
    ['ledgerTrue', new ChatContext({ budget: 8_000, initialMessages: [system], ledger: true })],
  ] as const
  let at = 1 // pool[0] is the system prompt
  const out: Record<string, number> = {}
  for (const size of sizes) {
    // Built to size with addMessages, ending before a user turn so that the view is whole.
    let end = Math.max(at, size)
    while (pool[end]?.role !== 'user') end++
    for (const [, ctx] of variants) {
      ctx.addMessages(pool.slice(at, end))
      ctx.getMessagesSync()
    }
    at = end
    const per = variants.map(() => [] as number[])
    const started = variants.map(() => 0)
    for (let calls = 0; calls < turns && at < pool.length; at++) {
      const m = pool[at] as Message
      const view = !(m.role === 'assistant' && m.toolCalls?.length)
      for (const [v, [, ctx]] of turnAbout(variants, calls)) {
        const s = performance.now()
        ctx.addMessage(m)
        if (view) ctx.getMessagesSync()
        started[v] = (started[v] as number) + performance.now() - s
        if (view) {
          ;(per[v] as number[]).push(started[v] as number)
          started[v] = 0
        }
      }
      if (view) calls++
    }
    const k = `${Math.round(size / 1_000)}k`
    for (const [v, [name]] of variants.entries()) {
      out[`${name}Ms_${k}`] = median(per[v] as number[])
      out[`${name}P90Ms_${k}`] = quantile(per[v] as number[], 0.9)
    }
  }
  return { workload: 'context-scaling', turns, ...out }
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

/**
 * The table-free estimates (Claude's, priced by class of piece, and Gemini's) against the
 * exact o200k count, each counting the same 20,000 messages once with a fresh counter (no
 * cache hit): what a fit pays per new message when no table is loaded.
 */
function estimating() {
  const sample = structuredClone(history(20_000))
  const timed = (c: { countMessage: (m: Message) => number }) => {
    const t0 = performance.now()
    let n = 0
    for (const m of sample) n += c.countMessage(m)
    return [performance.now() - t0, n] as const
  }
  // Warm each path once on other objects, then count the sample with fresh counters.
  for (const make of [
    () => exactCounter(),
    () => estimateCounter({ model: 'claude-sonnet-4-5' }),
    () => estimateCounter({ model: 'gemini-2.5-flash' }),
  ]) {
    const c = make()
    for (const m of structuredClone(sample.slice(0, 2_000))) c.countMessage(m)
  }
  const [exactMs] = timed(exactCounter())
  const [claudeMs, claudeTokens] = timed(estimateCounter({ model: 'claude-sonnet-4-5' }))
  const [geminiMs] = timed(estimateCounter({ model: 'gemini-2.5-flash' }))
  return {
    workload: 'estimating',
    messages: sample.length,
    exactMs,
    claudeMs,
    geminiMs,
    claudeTokens,
    claudeVsExact: claudeMs / exactMs,
  }
}

/**
 * Decoding one Gemini turn of K parallel calls (their responses in one user turn, with ids
 * in another order, and without ids, matched by name) against the same K calls over K turns,
 * at K = 5,000 and 20,000. The ratio stays near or under 1 and does not grow with K when
 * matching a response costs the same however many calls are open.
 */
function geminiParallel() {
  const out: Record<string, number | string> = { workload: 'gemini-parallel' }
  const call = (k: number, ids: boolean) => ({
    functionCall: { ...(ids && { id: `call_${k}` }), name: `tool_${k % 7}`, args: { q: k } },
  })
  const response = (k: number, ids: boolean) => ({
    functionResponse: {
      ...(ids && { id: `call_${k}` }),
      name: `tool_${k % 7}`,
      response: { output: `result ${k}` },
    },
  })
  for (const ids of [true, false])
    for (const k of [5_000, 20_000]) {
      // With ids the responses come in another order, as parallel calls finish.
      const order = Array.from({ length: k }, (_, j) => (ids ? (j * 7_919) % k : j))
      const oneTurn = [
        { role: 'user', parts: [{ text: 'Run them all.' }] },
        { role: 'model', parts: order.map((_, j) => call(j, ids)) },
        { role: 'user', parts: order.map((j) => response(j, ids)) },
      ]
      const spread = [
        { role: 'user', parts: [{ text: 'Run them all.' }] },
        ...order.flatMap((_, j) => [
          { role: 'model', parts: [call(j, ids)] },
          { role: 'user', parts: [response(j, ids)] },
        ]),
      ]
      const timed = (contents: unknown[]) => {
        fromGemini(contents)
        const runs: number[] = []
        for (let r = 0; r < 3; r++) {
          const s0 = performance.now()
          fromGemini(contents)
          runs.push(performance.now() - s0)
        }
        return median(runs)
      }
      const key = `${ids ? 'ids' : 'names'}_${k / 1_000}k`
      const one = timed(oneTurn)
      const many = timed(spread)
      out[`oneTurnMs_${key}`] = one
      out[`spreadMs_${key}`] = many
      out[`ratio_${key}`] = one / many
    }
  return out
}

/**
 * `fitCounted` on one growing array, a turn at a time, at a history of 2,000 and of 20,000
 * messages, against `fitAsync` by the local count alone: the provider's count is asked
 * when the fit comes near its room (nearly every turn here), from a client in this process
 * that counts what it is sent, so the figure is the library's own work (and the client's
 * serializing of what the budget holds). A turn should cost what the budget holds
 * and what was added, whatever the history: `growth` (20,000 / 2,000) stays near 1.
 */
async function endpointScaling() {
  const client = {
    messages: {
      countTokens: async (params: { messages: unknown[]; system?: unknown }) => ({
        input_tokens: Math.ceil(JSON.stringify([params.system, params.messages]).length / 3.2),
      }),
    },
  }
  const out: Record<string, number | string> = { workload: 'endpoint-scaling' }
  const turns = 60
  // The first size is run twice, the first time to warm the code up, and reported once.
  for (const size of [2_000, 2_000, 20_000]) {
    const messages = history(size + turns + 400)
    const growing = messages.slice(0, size)
    const endpoint = countingEndpoint({
      provider: 'anthropic',
      client: client as never,
      model: 'claude-sonnet-4-5',
    })
    const options = { model: 'claude-sonnet-4-5', budget: 8_000 }
    await fitCounted(growing, { ...options, endpoint })
    const counted: number[] = []
    for (let t = 0; t < turns; t++) {
      growing.push(messages[size + t] as Message)
      const s0 = performance.now()
      await fitCounted(growing, { ...options, endpoint })
      counted.push(performance.now() - s0)
    }
    // The same turns fitted by the local count alone, on an array of their own.
    const alone = messages.slice(0, size)
    await fitAsync(alone, options)
    const plain: number[] = []
    for (let t = 0; t < turns; t++) {
      alone.push(messages[size + t] as Message)
      const s0 = performance.now()
      await fitAsync(alone, options)
      plain.push(performance.now() - s0)
    }
    const k = `${size / 1_000}k`
    out[`fitCountedMs_${k}`] = median(counted)
    out[`fitAsyncMs_${k}`] = median(plain)
    out[`calls_${k}`] = endpoint.calls
  }
  out.growth = (out.fitCountedMs_20k as number) / (out.fitCountedMs_2k as number)
  return out
}

/**
 * Recall over a long agent history: τ-bench traffic of 100,000 messages fitted to 8,000
 * tokens with the default options and the recall tool offered, as a model's recall call
 * follows the request it answers (the fit is made first, not timed). A one-word query and a
 * 250-word one (a model pasting the user's words), over the array recall has read (warm),
 * through a ChatContext holding the same messages, and the first recall over a new array:
 * of the same messages (found by its first message), with a new first message (the index
 * behind it found by the second), and with new first two messages (read whole; the
 * messages' credentials read before, as the ledger reads them). The first recall
 * over messages nothing has read yet is reported too: it reads every message's credentials.
 */
async function recallScaling() {
  const n = 100_000
  const options = { budget: 8_000, recall: true } as const
  const pool = history(n)
  const userWords = pool
    .filter((m) => m.role === 'user')
    .flatMap((m) => messageText(m).split(/\s+/))
    .filter((w) => w !== '')
  const one = { query: 'baggage' }
  const long = { query: userWords.slice(0, 250).join(' ') }
  const runs = 9
  // Each first recall is timed after a collection: the garbage of the fit made for it is not its own.
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
  fit(pool, options)
  gc()
  let s = performance.now()
  recall(pool, one, options)
  const coldFirstMs = performance.now() - s
  // Warm: the two queries alternate over the same array.
  const oneMs: number[] = []
  const longMs: number[] = []
  for (let k = 0; k < runs; k++)
    for (const [, [q, per]] of turnAbout(
      [
        [one, oneMs],
        [long, longMs],
      ] as const,
      k,
    )) {
      s = performance.now()
      recall(pool, q, options)
      per.push(performance.now() - s)
    }
  // A new array of the same messages each call (the AI SDK's prepareStep builds one per step).
  const sameMs: number[] = []
  for (let k = 0; k < runs; k++) {
    const copy = [...pool]
    fit(copy, options)
    s = performance.now()
    recall(copy, one, options)
    sameMs.push(performance.now() - s)
  }
  // The first recall over a new array `make(k)` gives, after its fit: the median of five.
  const firstRecallMs = (make: (k: number) => Message[]): number => {
    const times: number[] = []
    for (let k = 0; k < 5; k++) {
      const array = make(k)
      fit(array, options)
      gc()
      s = performance.now()
      recall(array, one, options)
      times.push(performance.now() - s)
    }
    return median(times)
  }
  const head = pool[0] as Message
  // A new array whose first message is a new object (a system prompt made again for the
  // call): the index behind it is found by the second message, its first message replaced.
  const freshFirstMs = firstRecallMs(() => [{ ...head }, ...pool.slice(1)])
  // A new array whose first message says something new (a system prompt with the time in
  // it): the index behind it is found by the second message, and copied with the new head.
  const renewedFirstMs = firstRecallMs((k) => [
    { ...head, content: `${messageText(head)}\nThe time is 10:${10 + k}.` } as Message,
    ...pool.slice(1),
  ])
  // A new array whose first two messages are new objects: nothing found to extend, read whole.
  const wholeFirstMs = firstRecallMs(() => [
    { ...head },
    { ...(pool[1] as Message) },
    ...pool.slice(2),
  ])
  // A ChatContext holding the same history (its own copies): the first recall reads them.
  const ctx = new ChatContext({ budget: 8_000, initialMessages: [system], recall: true })
  ctx.addMessages(pool.slice(1))
  ctx.getMessagesSync()
  gc()
  s = performance.now()
  await ctx.recall(one)
  const contextFirstMs = performance.now() - s
  const contextMs: number[] = []
  const contextLongMs: number[] = []
  for (let k = 0; k < runs; k++) {
    s = performance.now()
    await ctx.recall(one)
    contextMs.push(performance.now() - s)
    s = performance.now()
    await ctx.recall(long)
    contextLongMs.push(performance.now() - s)
  }
  return {
    workload: 'recall-scaling',
    messages: pool.length,
    queryWords: userWords.slice(0, 250).length,
    warmMs: median(oneMs),
    longQueryMs: median(longMs),
    longRatio: median(longMs) / median(oneMs),
    contextMs: median(contextMs),
    contextLongMs: median(contextLongMs),
    contextRatio: median(contextMs) / median(oneMs),
    sameMessagesMs: median(sameMs),
    freshFirstMs,
    renewedFirstMs,
    wholeFirstMs,
    coldFirstMs,
    contextFirstMs,
  }
}

/**
 * τ-bench agent traffic as an agent loop sees it: trajectories one after another in one
 * conversation, a model call after every message that is not the assistant's own, through
 * one `ChatContext`: per call (`getMessagesSync`), per turn (`addMessage` and the call), and
 * how often the sent list starts with the previous one (the provider's prompt cache), with
 * budget left unused. The `Idle` twins wait one macrotask after each call, as a loop awaiting
 * the model does (the ledger reads ahead of the cut then); the others never wait, so every
 * fact is read in a call. Each loop reads fresh copies of the messages (nothing one loop read
 * is known to the next), after a warm-up on other trajectories. `options` names the context's
 * options: `default` or `plain` (`ledger: false`).
 */
async function trafficOf(options: 'default' | 'plain') {
  const records = tauBench()
  const streamOf = (from: number, to: number): Message[] =>
    records.slice(from, to).flatMap((r, k) => fromOpenAIChat(r.traj).slice(k === 0 ? 0 : 1))
  const stream = streamOf(0, 40)
  // Code warmed on other trajectories first, so the first loop is not billed for compiling.
  const warm = new ChatContext({ budget: 8_000, ...(options === 'plain' && { ledger: false }) })
  for (const m of streamOf(40, 60)) {
    warm.addMessage(m)
    if (m.role !== 'assistant') warm.getMessagesSync()
  }
  const out: Record<string, number> = {}
  for (const [suffix, budget, stable, idle] of [
    ['', 8_000, false, false],
    ['Stable', 6_000, true, false],
    ['Idle', 8_000, false, true],
    ['StableIdle', 6_000, true, true],
  ] as const) {
    const ctx = new ChatContext({
      budget,
      ...(options === 'plain' && { ledger: false }),
      ...(stable && { stable }),
    })
    const counter = exactCounter()
    const per: number[] = []
    const turn: number[] = []
    let previous: Message[] | undefined
    let hits = 0
    let unused = 0
    let calls = 0
    let historyTokens = 0
    let added = 0
    // Fresh objects each loop: what a message's facts cost is read anew, as for a new conversation.
    for (const m of structuredClone(stream)) {
      historyTokens += counter.countMessage(m)
      const s0 = performance.now()
      ctx.addMessage(m)
      added += performance.now() - s0
      if (m.role === 'assistant') continue
      calls++
      const s = performance.now()
      const view = ctx.getMessagesSync()
      const t = performance.now() - s
      per.push(t)
      turn.push(t + added)
      if (previous) {
        let c = 0
        while (c < previous.length && view[c] === previous[c]) c++
        if (c === previous.length) hits++
      }
      previous = view
      unused += Math.max(0, Math.min(budget, historyTokens) - counter.countMessages(view)) / budget
      added = 0
      // The model call's wait (its time is not counted).
      if (idle) await new Promise((resolve) => setImmediate(resolve))
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
    out[`calls${suffix}`] = calls
    out[`${options}${suffix}CallMs`] = mean(per)
    out[`${options}${suffix}CallMedianMs`] = median(per)
    out[`${options}${suffix}TurnMs`] = mean(turn)
    out[`${options}${suffix}Prefix`] = hits / (calls - 1)
    out[`${options}${suffix}Unused`] = unused / calls
  }
  return out
}

/**
 * The default options against `ledger: false` on that traffic, each side in a process of its
 * own (run one after the other), so that neither side's garbage or pending work is billed to
 * the other; with the ratios of their figures.
 */
async function agentTraffic() {
  const side = process.argv[3]
  if (side === 'default' || side === 'plain') return trafficOf(side)
  const run = (which: string) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [...process.execArgv, process.argv[1] as string, 'agent-traffic', which],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        },
      )
        .trim()
        .split('\n')
        .at(-1) ?? '',
    ) as Record<string, number>
  const out: Record<string, number> = { ...run('default'), ...run('plain') }
  for (const suffix of ['', 'Stable', 'Idle', 'StableIdle']) {
    out[`ratio${suffix}Call`] =
      (out[`default${suffix}CallMs`] as number) / (out[`plain${suffix}CallMs`] as number)
    out[`ratio${suffix}Turn`] =
      (out[`default${suffix}TurnMs`] as number) / (out[`plain${suffix}TurnMs`] as number)
  }
  return { workload: 'agent-traffic', ...out }
}

/**
 * `mostRelevant` (the query-aware strategy) as shipped, with the signals it reads beyond
 * term overlap off (`dates`, `speakerTurns`), and with the co-occurring words on (an option,
 * off by default): the median fit for a LoCoMo question over its whole conversation at a
 * quarter of its tokens, and the median fit over 20,000 messages of agent traffic at 8,000
 * tokens, the three settings taking turns.
 */
function relevanceCost() {
  const samples = readLocomo() as LocomoSample[]
  const settings = [
    ['shipped', {}],
    ['plain', { dates: 0, speakerTurns: 0 }],
    ['cooccurring', { cooccurring: 0.1 }],
  ] as const
  const counter = exactCounter()
  const conversation: Record<string, number[]> = { shipped: [], plain: [], cooccurring: [] }
  const large: Record<string, number[]> = { shipped: [], plain: [], cooccurring: [] }
  for (const sample of samples) {
    const chat = locomoChat(sample).messages
    const budget = Math.floor(counter.countMessages(chat) / 4)
    sample.qa.slice(0, 40).forEach((qa, k) => {
      const history = [...chat, { role: 'user', content: qa.question } as Message]
      for (const [, [name, o]] of turnAbout(settings, k)) {
        const strategy = lib.mostRelevant({ query: qa.question, ...o })
        const s = performance.now()
        fit(history, { budget, counter, strategy })
        conversation[name]?.push(performance.now() - s)
      }
    })
  }
  const big = history(20_000)
  const query = messageText(big[big.length - 1] as Message)
  for (let k = 0; k < 9; k++)
    for (const [, [name, o]] of turnAbout(settings, k)) {
      const strategy = lib.mostRelevant({ query, ...o })
      const s = performance.now()
      fit(big, { budget: 8_000, counter, strategy })
      large[name]?.push(performance.now() - s)
    }
  const out: Record<string, number> = {}
  for (const [name] of settings) {
    out[`${name}ConversationMs`] = median(conversation[name] ?? [])
    out[`${name}LargeMs`] = median(large[name] ?? [])
  }
  const ratio = (a: string, b: string) => (out[a] as number) / (out[b] as number)
  out.shippedOverPlainConversation = ratio('shippedConversationMs', 'plainConversationMs')
  out.shippedOverPlainLarge = ratio('shippedLargeMs', 'plainLargeMs')
  // What the co-occurring words (off by default) would cost: the fit with them over the shipped one.
  out.cooccurringOverShippedConversation = ratio(
    'cooccurringConversationMs',
    'shippedConversationMs',
  )
  out.cooccurringOverShippedLarge = ratio('cooccurringLargeMs', 'shippedLargeMs')
  out.fits = conversation.shipped?.length ?? 0
  return { workload: 'relevance-cost', ...out }
}

/**
 * The credential filter's cost per MB of text: τ-bench agent traffic (message texts and call
 * arguments, JSON tool results among them) and LoCoMo conversation prose, each text read
 * whole once per pass (the filter keeps nothing between calls). Five passes, the median.
 */
function credentialFilter() {
  const agent = tauBench().flatMap((r) =>
    fromOpenAIChat(r.traj).flatMap((m) => [
      messageText(m),
      ...(m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.arguments) : []),
    ]),
  )
  const locomo = readLocomo() as { conversation: Record<string, unknown> }[]
  const prose = locomo.flatMap((c) =>
    Object.values(c.conversation).flatMap((v) =>
      Array.isArray(v) ? v.map((t) => String((t as { text?: unknown }).text ?? '')) : [],
    ),
  )
  const out: Record<string, number> = {}
  for (const [name, texts] of [
    ['agent', agent],
    ['prose', prose],
  ] as const) {
    const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0)
    for (const t of texts.slice(0, 200)) credentialSpans(t) // rules compiled, code warm
    const passes: number[] = []
    let spans = 0
    for (let k = 0; k < 5; k++) {
      globalThis.gc?.()
      const s = performance.now()
      for (const t of texts) spans += credentialSpans(t).length
      passes.push(performance.now() - s)
    }
    out[`${name}MB`] = bytes / 1e6
    out[`${name}MsPerMB`] = median(passes) / (bytes / 1e6)
    out[`${name}Spans`] = spans / 5
  }
  return { workload: 'credential-filter', ...out }
}

const which = process.argv[2]
const sections: Record<string, () => unknown> = {
  'agent-loop': agentLoop,
  growing,
  counting,
  'agent-ledger': agentLedger,
  'agent-traffic': agentTraffic,
  'growing-chat-ledger': growingChatLedger,
  'context-scaling': contextScaling,
  'gemini-parallel': geminiParallel,
  'endpoint-scaling': endpointScaling,
  estimating,
  'recall-scaling': recallScaling,
  'credential-filter': credentialFilter,
  'relevance-cost': relevanceCost,
}
if (which === '--list') {
  console.log(JSON.stringify(Object.keys(sections)))
  process.exit(0)
}
const run = which === undefined ? undefined : sections[which]
if (!run) throw new Error(`unknown section ${which}: ${Object.keys(sections).join(', ')}`)
const result = await run()
console.log(JSON.stringify(result))

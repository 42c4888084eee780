// npm run bench: one process, the same workloads and the same exact counter for every system.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { fileURLToPath } from 'node:url'
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  trimMessages,
} from '@langchain/core/messages'
import { measure as measureSize } from '../scripts/size.js'
import type { Message } from '../src/messages/message.js'
import { coldStarts } from './cold-start-runs.js'
import { lib, messageText } from './lib.js'
import { stablePrefixShare } from './stable-usage.js'
import { history } from './traffic.js'

const { ChatContext, fit, exactCounter } = lib

const LIMIT_MS = 20_000
const counter = exactCounter()
const rows: Record<string, unknown>[] = []

interface MemoryStage {
  stage: string
  messages: number
  jsonBytes: number
  heldBytes: number
  growthBytes: number
  rssBytes: number
}

/** The JSON line a bench script prints, run in a fresh process. */
function fresh(script: string, ...args: string[]): unknown {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(new URL(script, import.meta.url)), ...args],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  )
  return JSON.parse(out.trim().split('\n').at(-1) ?? '')
}

/** One section of bench/sections.ts, in a fresh process. */
function isolated(section: string): Record<string, unknown> {
  return fresh('./sections.ts', section) as Record<string, unknown>
}

/** The run, of five of `section` each in a fresh process, whose `ratio` is the median. */
function medianRun(
  section: string,
  ratio: (r: Record<string, number>) => number,
): Record<string, unknown> {
  const runs = Array.from({ length: 5 }, () => isolated(section) as Record<string, number>)
  runs.sort((a, b) => ratio(a) - ratio(b))
  return { ...runs[2], ratios: runs.map(ratio) }
}

/** Five runs of `section`, each in a fresh process, and each of its figures' median over them. */
function medianFigures(section: string): Record<string, number> {
  const runs = Array.from({ length: 5 }, () => isolated(section))
  const out: Record<string, number> = {}
  for (const [key, value] of Object.entries(runs[0] ?? {}))
    if (typeof value === 'number') out[key] = median(runs.map((r) => Number(r[key])))
  return out
}

/** One stage of bench/memory-stages.ts, in a fresh process. */
function memoryStage(stage: string): MemoryStage {
  return fresh('./memory-stages.ts', stage, '--json') as MemoryStage
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] as number
}

/** Median of `runs` timings (ms), after one warm-up; a run over the limit stops the series. */
function time(fn: () => unknown, runs = 5): number {
  fn()
  const xs: number[] = []
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now()
    fn()
    const dt = performance.now() - t0
    xs.push(dt)
    if (dt * (runs - k) > LIMIT_MS) break
  }
  return median(xs)
}

async function timeAsync(fn: () => Promise<unknown>, runs = 5): Promise<number> {
  await fn()
  const xs: number[] = []
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now()
    await fn()
    const dt = performance.now() - t0
    xs.push(dt)
    if (dt * (runs - k) > LIMIT_MS) break
  }
  return median(xs)
}

const fmt = (ms: number) =>
  ms >= 1000
    ? `${(ms / 1000).toFixed(2)} s`
    : ms >= 1
      ? `${ms.toFixed(2)} ms`
      : `${(ms * 1000).toFixed(0)} µs`

// ---- data: τ-bench trajectories concatenated (system prompt once), in bench/traffic.ts ----

// ---- peers: the same history in their shapes, the same counter ----
function toLangChain(h: Message[]): BaseMessage[] {
  // Each message gets an id: trimMessages copies messages, so counts are looked up by id.
  return h.map((m, i) => {
    const id = String(i)
    const text = typeof m.content === 'string' ? m.content : messageText(m)
    if (m.role === 'system') return new SystemMessage({ content: text, id })
    if (m.role === 'user') return new HumanMessage({ content: text, id })
    if (m.role === 'tool') return new ToolMessage({ content: text, tool_call_id: m.toolCallId, id })
    return new AIMessage({
      content: text,
      id,
      tool_calls: (m.toolCalls ?? []).map((c) => ({
        id: c.id,
        name: c.name,
        args: JSON.parse(c.arguments),
        type: 'tool_call' as const,
      })),
    })
  })
}

/** Each LangChain message counted once with our counter, then looked up: the fairest cached counter. */
function cachedLangChainCounter(h: Message[]) {
  const counts = h.map((m) => counter.countMessage(m))
  return (msgs: BaseMessage[]) =>
    msgs.reduce((n, m) => n + (counts[Number(m.id)] as number), 0) + counter.replyPriming
}
/** A plain counter: every call tokenizes every message it is given. */
function plainLangChainCounter(h: Message[]) {
  return (msgs: BaseMessage[]) => {
    const plain = exactCounter()
    return plain.countMessages(msgs.map((m) => structuredClone(h[Number(m.id)] as Message)))
  }
}

async function llamaIndexBuffer(h: Message[], budget: number) {
  const { ChatMemoryBuffer } = await import('@llamaindex/core/memory')
  const chatHistory = h.map((m) => ({
    role: m.role === 'tool' ? 'user' : m.role,
    content: messageText(m),
  })) as never[]
  const buffer = new ChatMemoryBuffer({
    tokenLimit: budget,
    chatHistory,
    llm: { metadata: { contextWindow: 128_000 } } as never,
  })
  const cache = new WeakMap<object, number>()
  for (const [i, m] of chatHistory.entries()) cache.set(m, counter.countMessage(h[i] as Message))
  ;(
    buffer as unknown as { _tokenCountForMessages: (ms: object[]) => number }
  )._tokenCountForMessages = (ms) => ms.reduce((n: number, m) => n + (cache.get(m) ?? 0), 0)
  return buffer
}

/** The printout, also written to bench/results/latest.md (the tables the docs point to). */
const printed: string[] = []
const print = console.log
console.log = (...args: unknown[]) => {
  printed.push(args.join(' '))
  print(...args)
}

async function main() {
  const env = { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length }
  console.log(`context-window bench — Node ${env.node}, ${env.cores} × ${env.cpu}`)
  console.log(
    'Every system counts with gpt-tokenizer o200k. Peers get a cached per-message counter (each message counted once, then looked up) unless marked "plain".\n',
  )

  // 1. fit once
  console.log('## 1. Fit once (counts cached; median of 5)\n')
  console.log(
    '| messages | budget | ours: ChatContext view | ours: fit() tokenLimited | ours: fit() scoreBased | LangChain trimMessages | LlamaIndex ChatMemoryBuffer | LangChain, plain counter | LangChain / ChatContext | LangChain / fit() |',
  )
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const n of [1_000, 10_000, 100_000]) {
    const h = history(n)
    const lc = toLangChain(h)
    const lcCount = cachedLangChainCounter(h)
    for (const budget of [8_000, 128_000]) {
      // Newest messages only, as the peers keep (the ledger an agent gets by default is in section 6).
      fit(h, { budget, ledger: false }) // counts every message once: the cache is warm below
      const ctx = new ChatContext({ budget, ledger: false })
      ctx.addMessages(h)
      const view = time(() => ctx.getMessagesSync(), 21)
      const ours = time(() => fit(h, { budget, ledger: false }), 21)
      const score = time(() => fit(h, { budget, strategy: 'scoreBased' }), 21)
      const ourKept = fit(h, { budget, ledger: false })
      let lang = Number.NaN
      let langKept = 0
      if (n <= 10_000 || budget === 128_000) {
        lang = await timeAsync(
          async () => {
            const out = await trimMessages(lc, {
              maxTokens: budget - 3,
              strategy: 'last',
              includeSystem: true,
              tokenCounter: lcCount,
              startOn: 'human',
            })
            langKept = out.length
          },
          n >= 10_000 ? 1 : 3,
        )
      }
      let llama = Number.NaN
      if (n <= 10_000) {
        const buffer = await llamaIndexBuffer(h, budget)
        llama = await timeAsync(() => buffer.getMessages(), n >= 10_000 ? 1 : 3)
      }
      let plain = Number.NaN
      if (n <= 1_000) {
        const pc = plainLangChainCounter(h)
        plain = await timeAsync(
          () =>
            trimMessages(lc, {
              maxTokens: budget - 3,
              strategy: 'last',
              includeSystem: true,
              tokenCounter: pc,
              startOn: 'human',
            }),
          1,
        )
      }
      const ratio = (x: number) => (Number.isNaN(lang) ? '—' : `${(lang / x).toFixed(0)}×`)
      console.log(
        `| ${h.length} | ${budget} | ${fmt(view)} | ${fmt(ours)} | ${fmt(score)} | ${Number.isNaN(lang) ? 'skipped (> 20 s)' : fmt(lang)} | ${Number.isNaN(llama) ? 'skipped (> 20 s)' : fmt(llama)} | ${Number.isNaN(plain) ? 'skipped' : fmt(plain)} | ${ratio(view)} | ${ratio(ours)} |`,
      )
      rows.push({
        workload: 'fit-once',
        messages: h.length,
        budget,
        contextViewMs: view,
        oursMs: ours,
        scoreBasedMs: score,
        langchainMs: lang,
        llamaindexMs: llama,
        langchainPlainMs: plain,
        oursKept: ourKept.kept.length,
        langchainKept: langKept,
      })
    }
  }
  console.log(
    '\nKept counts agree where both ran (same budget, same counter); LangChain may keep one message more or less where its `startOn: human` and our unit rule (never split a tool exchange) differ.\n',
  )

  // 2. agent loop
  console.log('## 2. Agent loop: 10,000 turns of addMessage + getMessages at 8,000 tokens\n')
  // Five fresh processes; the run with the median ratio is shown (the machine is shared).
  const {
    totalMs: total,
    earlyMs: early,
    lateMs: late,
    tokenizeOnceMs: tokenizeOnce,
    ratios: loopRatios,
  } = medianRun('agent-loop', (r) => Number(r.totalMs) / Number(r.tokenizeOnceMs)) as {
    ratios: number[]
    totalMs: number
    earlyMs: number
    lateMs: number
    tokenizeOnceMs: number
  }
  console.log(
    '| total | per turn, turns 50-150 | per turn, last 100 | late / early | tokenizing every message once | loop / tokenizing |',
  )
  console.log('| --- | --- | --- | --- | --- | --- |')
  console.log(
    `| ${fmt(total)} | ${fmt(early)} | ${fmt(late)} | ${(late / early).toFixed(2)} | ${fmt(tokenizeOnce)} | ${(total / tokenizeOnce).toFixed(2)} |\n`,
  )
  console.log(
    `loop / tokenizing in the five runs, each in a fresh process: ${loopRatios.map((r) => r.toFixed(2)).join(', ')} (the median run is shown)\n`,
  )
  rows.push({
    workload: 'agent-loop',
    totalMs: total,
    earlyMs: early,
    lateMs: late,
    tokenizeOnceMs: tokenizeOnce,
    ratios: loopRatios,
  })

  // 2b. fit() on an array that grows by one message per call
  console.log(
    '## 2b. Stateless fit() on a growing array: 100,000 messages, one more per call, 8,000 tokens\n',
  )
  // Five fresh processes, as for the agent loop; the run with the median per-call time is shown.
  const grew = medianRun('growing', (r) => Number(r.pushedMs)) as {
    ratios: number[]
    messages: number
    calls: number
    pushedMs: number
    newArrayMs: number
  }
  const growPush = grew.pushedMs
  const growCopy = grew.newArrayMs
  const perPush = { length: grew.calls }
  const grown = { length: grew.messages }
  console.log(
    '| calls | one array pushed to, median per call | a new array of the same messages, median per call |',
  )
  console.log('| --- | --- | --- |')
  console.log(`| ${perPush.length} | ${fmt(growPush)} | ${fmt(growCopy)} |\n`)
  console.log(
    `median per call (one array pushed to) in the five runs, each in a fresh process: ${grew.ratios.map((r) => fmt(r)).join(', ')}\n`,
  )
  rows.push({
    workload: 'fit-growing-array',
    messages: grown.length,
    calls: perPush.length,
    pushedMs: growPush,
    newArrayMs: growCopy,
    runs: grew.ratios,
  })

  // 3. counting
  console.log('## 3. Counting: our message accounting vs raw countTokens on the same text\n')
  const counted = medianRun('counting', (r) => Number(r.rawMs) / Number(r.oursMs)) as {
    ratios: number[]
    messages: number
    bytes: number
    rawMs: number
    oursMs: number
  }
  const { bytes, rawMs: raw, oursMs: ourCount } = counted
  const sample = { length: counted.messages }
  console.log(
    '| messages | MB | raw countTokens | ours (countMessage) | ours, messages/s | ours, MB/s | ours / raw throughput |',
  )
  console.log('| --- | --- | --- | --- | --- | --- | --- |')
  console.log(
    `| ${sample.length} | ${(bytes / 1e6).toFixed(1)} | ${fmt(raw)} | ${fmt(ourCount)} | ${Math.round(sample.length / (ourCount / 1000))} | ${(bytes / 1e6 / (ourCount / 1000)).toFixed(1)} | ${(raw / ourCount).toFixed(2)} |\n`,
  )
  console.log(
    `ours / raw in the five runs, each in a fresh process: ${counted.ratios.map((r) => r.toFixed(2)).join(', ')} (the median run is shown)\n`,
  )
  rows.push({
    workload: 'counting',
    messages: sample.length,
    bytes,
    rawMs: raw,
    oursMs: ourCount,
    ratios: counted.ratios,
  })

  // 3b. the table-free estimates
  console.log('## 3b. Estimating without a table: 20,000 messages counted once\n')
  const estimated = medianFigures('estimating')
  console.log(
    '| exact o200k | Claude estimate (by class of piece) | Gemini estimate | Claude / exact |\n| --- | --- | --- | --- |',
  )
  console.log(
    `| ${fmt(estimated.exactMs as number)} | ${fmt(estimated.claudeMs as number)} | ${fmt(estimated.geminiMs as number)} | ${(estimated.claudeVsExact as number).toFixed(2)} |\n`,
  )
  console.log(
    'Each figure the median of five fresh processes; each counter fresh, so nothing is cached.\n',
  )
  rows.push({ workload: 'estimating', ...estimated })

  // 4. memory
  console.log('## 4. Memory: a 100,000-message ChatContext\n')
  // Measured in a process of its own (bench/memory-stages.ts), so that nothing the sections
  // above made is counted: the history arrives as JSON text, is added, and is fitted once.
  const stages = ['parsed', 'copies', 'context'].map(memoryStage)
  const mem = stages[2] as MemoryStage
  const json = mem.jsonBytes
  const heap = mem.heldBytes
  console.log(
    '| stage | messages | JSON size | heap held | held / JSON | heap growth (with the tokenizer cache) | growth / JSON |',
  )
  console.log('| --- | --- | --- | --- | --- | --- | --- |')
  const what = {
    parsed: 'the parsed history alone',
    copies: 'its frozen copies',
    context: 'ChatContext (copies + index), fitted once',
  }
  for (const st of stages)
    console.log(
      `| ${what[st.stage as keyof typeof what]} | ${st.messages} | ${(st.jsonBytes / 1e6).toFixed(1)} MB | ${(st.heldBytes / 1e6).toFixed(1)} MB | ${(st.heldBytes / st.jsonBytes).toFixed(2)} | ${(st.growthBytes / 1e6).toFixed(1)} MB | ${(st.growthBytes / st.jsonBytes).toFixed(2)} |`,
    )
  console.log(
    "\nheld: heap with the result alive less heap once it is released; growth also counts what the process keeps after (the tokenizer's bounded merge cache).\n",
  )
  for (const st of stages) rows.push({ workload: 'memory', ...st })

  console.log('## 4b. Summaries: 1,000 conversations through one summarizing() instance\n')
  // Its own process (bench/summaries-memory.ts): heap after gc, the conversations released.
  const sums = fresh('./summaries-memory.ts', '1000') as {
    conversations: number
    fitsSummarized: number
    growthAfter100Bytes: number
    growthAfterAllBytes: number
    savedStates: number
    worstStateOverHistory: number
  }
  console.log(
    '| conversations | fits that summarized | heap growth after 100 | heap growth after 1,000 | saved states measured | largest saved state / history JSON |',
  )
  console.log('| --- | --- | --- | --- | --- | --- |')
  console.log(
    `| ${sums.conversations} | ${sums.fitsSummarized} | ${(sums.growthAfter100Bytes / 1e6).toFixed(2)} MB | ${(sums.growthAfterAllBytes / 1e6).toFixed(2)} MB | ${sums.savedStates} | ${sums.worstStateOverHistory.toFixed(2)} |\n`,
  )
  rows.push({ workload: 'summaries-memory', ...sums })

  console.log('## 5. Size: browser bundle of fit + tokenLimited + OpenAI chat codec\n')
  const size = await measureSize()
  console.log(
    `minified ${(size.bytes / 1024).toFixed(1)} KB, gzipped ${(size.gzip / 1024).toFixed(1)} KB, all loaded at start; the rank tables ${(size.onDemand / 1024).toFixed(0)} KB gzipped, only on loadEncoding (npm run size)\n`,
  )
  rows.push({
    workload: 'size',
    minifiedBytes: size.bytes,
    gzipBytes: size.gzip,
    onDemandGzipBytes: size.onDemand,
  })

  console.log('## 6. Prompt-cache stability: a stable view, 2,000 messages at 6,000 tokens\n')
  const share = {
    none: stablePrefixShare(2_000),
    exact: stablePrefixShare(2_000, 1),
    over: stablePrefixShare(2_000, 1.17),
  }
  console.log(
    '| usage recorded after every call | calls whose sent list starts with the previous one |',
  )
  console.log('| --- | --- |')
  console.log(`| none | ${(share.none * 100).toFixed(1)}% |`)
  console.log(`| provider counts as we do (±1.5%) | ${(share.exact * 100).toFixed(1)}% |`)
  console.log(`| provider counts 17% more (±1.5%) | ${(share.over * 100).toFixed(1)}% |`)
  console.log('')
  rows.push({ workload: 'stable-prefix', ...share })
  const usageShare = Math.min(share.exact, share.over)

  // 7. the default for agents
  console.log(
    '## 7. The default for agents: one new turn over a 1,000-message agent history with the ledger of what is dropped (8,000 tokens, counts cached)\n',
  )
  const agent = medianRun('agent-ledger', (r) => Number(r.contextLedgerMs)) as {
    contextLedgerMs: number
    contextWithoutMs: number
    fitLedgerMs: number
    fitWithoutMs: number
    ratios: number[]
  }
  console.log(
    '| entry | with the ledger (default) | without (`ledger: false`) | ratio |\n| --- | --- | --- | --- |',
  )
  console.log(
    `| ChatContext view | ${fmt(agent.contextLedgerMs)} | ${fmt(agent.contextWithoutMs)} | ${(agent.contextLedgerMs / agent.contextWithoutMs).toFixed(0)}× |`,
  )
  console.log(
    `| fit() on the grown array | ${fmt(agent.fitLedgerMs)} | ${fmt(agent.fitWithoutMs)} | ${(agent.fitLedgerMs / agent.fitWithoutMs).toFixed(0)}× |\n`,
  )
  console.log(
    `median per call (ChatContext, ledger) in the five runs, each in a fresh process: ${agent.ratios.map((r) => fmt(r)).join(', ')}\n`,
  )
  rows.push({ workload: 'agent-ledger', ...agent })

  // 7e. the default for agents on τ-bench traffic, against ledger: false, plain and stable
  console.log(
    '## 7e. The default for agents on τ-bench traffic: 40 trajectories in one conversation, a call after every user message and tool result, the default options and `ledger: false` each in a process of its own\n',
  )
  const traffic = medianFigures('agent-traffic')
  console.log(
    '| cut | budget | calls | per call, default | per call, `ledger: false` | ratio | per turn (add + call), default | per turn, `ledger: false` | ratio | prefix kept, default | prefix kept, `ledger: false` | budget unused, default | budget unused, `ledger: false` |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  )
  for (const [cut, budget, k] of [
    ['plain', 8000, ''],
    ['stable', 6000, 'Stable'],
    ['plain, waiting between calls', 8000, 'Idle'],
    ['stable, waiting between calls', 6000, 'StableIdle'],
  ] as const) {
    const f = (name: string) => traffic[name] as number
    console.log(
      `| ${cut} | ${budget} | ${f(`calls${k}`)} | ${fmt(f(`default${k}CallMs`))} | ${fmt(f(`plain${k}CallMs`))} | ${(f(`default${k}CallMs`) / f(`plain${k}CallMs`)).toFixed(2)}× | ${fmt(f(`default${k}TurnMs`))} | ${fmt(f(`plain${k}TurnMs`))} | ${(f(`default${k}TurnMs`) / f(`plain${k}TurnMs`)).toFixed(2)}× | ${(f(`default${k}Prefix`) * 100).toFixed(1)}% | ${(f(`plain${k}Prefix`) * 100).toFixed(1)}% | ${(f(`default${k}Unused`) * 100).toFixed(1)}% | ${(f(`plain${k}Unused`) * 100).toFixed(1)}% |`,
    )
  }
  console.log(
    "\nper call: mean of `getMessagesSync` over the calls; per turn: that and the `addMessage` calls before it. Each figure the median of five runs, each in a fresh process. The first two rows never wait between calls, so the default reads a message's facts in the call whose cut first drops it (once). The rows waiting between calls yield one macrotask after each call, as a loop awaiting the model does: the ledger then reads the facts of the messages next to be dropped while the process waits, and the calls find them read.\n",
  )
  rows.push({ workload: 'agent-traffic', ...traffic })
  const trafficCall = (traffic.defaultCallMs as number) / (traffic.plainCallMs as number)
  const trafficIdleCall =
    (traffic.defaultIdleCallMs as number) / (traffic.plainIdleCallMs as number)
  const stablePrefix = traffic.defaultStablePrefix as number
  const stableUnused = traffic.defaultStableUnused as number

  // 7b. the default on a chat without tool calls
  console.log(
    '## 7b. The default on a chat without tool calls: stateless fit() on a growing array, one more message per call (8,000 tokens)\n',
  )
  // 'auto' writes no ledger without tool calls: the default should cost what `false` does.
  const chatLedger = medianFigures('growing-chat-ledger')
  const chatSizes = [1_000, 10_000, 100_000]
  console.log(
    '| messages | default (`ledger: auto`), median per call | `ledger: false`, median per call | default / false |\n| --- | --- | --- | --- |',
  )
  for (const n of chatSizes)
    console.log(
      `| ${n} | ${fmt(chatLedger[`defaultMs_${n}`] as number)} | ${fmt(chatLedger[`ledgerFalseMs_${n}`] as number)} | ${(chatLedger[`ratio_${n}`] as number).toFixed(2)} |`,
    )
  console.log(
    `\n${chatLedger.calls} calls at each size, the two options alternating; each figure the median of five fresh processes.\n`,
  )
  rows.push({ workload: 'growing-chat-ledger', ...chatLedger })
  const chatWorst = Math.max(...chatSizes.map((n) => chatLedger[`ratio_${n}`] as number))

  // 7c. a ChatContext as the agent history grows
  console.log(
    '## 7c. ChatContext per call as an agent history grows: addMessage + getMessagesSync at 8,000 tokens\n',
  )
  const scaling = medianFigures('context-scaling')
  const scaleKeys = Object.keys(scaling)
    .filter((k) => k.startsWith('defaultMs_'))
    .map((k) => k.slice('defaultMs_'.length))
  console.log(
    '| messages | default, median per call | default, 90th percentile | `ledger: true`, median per call | `ledger: true`, 90th percentile |\n| --- | --- | --- | --- | --- |',
  )
  for (const k of scaleKeys)
    console.log(
      `| ${k} | ${fmt(scaling[`defaultMs_${k}`] as number)} | ${fmt(scaling[`defaultP90Ms_${k}`] as number)} | ${fmt(scaling[`ledgerTrueMs_${k}`] as number)} | ${fmt(scaling[`ledgerTrueP90Ms_${k}`] as number)} |`,
    )
  console.log(
    `\n${scaling.turns} calls at each size, the two contexts alternating; every size is 1,000 messages plus whole repeats of the τ-bench traffic, so the same messages are timed at each. Each figure the median of five fresh processes.\n`,
  )
  rows.push({ workload: 'context-scaling', ...scaling })
  const scaleFirst = scaleKeys[0] as string
  const scaleLast = scaleKeys.at(-1) as string
  const scaleGrowth = Math.max(
    (scaling[`defaultMs_${scaleLast}`] as number) / (scaling[`defaultMs_${scaleFirst}`] as number),
    (scaling[`ledgerTrueMs_${scaleLast}`] as number) /
      (scaling[`ledgerTrueMs_${scaleFirst}`] as number),
  )

  // 7d. Gemini: one turn of K parallel calls against K turns
  console.log(
    '## 7d. Gemini decode: one turn of K parallel calls against the same calls over K turns\n',
  )
  const gemini = medianFigures('gemini-parallel')
  console.log(
    '| responses matched by | K | one turn | K turns | ratio |\n| --- | --- | --- | --- | --- |',
  )
  for (const key of Object.keys(gemini).filter((k) => k.startsWith('ratio_'))) {
    const at = key.slice('ratio_'.length)
    const [by, k] = at.split('_') as [string, string]
    console.log(
      `| ${by === 'ids' ? 'id (in another order)' : 'name'} | ${k} | ${fmt(gemini[`oneTurnMs_${at}`] as number)} | ${fmt(gemini[`spreadMs_${at}`] as number)} | ${(gemini[key] as number).toFixed(2)} |`,
    )
  }
  console.log('\nEach figure the median of five fresh processes (three decodes each).\n')
  rows.push({ workload: 'gemini-parallel', ...gemini })

  // 7e. the provider's count on a growing history
  console.log(
    "## 7e. `fitCounted` on a growing history: a turn with the provider's count at 2,000 and 20,000 messages\n",
  )
  const endpoint = medianFigures('endpoint-scaling')
  console.log(
    '| history | fitCounted, median per turn | fitAsync by the local count, median per turn | endpoint calls in 60 turns |\n| --- | --- | --- | --- |',
  )
  for (const k of ['2k', '20k'])
    console.log(
      `| ${k} | ${fmt(endpoint[`fitCountedMs_${k}`] as number)} | ${fmt(endpoint[`fitAsyncMs_${k}`] as number)} | ${endpoint[`calls_${k}`]} |`,
    )
  console.log(
    `\n20,000 / 2,000: ${(endpoint.growth as number).toFixed(2)} (each figure the median of five fresh processes). A turn costs what the budget holds and what was added; the client, in this process, serializes what it is sent.\n`,
  )
  rows.push({ workload: 'endpoint-scaling', ...endpoint })

  // 8. cold start
  console.log(
    '## 8. Cold start: a fresh Node process imports the package and fits the bundled example to 3,000 tokens once\n',
  )
  // Each system in five fresh processes, interleaved; time from process start (Node's own
  // start included, the same for all) to the end of the fit.
  const cold = coldStarts(5)
  const coldOf = (s: string) => cold.find((c) => c.system === s) as (typeof cold)[number]
  const coldWhat = {
    estimate: 'ours, estimating (claude-sonnet-4-5: no tokenizer table)',
    exact: 'ours, exact (gpt-4o: o200k table loaded on the first count)',
    'ai-sdk': 'AI SDK pruneMessages',
    langchain: 'LangChain trimMessages, gpt-tokenizer o200k counter',
  }
  console.log('| system | median, import + fit | median, import | the five runs | messages kept |')
  console.log('| --- | --- | --- | --- | --- |')
  for (const c of cold)
    console.log(
      `| ${coldWhat[c.system]} | ${fmt(c.medianMs)} | ${fmt(c.importMedianMs)} | ${c.runs.map((r) => fmt(r)).join(', ')} | ${c.kept} |`,
    )
  const estimateVsAi = coldOf('estimate').medianMs / coldOf('ai-sdk').medianMs
  const exactVsLangChain = coldOf('exact').medianMs / coldOf('langchain').medianMs
  console.log(
    `\nours estimating / AI SDK: ${estimateVsAi.toFixed(2)}; ours exact / LangChain: ${exactVsLangChain.toFixed(2)}. pruneMessages drops reasoning and old tool calls by rule and counts nothing; it keeps what it keeps at any length.\n`,
  )
  for (const c of cold) rows.push({ workload: 'cold-start', ...c })

  // 9. recall
  console.log(
    '## 9. Recall over a long agent history: 100,000 messages of τ-bench traffic fitted to 8,000 tokens, the recall tool offered\n',
  )
  const recalled = medianFigures('recall-scaling')
  console.log('| recall | median |\n| --- | --- |')
  const recallRows: [string, number][] = [
    ['`recall()`, warm, a one-word query', recalled.warmMs as number],
    [
      `\`recall()\`, warm, a ${recalled.queryWords}-word query (a user's message pasted)`,
      recalled.longQueryMs as number,
    ],
    ['`ChatContext#recall`, a one-word query', recalled.contextMs as number],
    [
      `\`ChatContext#recall\`, a ${recalled.queryWords}-word query`,
      recalled.contextLongMs as number,
    ],
    [
      'a new array of the same messages (found by its first message)',
      recalled.sameMessagesMs as number,
    ],
    [
      'first recall over a new array whose first message is a new object of the same text (a system prompt made again: the index behind it taken, its head swapped in place)',
      recalled.freshFirstMs as number,
    ],
    [
      'first recall over a new array whose first message says something new (a system prompt with the time in it: the index behind it copied with the new head)',
      recalled.renewedFirstMs as number,
    ],
    [
      'first recall over a new array whose first two messages are new (its index read whole; the messages read before by the fit and the credential filter)',
      recalled.wholeFirstMs as number,
    ],
    [
      "first recall over messages nothing read before (each message's credentials and facts read once)",
      recalled.coldFirstMs as number,
    ],
    ["`ChatContext#recall`, the context's first", recalled.contextFirstMs as number],
  ]
  for (const [what, ms] of recallRows) console.log(`| ${what} | ${fmt(ms)} |`)
  console.log(
    `\n${recalled.messages} messages; the model's recall follows the request it answers, so each recall's fit is made first (not timed); each first recall is timed after a collection. Each figure the median of five fresh processes.\n`,
  )
  rows.push({ workload: 'recall-scaling', ...recalled })

  // 10. the credential filter
  console.log(
    '## 10. The credential filter: what every derived text (the ledger, recall, summaries, facts, errors) goes through\n',
  )
  const filter = medianFigures('credential-filter')
  console.log('| text | MB | ms per MB | spans found |\n| --- | --- | --- | --- |')
  console.log(
    `| τ-bench agent traffic (message texts and call arguments) | ${fmt(filter.agentMB as number)} | ${fmt(filter.agentMsPerMB as number)} | ${filter.agentSpans} |`,
  )
  console.log(
    `| LoCoMo conversation prose | ${fmt(filter.proseMB as number)} | ${fmt(filter.proseMsPerMB as number)} | ${filter.proseSpans} |`,
  )
  console.log(
    '\nEach text read whole once per pass (the filter keeps nothing between calls); the median of five passes, in each of five fresh processes.\n',
  )
  rows.push({ workload: 'credential-filter', ...filter })

  // 11. mostRelevant's cost, as shipped, with its signals beyond term overlap off, and with the co-occurring words on
  console.log(
    '## 11. `mostRelevant` per fit: as shipped, with the speaker turns and dates off, and with the co-occurring words on (`cooccurring: 0.1`)\n',
  )
  const relevanceCost = medianFigures('relevance-cost')
  console.log(
    '| history | shipped | speaker turns and dates off | shipped / off | co-occurring on | co-occurring on / shipped |\n| --- | --- | --- | --- | --- | --- |',
  )
  for (const [label, k] of [
    ['a LoCoMo question over its conversation, at 25%', 'Conversation'],
    ['20,000 messages of agent traffic, at 8,000 tokens', 'Large'],
  ] as const)
    console.log(
      `| ${label} | ${fmt(relevanceCost[`shipped${k}Ms`] as number)} | ${fmt(relevanceCost[`plain${k}Ms`] as number)} | ${(relevanceCost[`shippedOverPlain${k}`] as number).toFixed(2)} | ${fmt(relevanceCost[`cooccurring${k}Ms`] as number)} | ${(relevanceCost[`cooccurringOverShipped${k}`] as number).toFixed(2)} |`,
    )
  console.log(
    `\n${relevanceCost.fits} LoCoMo fits and 9 large ones per setting, the settings taking turns; each figure the median of five fresh processes.\n`,
  )
  rows.push({ workload: 'relevance-cost', ...relevanceCost })

  // targets
  const fit10k = rows.find(
    (r) =>
      r.workload === 'fit-once' &&
      (r.messages as number) > 9_000 &&
      (r.messages as number) < 11_000 &&
      r.budget === 8_000,
  ) as { langchainMs: number; oursMs: number; contextViewMs: number }
  const targets = [
    [
      'fit() on a plain 10k-message array into 8k tokens, counts cached: ≥ 1000× faster than LangChain trimMessages (cached counter)',
      fit10k.langchainMs / fit10k.oursMs >= 1000,
      `${(fit10k.langchainMs / fit10k.oursMs).toFixed(0)}×`,
    ],
    [
      'fit() on a plain 10k-message array into 8k tokens, counts cached: under 1 ms',
      fit10k.oursMs < 1,
      fmt(fit10k.oursMs),
    ],
    [
      'fit() on a 100k-message array grown by one message: under 1 ms per call',
      growPush < 1,
      fmt(growPush),
    ],
    [
      'fit once, 10k messages, 8k budget (ChatContext view): under 1 ms',
      fit10k.contextViewMs < 1,
      fmt(fit10k.contextViewMs),
    ],
    [
      'agent loop: per turn at the end within 2× of the start',
      late / early <= 2,
      `${(late / early).toFixed(2)}×`,
    ],
    [
      'agent loop: whole loop within 1.5× of tokenizing every message once',
      total / tokenizeOnce <= 1.5,
      `${(total / tokenizeOnce).toFixed(2)}×`,
    ],
    [
      'counting: at least 0.9× of raw countTokens throughput',
      raw / ourCount >= 0.9,
      `${(raw / ourCount).toFixed(2)}×`,
    ],
    [
      'memory: a 100k-message context holds at most 1.5× its JSON size on the heap',
      heap / json <= 1.5,
      `${(heap / json).toFixed(2)}× held (${(mem.growthBytes / json).toFixed(2)}× process heap growth)`,
    ],
    [
      'summaries: one summarizing() over 1,000 conversations holds no more after them than after 100 (+1 MB), saved state ≤ 2× the history',
      sums.growthAfterAllBytes <= sums.growthAfter100Bytes + 1e6 && sums.worstStateOverHistory <= 2,
      `${(sums.growthAfter100Bytes / 1e6).toFixed(2)} → ${(sums.growthAfterAllBytes / 1e6).toFixed(2)} MB, state ${sums.worstStateOverHistory.toFixed(2)}×`,
    ],
    [
      'agent default (ledger): one new turn over a 1,000-message agent history, counts cached: under 2 ms',
      agent.contextLedgerMs < 2 && agent.fitLedgerMs < 2,
      `${fmt(agent.contextLedgerMs)} (ChatContext), ${fmt(agent.fitLedgerMs)} (fit)`,
    ],
    [
      'agent default on τ-bench traffic: per call within 1.5× of `ledger: false` (a loop that waits on the model between calls)',
      trafficIdleCall <= 1.5,
      `${trafficIdleCall.toFixed(2)}× waiting between calls, ${trafficCall.toFixed(2)}× never waiting`,
    ],
    [
      'agent default with `stable: true` at 6,000 tokens: the prefix kept in ≥ 92% of calls, < 15% of the budget unused',
      stablePrefix >= 0.92 && stableUnused < 0.15,
      `${(stablePrefix * 100).toFixed(1)}%, ${(stableUnused * 100).toFixed(1)}% unused`,
    ],
    [
      'default on a growing chat without tool calls: within 1.2× of `ledger: false` at 1k, 10k and 100k messages',
      chatWorst <= 1.2,
      `${chatWorst.toFixed(2)}× at worst`,
    ],
    [
      'ChatContext per call does not grow with the history: at 200k messages within 1.5× of 1k (default and `ledger: true`)',
      scaleGrowth <= 1.5,
      `${scaleGrowth.toFixed(2)}× at most`,
    ],
    [
      'stable view with usage recorded after every call: the sent prefix kept in ≥ 85% of calls',
      usageShare >= 0.85,
      `${(usageShare * 100).toFixed(1)}% (${(share.none * 100).toFixed(1)}% without usage)`,
    ],
    [
      'size: browser bundle of fit + tokenLimited + OpenAI codec ≤ 30 KB gzipped, everything loaded at start',
      size.gzip <= 30 * 1024,
      `${(size.gzip / 1024).toFixed(1)} KB`,
    ],
    [
      "cold start, estimating: at most the AI SDK's pruneMessages",
      estimateVsAi <= 1,
      `${fmt(coldOf('estimate').medianMs)} vs ${fmt(coldOf('ai-sdk').medianMs)} (${estimateVsAi.toFixed(2)}×)`,
    ],
    [
      'cold start, exact: at most 0.6× LangChain trimMessages with gpt-tokenizer',
      exactVsLangChain <= 0.6,
      `${fmt(coldOf('exact').medianMs)} vs ${fmt(coldOf('langchain').medianMs)} (${exactVsLangChain.toFixed(2)}×)`,
    ],
    [
      'recall: a warm recall() over 100,000 messages within 20 ms',
      (recalled.warmMs as number) <= 20,
      fmt(recalled.warmMs as number),
    ],
    [
      'recall: a 250-word query within 2× a one-word query',
      (recalled.longRatio as number) <= 2,
      `${(recalled.longRatio as number).toFixed(2)}× (${fmt(recalled.longQueryMs as number)} vs ${fmt(recalled.warmMs as number)})`,
    ],
    [
      'recall: ChatContext#recall within 1.5× a warm recall()',
      (recalled.contextRatio as number) <= 1.5,
      `${(recalled.contextRatio as number).toFixed(2)}× (${fmt(recalled.contextMs as number)})`,
    ],
    [
      'recall: the first recall over a fresh 100,000-message array within 500 ms (messages read before, the index read whole)',
      (recalled.wholeFirstMs as number) <= 500,
      `${fmt(recalled.wholeFirstMs as number)} (${fmt(recalled.freshFirstMs as number)} behind a new system prompt; ${fmt(recalled.coldFirstMs as number)} when nothing read the messages before)`,
    ],
  ] as const
  console.log('## Targets\n')
  console.log('| target | met | measured |')
  console.log('| --- | --- | --- |')
  for (const [name, ok, got] of targets) console.log(`| ${name} | ${ok ? 'yes' : 'NO'} | ${got} |`)
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true })
  writeFileSync(
    new URL('./results/latest.json', import.meta.url),
    `${JSON.stringify({ env, rows, targets: targets.map(([name, met, measured]) => ({ name, met, measured })) }, null, 2)}\n`,
  )
  console.log('\nwritten: bench/results/latest.json, bench/results/latest.md')
  writeFileSync(new URL('./results/latest.md', import.meta.url), `${printed.join('\n')}\n`)
}

await main()

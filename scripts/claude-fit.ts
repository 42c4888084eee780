// Claude's counting fitted on Claude's own usage (test/data/tau2-claude), and its figures per
// conversation: shared by scripts/eval-counting.ts and src/tokens/claude-counting.test.ts.
// Each step between two agent calls is a row: what its messages add (by class of o200k piece,
// or by kind of text) against the growth of Claude's `usage.prompt_tokens`.
import { readFileSync } from 'node:fs'
import type { Message } from '../src/messages/message.js'
import type { TokenCounter } from '../src/tokens/counter.js'
import { type ClaudeCounting, measuredClaudeCounter } from '../src/tokens/counters.js'
import { textCounter } from '../src/tokens/encodings.js'
import { estimateText, type PiecePrices, pricePieces } from '../src/tokens/estimate-text.js'
import type { Step } from '../test/tau2-claude-steps.js'

/**
 * What is fitted: `classes` prices each class of o200k piece (the table-free default);
 * `kinds` weighs each kind of text counted in o200k pieces (the default before it); `o200k`
 * weighs each kind counted in exact o200k tokens (`base: 'o200k'`: load the table first).
 */
export type Form = 'classes' | 'kinds' | 'o200k'

export type Estimate = (messages: Message[]) => number
export const ofCounter =
  (c: TokenCounter): Estimate =>
  (ms) =>
    ms.reduce((n, m) => n + c.countMessage(m), 0)

export const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (s.length - 1) * q
  const lo = Math.floor(at)
  const hi = Math.ceil(at)
  return (s[lo] as number) + ((s[hi] as number) - (s[lo] as number)) * (at - lo)
}

export interface Figures {
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

/** `estimate(k)` counts conversation k's messages (a held-out estimate fitted without k). */
export function figures(conversations: Step[][], estimate: (k: number) => Estimate): Figures {
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

const CLASSES = ['word', 'digits', 'space', 'json', 'punctuation', 'nonAscii'] as const
const unit = (c: (typeof CLASSES)[number]): PiecePrices => ({
  word: 0,
  digits: 0,
  space: 0,
  json: 0,
  punctuation: 0,
  nonAscii: 0,
  [c]: 1,
})
const units = CLASSES.map(unit)

/**
 * Code, which the conversations hold none of: Claude counts code about 1.30 times what
 * GPT-4o's o200k counts (a published comparison of Claude 3.5 Sonnet and GPT-4o on the same
 * inputs: English articles +16%, mathematics +21%, Python code +30%; the airline text here
 * fits +16% too). The even-numbered files of test/data/code-sample (this project's own
 * TypeScript) are rows of the fit at that ratio, each weighed `CODE_WEIGHT` (its count is in
 * thousands of tokens, a step's in tens to hundreds); the odd-numbered ones are held out.
 */
export const CODE_RATIO = 1.3
const CODE_WEIGHT = 0.5

export interface CodeFile {
  path: string
  text: string
  /** The file's o200k count, stored so that the fit needs no table. */
  o200k: number
}

export function codeSample(): { fit: CodeFile[]; heldOut: CodeFile[] } {
  const files = JSON.parse(
    readFileSync(new URL('../test/data/code-sample/typescript.json', import.meta.url), 'utf8'),
  ) as CodeFile[]
  return {
    fit: files.filter((_, i) => i % 2 === 0),
    heldOut: files.filter((_, i) => i % 2 === 1),
  }
}

/** A code file's row: its units by class (no message, no tool call) against Claude's count. */
function codeRow(f: CodeFile): { x: number[]; y: number } {
  const u = units.map((p) => pricePieces(f.text, p))
  return {
    x: [...u.slice(0, 5), 0, 0].map((v) => v * CODE_WEIGHT),
    y: (CODE_RATIO * f.o200k - (u[5] as number)) * CODE_WEIGHT,
  }
}

/** Every text of a message the counter prices, with the kind it is weighed as. */
function texts(m: Message): [text: string, kind: 0 | 1 | 2][] {
  const body = typeof m.content === 'string' ? m.content : ''
  const out: [string, 0 | 1 | 2][] = [[body, m.role === 'tool' ? 2 : 0]]
  if (m.name) out.push([m.name, 0])
  if (m.role === 'assistant') {
    if (m.thought) out.push([m.thought, 0])
    for (const c of m.toolCalls ?? []) out.push([c.name, 1], [c.arguments, 1])
  }
  return out
}

/**
 * A message's row: the fitted columns, then what is priced before the fit (`fixed`). For
 * `classes`: the units of each class over every text, the role's included (then 1 per
 * message, the tool calls), and non-ASCII pieces fixed at 1 per unit: the data holds too few
 * (about 500 pieces, arrows and curly apostrophes) to price them. For `kinds` and `o200k`:
 * the count of each kind (text and thinking, tool calls, tool results), 1, the tool calls,
 * and the role's count fixed (the counter adds it unweighted).
 */
function row(form: Form, m: Message): { x: number[]; fixed: number } {
  const calls = m.role === 'assistant' ? (m.toolCalls?.length ?? 0) : 0
  if (form === 'classes') {
    const all = [m.role, ...texts(m).map(([t]) => t)]
    const u = units.map((p) => all.reduce((n, t) => n + pricePieces(t, p), 0))
    return { x: [...u.slice(0, 5), 1, calls], fixed: u[5] as number }
  }
  const count = form === 'o200k' ? textCounter('o200k_base') : estimateText
  const kinds = [0, 0, 0]
  for (const [t, kind] of texts(m)) kinds[kind] = (kinds[kind] as number) + count(t)
  return { x: [...kinds, 1, calls], fixed: count(m.role) }
}

const rows = { classes: new WeakMap(), kinds: new WeakMap(), o200k: new WeakMap() } as Record<
  Form,
  WeakMap<Message, { x: number[]; fixed: number }>
>

function sum(form: Form, ms: Message[]): { x: number[]; fixed: number } {
  const x = new Array<number>(form === 'classes' ? 7 : 5).fill(0)
  let fixed = 0
  for (const m of ms) {
    let r = rows[form].get(m)
    if (!r) {
      r = row(form, m)
      rows[form].set(m, r)
    }
    r.x.forEach((v, j) => {
      x[j] = (x[j] as number) + v
    })
    fixed += r.fixed
  }
  return { x, fixed }
}

/** Least squares with every weight kept at 0 or above (a weight fitted below 0 is dropped and the rest refitted). */
function nonNegativeFit(rows: number[][], ys: number[]): number[] {
  const d = rows[0]?.length ?? 0
  // A column that is 0 on every row (no class-5 piece, say) is left out: it has no weight to fit.
  const active = new Set(
    Array.from({ length: d }, (_, j) => j).filter((j) => rows.some((r) => r[j] !== 0)),
  )
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
 * Claude's counting fitted on `conversations`: least squares on the steps, then every price
 * scaled so that the `q` quantile of the conversations it was fitted on (default: the lowest)
 * is counted at `floor` times what Claude counted.
 */
export function fitClaude(
  conversations: Step[][],
  form: Form = 'classes',
  floor = 1,
  q = 0,
): ClaudeCounting {
  const xs: number[][] = []
  const ys: number[] = []
  for (const steps of conversations)
    for (const s of steps) {
      const after = sum(form, s.after)
      const before = sum(form, s.before)
      xs.push(after.x.map((v, j) => v - (before.x[j] as number)))
      ys.push(s.actual - after.fixed + before.fixed)
    }
  if (form === 'classes')
    for (const f of codeSample().fit) {
      const { x, y } = codeRow(f)
      xs.push(x)
      ys.push(y)
    }
  const w = nonNegativeFit(xs, ys)
  // The fitted columns, then 1 per message and the tool calls.
  const d = w.length
  const at = (
    scale: number,
    round = (x: number) => Math.round(x * 1000) / 1000,
  ): ClaudeCounting => {
    const r = (j: number) => round((w[j] as number) * scale)
    const overhead = { perMessage: r(d - 2), perToolCall: r(d - 1) }
    if (form !== 'classes')
      return {
        text: r(0),
        call: r(1),
        result: r(2),
        ...overhead,
        ...(form === 'o200k' && { base: 'o200k' as const }),
      }
    const pieces = {
      word: r(0),
      digits: r(1),
      space: r(2),
      json: r(3),
      punctuation: r(4),
      nonAscii: round(scale),
    }
    return { text: 1, call: 1, result: 1, ...overhead, pieces }
  }
  const e = ofCounter(measuredClaudeCounter(at(1, (x) => x)))
  const ratios = conversations.map(
    (steps) =>
      steps.reduce((n, s) => n + e(s.after) - e(s.before), 0) /
      steps.reduce((n, s) => n + s.actual, 0),
  )
  return at(floor / quantile(ratios, q))
}

/** For each conversation, the estimate fitted on all the others. */
export function heldOut(conversations: Step[][], form: Form, floor = 1, q = 0): Estimate[] {
  return conversations.map((_, k) =>
    ofCounter(
      measuredClaudeCounter(
        fitClaude(
          conversations.filter((_, j) => j !== k),
          form,
          floor,
          q,
        ),
      ),
    ),
  )
}

// Recall asked in the conversation's own language: Chinese, Japanese, Thai, Korean and German
// travel-desk conversations (scripts/eval-recall-multilingual-data.ts, written for this
// evaluation). Each conversation states twenty facts among ten turns of chatter, each turn
// answered by the agent, in one of three orders. A case is a fact and the question asked
// about it later: the history up to the question is fitted at 10% of its tokens (plus the
// recall tool's definition), and the case counts when the fact's message is sent, or is
// returned by one recall of the question's text (as a model would pass it on) with
// `maxMessages: 1` (top 1) or `3` (top 3).
//
// Held out: the facts at odd positions are the test half, run only for the figure
// reported; the even half (dev) is what the evaluation and any change to recall were made
// on. A fact pair shares its topic's words (two hotels, two flights): the halves split them,
// so a test fact's neighbour is a dev fact, and ranking, not matching, decides.
//
// npm run eval:recall-multilingual [-- --split test|dev|all] [--budget 0.1] [--json]
import '../src/tokens/node-encodings.js'
import { parseArgs } from 'node:util'
import { fit } from '../src/context/fit.js'
import { recallFrom } from '../src/context/recall.js'
import type { Message } from '../src/messages/message.js'
import { checkRecallOptions, recallToolTokens } from '../src/recall/definition.js'
import { exactCounter } from '../src/tokens/counters.js'
import { LANGUAGES, type Language } from './eval-recall-multilingual-data.js'

const counter = exactCounter()
const TOOL = recallToolTokens(counter)
/** The orders each language's turns are told in. */
const ORDERS = [1, 2, 3]

export type Split = 'dev' | 'test' | 'all'

/** Whether fact `i` is in `split` (odd positions are held out). */
export const inSplit = (i: number, split: Split) =>
  split === 'all' || (split === 'test' ? i % 2 === 1 : i % 2 === 0)

/** A fixed shuffle (a linear congruential generator seeded by `seed`). */
function shuffled<T>(list: readonly T[], seed: number): T[] {
  const out = [...list]
  let s = seed * 2654435761
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    const j = s % (i + 1)
    ;[out[i], out[j]] = [out[j] as T, out[i] as T]
  }
  return out
}

/** One conversation: the system prompt, then each turn (a fact or chatter) and the agent's reply; where each fact is. */
export function conversation(lang: Language, seed: number): { history: Message[]; at: number[] } {
  const turns = shuffled(
    [
      ...lang.facts.map((text, i) => ({ text, fact: i })),
      ...lang.chatter.map((text) => ({ text, fact: -1 })),
    ],
    seed,
  )
  const history: Message[] = [{ role: 'system', content: 'You are a travel desk agent.' }]
  const at = new Array<number>(lang.facts.length).fill(-1)
  turns.forEach((t, k) => {
    if (t.fact >= 0) at[t.fact] = history.length
    history.push({ role: 'user', content: t.text })
    history.push({
      role: 'assistant',
      content: lang.replies[k % lang.replies.length] as string,
    })
  })
  return { history, at }
}

export interface Row {
  language: string
  cases: number
  /** Share of cases whose fact was sent. */
  sent: number
  /** Sent, or returned first by one recall (maxMessages 1). */
  top1: number
  /** Sent, or among three returned (maxMessages 3). */
  top3: number
}

/** The figures for one language (or all, `lang` undefined) on `split`. */
export function evaluate(split: Split, budget = 0.1, langs = LANGUAGES): Row[] {
  const rows: Row[] = []
  const one = checkRecallOptions({ maxTokens: 3000, maxMessages: 1 })
  const three = checkRecallOptions({ maxTokens: 3000, maxMessages: 3 })
  const total = { language: 'all', cases: 0, sent: 0, top1: 0, top3: 0 }
  for (const lang of langs) {
    const row = { language: lang.name, cases: 0, sent: 0, top1: 0, top3: 0 }
    for (const seed of ORDERS) {
      const { history, at } = conversation(lang, seed)
      lang.questions.forEach((question, i) => {
        if (!inSplit(i, split)) return
        const h: Message[] = [...history, { role: 'user', content: question }]
        const r = fit(h, {
          budget: Math.max(1, Math.round(counter.countMessages(h) * budget)) + TOOL,
          counter,
          recall: true,
        })
        const target = at[i] as number
        const sent = r.kept.includes(target)
        const first = recallFrom(h, r, { query: question }, counter, one)
        const best = recallFrom(h, r, { query: question }, counter, three)
        row.cases++
        if (sent) row.sent++
        if (sent || first.messages.includes(target)) row.top1++
        if (sent || best.messages.includes(target)) row.top3++
      })
    }
    for (const k of ['cases', 'sent', 'top1', 'top3'] as const) total[k] += row[k]
    rows.push({
      ...row,
      sent: row.sent / row.cases,
      top1: row.top1 / row.cases,
      top3: row.top3 / row.cases,
    })
  }
  rows.push({
    ...total,
    sent: total.sent / total.cases,
    top1: total.top1 / total.cases,
    top3: total.top3 / total.cases,
  })
  return rows
}

function main(): void {
  const { values } = parseArgs({
    options: { split: { type: 'string' }, budget: { type: 'string' }, json: { type: 'boolean' } },
  })
  const split = (values.split ?? 'test') as Split
  const budget = Number(values.budget ?? 0.1)
  if (!['dev', 'test', 'all'].includes(split) || !(budget > 0 && budget <= 1)) {
    process.stderr.write(
      'eval-recall-multilingual: --split dev|test|all; --budget a fraction in (0, 1]\n',
    )
    process.exit(2)
  }
  const rows = evaluate(split, budget)
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ split, budget, rows }, null, 2)}\n`)
    return
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  process.stdout.write(
    `split ${split}, budget ${pct(budget)} (+ ${TOOL} tokens for the recall tool's definition)\n\n| language | cases | sent | sent or recalled first | sent or recalled in 3 |\n| --- | --- | --- | --- | --- |\n`,
  )
  for (const r of rows)
    process.stdout.write(
      `| ${r.language} | ${r.cases} | ${pct(r.sent)} | ${pct(r.top1)} | ${pct(r.top3)} |\n`,
    )
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) main()

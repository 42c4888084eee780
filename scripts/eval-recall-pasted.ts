// A model pasting the user's message as its recall query, over a long agent history: does
// the search find the message pasted, with the query's commonest words left unread past
// `QUERY_POSTINGS` and with every word read? τ-bench trajectories one after another (the
// system prompt once) to `--messages`, fitted to 8,000 tokens with the recall tool; the
// queries are 200 user messages of 20 words or more, taken at even steps, each searched for
// over what the fit left out. The bound was set before this was run (2^16), not on it.
//
// npx tsx scripts/eval-recall-pasted.ts [-- --messages 100000] [--json]
import '../src/tokens/node-encodings.js'
import { parseArgs } from 'node:util'
import { fit } from '../src/context/fit.js'
import { contentText, type Message } from '../src/messages/message.js'
import { fromOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { LeftOut } from '../src/recall/left-out.js'
import { recallIndexOf } from '../src/recall/recall-index.js'
import { search } from '../src/recall/search.js'
import { tauBench } from '../test/tau-bench.js'

/** τ-bench trajectories one after another, the system prompt once, `n` messages ending on a user turn. */
export function agentTraffic(n: number): Message[] {
  const records = tauBench()
  const out: Message[] = [fromOpenAIChat(records[0]?.traj ?? [])[0] as Message]
  const body = records.flatMap((r) => fromOpenAIChat(r.traj).slice(1))
  while (out.length < n) for (const m of body) if (out.length < n) out.push(structuredClone(m))
  while (out.length > 1 && out[out.length - 1]?.role !== 'user') out.pop()
  return out
}

export interface PastedRow {
  messages: number
  queries: number
  /** The message pasted (or one of the same text left out) first, and among the first 16. */
  boundedFirst: number
  boundedIn16: number
  wholeFirst: number
  wholeIn16: number
}

export function pasted(n: number, queries = 200): PastedRow {
  const h = agentTraffic(n)
  const result = fit(h, { budget: 8_000, recall: true })
  const index = recallIndexOf(h)
  const left = new LeftOut(index, h.length, result.kept, index.systems)
  const texts = h.map((m) => contentText(m.content))
  const long = h.flatMap((m, i) =>
    m.role === 'user' && left.has(i) && (texts[i] as string).split(/\s+/).length >= 20 ? [i] : [],
  )
  const step = Math.max(1, Math.floor(long.length / queries))
  const row = {
    messages: h.length,
    queries: 0,
    boundedFirst: 0,
    boundedIn16: 0,
    wholeFirst: 0,
    wholeIn16: 0,
  }
  for (let k = 0; k < long.length && row.queries < queries; k += step) {
    const q = texts[long[k] as number] as string
    const same = (i: number | undefined) =>
      i !== undefined && texts[i] === q && h[i]?.role === 'user'
    const bounded = search(index, left, q, 16)
    const whole = search(index, left, q, 16, Number.POSITIVE_INFINITY)
    row.queries++
    if (same(bounded[0])) row.boundedFirst++
    if (bounded.some(same)) row.boundedIn16++
    if (same(whole[0])) row.wholeFirst++
    if (whole.some(same)) row.wholeIn16++
  }
  return row
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { messages: { type: 'string', default: '100000' }, json: { type: 'boolean' } },
  })
  const row = pasted(Number(values.messages))
  if (values.json) console.log(JSON.stringify(row))
  else {
    const pct = (x: number) => `${((100 * x) / row.queries).toFixed(1)}%`
    console.log(`${row.messages} messages, ${row.queries} pasted user messages as queries`)
    console.log(`| search | first | in 16 |`)
    console.log(`| --- | --- | --- |`)
    console.log(
      `| commonest words unread past 65,536 postings | ${pct(row.boundedFirst)} | ${pct(row.boundedIn16)} |`,
    )
    console.log(`| every word read | ${pct(row.wholeFirst)} | ${pct(row.wholeIn16)} |`)
  }
}

// A model pasting the user's message as its recall query, over a long agent history: does
// the search find the message pasted, with the query's commonest words left unread past
// `QUERY_POSTINGS` and with every word read? τ-bench trajectories one after another (the
// system prompt once) to `--messages`, fitted to 8,000 tokens with the recall tool; the
// queries are 200 user messages of 20 words or more, taken at even steps, each searched for
// over what the fit left out.
//
// The bound is chosen on half the trajectories and measured on the other half (`--held-out`):
// for each half, the bound among `BOUNDS` that finds the pasted message among the first 16
// most often (ties to the larger bound: it reads more) is measured on the traffic of the
// other half's trajectories.
//
// npx tsx scripts/eval-recall-pasted.ts [-- --messages 100000] [--held-out] [--json]
import '../src/tokens/node-encodings.js'
import { parseArgs } from 'node:util'
import { fit } from '../src/context/fit.js'
import { contentText, type Message } from '../src/messages/message.js'
import { fromOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { LeftOut } from '../src/recall/left-out.js'
import { recallIndexOf } from '../src/recall/recall-index.js'
import { QUERY_POSTINGS, search } from '../src/recall/search.js'
import { tauBench } from '../test/tau-bench.js'

/** τ-bench trajectories one after another, the system prompt once, `n` messages ending on a user turn. */
export function agentTraffic(n: number, records = tauBench()): Message[] {
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

export function pasted(
  n: number,
  queries = 200,
  records = tauBench(),
  bound = QUERY_POSTINGS,
): PastedRow {
  return pastedAt(n, queries, records, [bound])[0] as PastedRow
}

/** `pasted` at each of `bounds`, over one traffic, fit and index. */
export function pastedAt(
  n: number,
  queries: number,
  records: ReturnType<typeof tauBench>,
  bounds: readonly number[],
): PastedRow[] {
  const h = agentTraffic(n, records)
  const result = fit(h, { budget: 8_000, recall: true })
  const index = recallIndexOf(h)
  const left = new LeftOut(index, h.length, result.kept, index.systems)
  const texts = h.map((m) => contentText(m.content))
  const long = h.flatMap((m, i) =>
    m.role === 'user' && left.has(i) && (texts[i] as string).split(/\s+/).length >= 20 ? [i] : [],
  )
  const step = Math.max(1, Math.floor(long.length / queries))
  const rows = bounds.map(() => ({
    messages: h.length,
    queries: 0,
    boundedFirst: 0,
    boundedIn16: 0,
    wholeFirst: 0,
    wholeIn16: 0,
  }))
  for (let k = 0; k < long.length && (rows[0] as PastedRow).queries < queries; k += step) {
    const q = texts[long[k] as number] as string
    const same = (i: number | undefined) =>
      i !== undefined && texts[i] === q && h[i]?.role === 'user'
    const whole = search(index, left, q, 16, Number.POSITIVE_INFINITY)
    bounds.forEach((bound, b) => {
      const row = rows[b] as PastedRow
      const bounded = search(index, left, q, 16, bound)
      row.queries++
      if (same(bounded[0])) row.boundedFirst++
      if (bounded.some(same)) row.boundedIn16++
      if (same(whole[0])) row.wholeFirst++
      if (whole.some(same)) row.wholeIn16++
    })
  }
  return rows
}

/** The bounds the held-out choice is made among. */
export const BOUNDS = [1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16]

export interface HeldOutRow {
  /** The half the bound was chosen on (`even` or `odd` trajectories) and the bound chosen. */
  chosenOn: 'even' | 'odd'
  bound: number
  /** The other half at the bound chosen, and at the shipped bound (`QUERY_POSTINGS`). */
  chosen: PastedRow
  shipped: PastedRow
  /** The other half at the largest bound of `BOUNDS` (the most read within a bound). */
  most: PastedRow
}

/**
 * The bound chosen on each half of the trajectories (even and odd), measured on the other:
 * `queries` pasted messages over `n` messages of each half's traffic.
 */
export function heldOut(n: number, queries = 200): HeldOutRow[] {
  const records = tauBench()
  const halves = {
    even: records.filter((_, k) => k % 2 === 0),
    odd: records.filter((_, k) => k % 2 === 1),
  }
  const rows = {
    even: pastedAt(n, queries, halves.even, [...BOUNDS, QUERY_POSTINGS]),
    odd: pastedAt(n, queries, halves.odd, [...BOUNDS, QUERY_POSTINGS]),
  }
  return (['even', 'odd'] as const).map((on) => {
    const mine = rows[on]
    const other = rows[on === 'even' ? 'odd' : 'even']
    let at = 0
    for (let b = 0; b < BOUNDS.length; b++)
      if ((mine[b] as PastedRow).boundedIn16 >= (mine[at] as PastedRow).boundedIn16) at = b
    return {
      chosenOn: on,
      bound: BOUNDS[at] as number,
      chosen: other[at] as PastedRow,
      shipped: other[BOUNDS.length] as PastedRow,
      most: other[BOUNDS.length - 1] as PastedRow,
    }
  })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      messages: { type: 'string', default: '100000' },
      json: { type: 'boolean' },
      'held-out': { type: 'boolean' },
    },
  })
  if (values['held-out']) {
    const rows = heldOut(Number(values.messages))
    if (values.json) console.log(JSON.stringify(rows))
    else {
      const pct = (r: PastedRow) => `${((100 * r.boundedIn16) / r.queries).toFixed(1)}%`
      const most = (BOUNDS.at(-1) as number).toLocaleString('en')
      console.log(
        `| chosen on | bound | the other half, in 16: at the bound chosen | at ${QUERY_POSTINGS.toLocaleString('en')} | at ${most} |`,
      )
      console.log('| --- | --- | --- | --- | --- |')
      for (const r of rows)
        console.log(
          `| ${r.chosenOn} trajectories | ${r.bound.toLocaleString('en')} | ${pct(r.chosen)} | ${pct(r.shipped)} | ${pct(r.most)} |`,
        )
    }
    process.exit(0)
  }
  const row = pasted(Number(values.messages))
  if (values.json) console.log(JSON.stringify(row))
  else {
    const pct = (x: number) => `${((100 * x) / row.queries).toFixed(1)}%`
    console.log(`${row.messages} messages, ${row.queries} pasted user messages as queries`)
    console.log(`| search | first | in 16 |`)
    console.log(`| --- | --- | --- |`)
    console.log(
      `| commonest words unread past ${QUERY_POSTINGS.toLocaleString('en')} postings | ${pct(row.boundedFirst)} | ${pct(row.boundedIn16)} |`,
    )
    console.log(`| every word read | ${pct(row.wholeFirst)} | ${pct(row.wholeIn16)} |`)
  }
}

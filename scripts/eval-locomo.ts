// Evidence recall of each strategy on LoCoMo-format data.
// npm run eval:locomo [-- --data PATH (default: the bundled LoCoMo dev file)] [--budgets 0.1,0.25,0.5] [--json]
import { parseArgs } from 'node:util'
import { fit } from '../src/context/fit.js'
import { ContextOverflowError } from '../src/errors.js'
import type { Message } from '../src/messages/message.js'
import { mostRelevant, scoreBased } from '../src/strategies/score-based.js'
import { recency, relevance } from '../src/strategies/scorers.js'
import { tokenLimited } from '../src/strategies/token-limited.js'
import type { Strategy } from '../src/strategies/types.js'
import { exactCounter } from '../src/tokens/counters.js'
import { LOCOMO_DEV_PATH, readLocomo } from '../test/locomo-data.js'
import { type LocomoSample, locomoChat, normaliseEvidence } from './locomo.js'

const STRATEGIES: Record<string, (query: string) => Strategy> = {
  tokenLimited: () => tokenLimited(),
  'scoreBased+recency': () => scoreBased({ scorer: recency({ keepRate: 0.9 }) }),
  'scoreBased+relevance': (query) => scoreBased({ scorer: relevance({ query }) }),
  relevance: (query) => mostRelevant({ query }),
}

const CATEGORIES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
}

export interface Row {
  strategy: string
  budget: number
  questions: number
  recall: number
  byCategory: Record<string, { questions: number; recall: number }>
}

export function evaluate(
  samples: LocomoSample[],
  budgets: number[],
  names = Object.keys(STRATEGIES),
): Row[] {
  const counter = exactCounter()
  const hits = new Map<
    string,
    { n: number; hit: number; cat: Map<string, { n: number; hit: number }> }
  >()
  for (const sample of samples) {
    const { messages, diaIds } = locomoChat(sample)
    const where = new Map<string, number>()
    diaIds.forEach((d, i) => {
      if (d) where.set(normaliseEvidence([d])[0] ?? d, i)
    })
    const total = counter.countMessages(messages)
    for (const qa of sample.qa) {
      const evidence = normaliseEvidence(qa.evidence)
        .map((e) => where.get(e))
        .filter((i): i is number => i !== undefined)
      if (evidence.length === 0) continue
      const question: Message = { role: 'user', content: qa.question }
      const history = [...messages, question]
      for (const fraction of budgets) {
        const budget = Math.max(1, Math.round(total * fraction))
        for (const name of names) {
          const key = `${name}@${fraction}`
          const h = hits.get(key) ?? { n: 0, hit: 0, cat: new Map() }
          hits.set(key, h)
          let kept: Set<number>
          try {
            kept = new Set(
              fit(history, { strategy: STRATEGIES[name]?.(qa.question), budget, counter }).kept,
            )
          } catch (e) {
            if (!(e instanceof ContextOverflowError)) throw e
            kept = new Set()
          }
          const ok = evidence.every((i) => kept.has(i)) ? 1 : 0
          const cat = CATEGORIES[qa.category] ?? String(qa.category)
          const c = h.cat.get(cat) ?? { n: 0, hit: 0 }
          h.cat.set(cat, c)
          h.n++
          h.hit += ok
          c.n++
          c.hit += ok
        }
      }
    }
  }
  const rows: Row[] = []
  for (const fraction of budgets) {
    for (const name of names) {
      const h = hits.get(`${name}@${fraction}`)
      if (!h) continue
      const byCategory: Row['byCategory'] = {}
      for (const [cat, c] of [...h.cat].sort())
        byCategory[cat] = { questions: c.n, recall: c.hit / c.n }
      rows.push({
        strategy: name,
        budget: fraction,
        questions: h.n,
        recall: h.hit / h.n,
        byCategory,
      })
    }
  }
  return rows
}

/** Median time of one fit for one question over the longest conversation. */
export function timeOneFit(
  samples: LocomoSample[],
  runs = 30,
): { turns: number; medianMs: number } {
  const longest = samples.map(locomoChat).sort((a, b) => b.messages.length - a.messages.length)[0]
  if (!longest) return { turns: 0, medianMs: 0 }
  const counter = exactCounter()
  const history = [
    ...longest.messages,
    { role: 'user', content: 'When did they go to the museum?' } as Message,
  ]
  const budget = Math.round(counter.countMessages(history) * 0.25)
  fit(history, { strategy: 'mostRelevant', budget, counter })
  const times: number[] = []
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now()
    fit(history, { strategy: 'mostRelevant', budget, counter })
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return { turns: longest.messages.length - 1, medianMs: times[Math.floor(runs / 2)] as number }
}

function main(): void {
  const { values } = parseArgs({
    options: { data: { type: 'string' }, budgets: { type: 'string' }, json: { type: 'boolean' } },
  })
  const budgets = (values.budgets ?? '0.1,0.25,0.5').split(',').map(Number)
  if (budgets.some((b) => !(b > 0 && b <= 1))) {
    process.stderr.write('eval-locomo: --budgets takes fractions in (0, 1], e.g. 0.1,0.25\n')
    process.exit(2)
  }
  const data = values.data ?? LOCOMO_DEV_PATH
  const samples = readLocomo(data) as LocomoSample[]
  const rows = evaluate(samples, budgets)
  const timing = timeOneFit(samples)
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ data, rows, timing }, null, 2)}\n`)
    return
  }
  const cats = [...new Set(rows.flatMap((r) => Object.keys(r.byCategory)))]
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  const header = ['budget', 'strategy', 'questions', 'recall', ...cats]
  const lines = [
    header,
    ...rows.map((r) => [
      pct(r.budget),
      r.strategy,
      String(r.questions),
      pct(r.recall),
      ...cats.map((c) => (r.byCategory[c] ? pct(r.byCategory[c].recall) : '-')),
    ]),
  ]
  process.stdout.write(`| ${lines[0]?.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |\n`)
  for (const l of lines.slice(1)) process.stdout.write(`| ${l.join(' | ')} |\n`)
  process.stdout.write(
    `\nfit for one question over a ${timing.turns}-turn conversation (relevance, 25% budget): median ${timing.medianMs.toFixed(2)} ms\n`,
  )
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) main()

// Evidence recall of each strategy on LoCoMo-format data: pooled, and leave-one-conversation-out.
// npm run eval:locomo [-- --data PATH (default: the bundled LoCoMo dev file)] [--budgets 0.1,0.25,0.5]
//                        [--strategies relevance,tokenLimited] [--ideas (the ideas measured on the way)] [--json]
//                        [--only conv-26,conv-30 (those conversations only)]
//                        [--misses (why relevance's shipped setting misses, by category and reason)]
import '../src/tokens/node-encodings.js'
import { parseArgs } from 'node:util'
import { fit } from '../src/context/fit.js'
import { ContextOverflowError } from '../src/errors.js'
import type { Message } from '../src/messages/message.js'
import { cooccurring } from '../src/strategies/cooccurring.js'
import { dates } from '../src/strategies/dates.js'
import { mostRelevant, relevanceScorer } from '../src/strategies/most-relevant.js'
import { entities, identifiers, speakerNews } from '../src/strategies/named-scorers.js'
import { nearby } from '../src/strategies/nearby.js'
import { scoreBased } from '../src/strategies/score-based.js'
import { combine, recency, relevance, type Scorer } from '../src/strategies/scorers.js'
import { tokenLimited } from '../src/strategies/token-limited.js'
import type { Strategy } from '../src/strategies/types.js'
import { exactCounter } from '../src/tokens/counters.js'
import { LOCOMO_DEV_PATH, readLocomo } from '../test/locomo-data.js'
import { type LocomoChat, type LocomoSample, locomoChat, normaliseEvidence } from './locomo.js'
import { misses, missTable } from './locomo-misses.js'
import { hashedNgrams } from './ngram-embed.js'

/**
 * A strategy with the settings it may be tuned over. `settings[0]` is the shipped default,
 * reported pooled; held out, each fold uses the setting best on the other conversations.
 */
export interface Family {
  settings: Record<string, (query: string) => Strategy>
  /** How each conversation becomes a chat; default `locomoChat(sample)`. */
  chat?: (sample: LocomoSample) => LocomoChat
}

const ngrams = hashedNgrams(512)

export const FAMILIES: Record<string, Family> = {
  tokenLimited: { settings: { default: () => tokenLimited() } },
  'scoreBased+recency': {
    settings: { 'keepRate 0.9': () => scoreBased({ scorer: recency({ keepRate: 0.9 }) }) },
  },
  'scoreBased+bm25': {
    settings: { plain: (query) => scoreBased({ scorer: relevance({ query }) }) },
  },
  'bm25+feedback': {
    settings: Object.fromEntries(
      [0.3, 0.15, 0.5].map((weight) => [
        `feedback ${weight}`,
        (query: string) => scoreBased({ scorer: relevance({ query, feedback: { weight } }) }),
      ]),
    ),
  },
  relevance: {
    // The shipped default first; held out, each fold may move one part's setting.
    settings: Object.fromEntries(
      (
        [
          [
            {},
            'default (next 0.5, nearby 0.2, speaker turns 0.02, dates 0.2, names 0.2, co-occurring 0)',
          ],
          [{ nearby: { next: 0.25, weight: 0.2 } }, 'next 0.25'],
          [{ nearby: { next: 1, weight: 0.2 } }, 'next 1'],
          [{ nearby: { next: 0.5, weight: 0.1 } }, 'nearby 0.1'],
          [{ nearby: { next: 0.5, weight: 0.3 } }, 'nearby 0.3'],
          [{ dates: 0 }, 'dates 0'],
          [{ dates: 0.5 }, 'dates 0.5'],
          [{ cooccurring: 0.1 }, 'co-occurring 0.1'],
          [{ cooccurring: 0.3 }, 'co-occurring 0.3'],
          [{ speakerTurns: 0 }, 'speaker turns 0'],
          [{ speakerTurns: 0.05 }, 'speaker turns 0.05'],
        ] as const
      ).map(([o, label]) => [label, (query: string) => mostRelevant({ query, ...o })]),
    ),
  },
  'relevance+ngrams': {
    settings: { 'rrf k 60': (query) => mostRelevant({ query, embed: ngrams }) },
  },
}

/** Value per token: each unit's score divided by its tokens to the power `alpha`. */
const perToken =
  (scorer: Scorer, alpha: number): Scorer =>
  (view) => {
    const s = scorer(view)
    return s.map((x, u) => x / Math.max(1, view.unitSize(u)) ** alpha)
  }

const grid = <T>(
  values: readonly T[],
  label: (v: T) => string,
  make: (v: T, query: string) => Strategy,
) => Object.fromEntries(values.map((v) => [label(v), (query: string) => make(v, query)]))

/** The ideas measured on the way to `relevance`, one change each against BM25 (`--ideas`). */
export const IDEAS: Record<string, Family> = {
  'bm25 + next turn': {
    settings: grid(
      [0.5, 0.25, 1],
      (v) => `next ${v}`,
      (next, query) => mostRelevant({ query, identifiers: 0, nearby: { next, weight: 0 } }),
    ),
  },
  'bm25 + window': {
    settings: grid(
      [0.2, 0.1, 0.3],
      (v) => `nearby ${v}`,
      (weight, query) => mostRelevant({ query, identifiers: 0, nearby: { next: 0, weight } }),
    ),
  },
  'bm25 + next turn + window': {
    settings: { default: (query) => mostRelevant({ query, identifiers: 0 }) },
  },
  'relevance with dates on every turn': {
    settings: { default: (query) => mostRelevant({ query }) },
    chat: (sample) => locomoChat(sample, { dates: 'every' }),
  },
  'relevance with speaker in name': {
    settings: { default: (query) => mostRelevant({ query }) },
    chat: (sample) => locomoChat(sample, { speaker: 'name' }),
  },
  'relevance + feedback': {
    settings: grid(
      [0.15, 0.3],
      (v) => `feedback ${v}`,
      (weight, query) =>
        scoreBased({
          scorer: combine([
            [nearby(relevance({ query, feedback: { weight } })), 1],
            [identifiers(), 0.5],
          ]),
        }),
    ),
  },
  'relevance per token': {
    settings: grid(
      [0.2, 0.5],
      (v) => `alpha ${v}`,
      (alpha, query) => scoreBased({ scorer: perToken(relevanceScorer({ query }), alpha) }),
    ),
  },
  'relevance without speaker news': {
    settings: { default: (query) => mostRelevant({ query, speakers: 0 }) },
  },
  'relevance with speaker news weight': {
    settings: grid(
      [0.05, 0.1, 0.2],
      (v) => `speakers ${v}`,
      (speakers, query) => mostRelevant({ query, speakers }),
    ),
  },
  'relevance without dates': {
    settings: { default: (query) => mostRelevant({ query, dates: 0 }) },
  },
  'relevance with dates weight': {
    settings: grid(
      [0.2, 0.1, 0.5],
      (v) => `dates ${v}`,
      (dates, query) => mostRelevant({ query, dates }),
    ),
  },
  'relevance without names asked': {
    settings: { default: (query) => mostRelevant({ query, names: 0 }) },
  },
  'relevance with names asked weight': {
    settings: grid(
      [0.2, 0, 0.1, 0.3, 0.5],
      (v) => `names ${v}`,
      (names, query) => mostRelevant({ query, names }),
    ),
  },
  'relevance without co-occurring words': {
    settings: { default: (query) => mostRelevant({ query, cooccurring: 0 }) },
  },
  'relevance with co-occurring words': {
    settings: Object.fromEntries(
      [20, 10, 5].flatMap((terms) =>
        [0, 1].flatMap((window) =>
          [0.1, 0.3].map((w) => [
            `terms ${terms}, window ${window}, weight ${w}`,
            (query: string) =>
              scoreBased({
                scorer: combine([
                  [relevanceScorer({ query, cooccurring: 0 }), 1],
                  [cooccurring({ query, terms, window }), w],
                ]),
              }),
          ]),
        ),
      ),
    ),
  },
  'relevance with bm25 k1 and b': {
    settings: Object.fromEntries(
      [1.2, 0.8, 2].flatMap((k1) =>
        [0.75, 0.5, 0.3, 0.9].map((b) => [
          `k1 ${k1}, b ${b}`,
          (query: string) =>
            scoreBased({
              scorer: combine([
                [nearby(relevance({ query, k1, b })), 1],
                [identifiers(), 0.5],
                [entities(), 1],
                [speakerNews({ query }), 0.05],
                [dates({ query }), 0.2],
                [cooccurring({ query }), 0.1],
              ]),
            }),
        ]),
      ),
    ),
  },
  'relevance without speaker turns': {
    settings: { default: (query) => mostRelevant({ query, speakerTurns: 0 }) },
  },
  'relevance with speaker turns weight': {
    settings: grid(
      [0.02, 0.01, 0.05, 0.1],
      (v) => `speaker turns ${v}`,
      (speakerTurns, query) => mostRelevant({ query, speakerTurns }),
    ),
  },
  'relevance + recency': {
    settings: grid(
      [0.05, 0.1, 0.3],
      (v) => `recency ${v}`,
      (w, query) =>
        scoreBased({
          scorer: combine([
            [relevanceScorer({ query }), 1],
            [recency(), w],
          ]),
        }),
    ),
  },
}

export const CATEGORIES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
}

interface Question {
  conversation: string
  category: string
}

export interface Recall {
  questions: number
  recall: number
}

export interface Row extends Recall {
  strategy: string
  budget: number
  /** Recall with the shipped setting over every conversation. */
  pooled: Recall & { byCategory: Record<string, Recall> }
  /** Each conversation scored with the setting best on the others, pooled over the folds. */
  heldOut: Recall & {
    byCategory: Record<string, Recall>
    byConversation: Record<string, Recall>
    /** Held-out conversation -> the setting chosen on the others. */
    chosen: Record<string, string>
  }
}

/** Whether each question keeps all its evidence, per setting and budget: `hits[setting][budget][question]`. */
function measure(
  samples: readonly LocomoSample[],
  budgets: readonly number[],
  family: Family,
  questions: Question[],
): Map<string, Uint8Array[]> {
  const counter = exactCounter()
  const hits = new Map<string, Uint8Array[]>()
  const names = Object.keys(family.settings)
  for (const name of names)
    hits.set(
      name,
      budgets.map(() => new Uint8Array(0)),
    )
  const collected: number[][][] = names.map(() => budgets.map(() => []))
  for (const sample of samples) {
    const { messages, diaIds } = (family.chat ?? locomoChat)(sample)
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
      questions.push({
        conversation: sample.sample_id,
        category: CATEGORIES[qa.category] ?? String(qa.category),
      })
      const question: Message = { role: 'user', content: qa.question }
      const history = [...messages, question]
      budgets.forEach((fraction, b) => {
        const budget = Math.max(1, Math.round(total * fraction))
        names.forEach((name, s) => {
          let kept: Set<number>
          try {
            const strategy = family.settings[name]?.(qa.question) as Strategy
            kept = new Set(fit(history, { strategy, budget, counter }).kept)
          } catch (e) {
            if (!(e instanceof ContextOverflowError)) throw e
            kept = new Set()
          }
          collected[s]?.[b]?.push(evidence.every((i) => kept.has(i)) ? 1 : 0)
        })
      })
    }
  }
  names.forEach((name, s) => {
    hits.set(
      name,
      budgets.map((_, b) => Uint8Array.from(collected[s]?.[b] ?? [])),
    )
  })
  return hits
}

function recallOf(hits: Uint8Array, keep: (q: number) => boolean): Recall {
  let n = 0
  let h = 0
  for (let q = 0; q < hits.length; q++) {
    if (!keep(q)) continue
    n++
    h += hits[q] as number
  }
  return { questions: n, recall: n ? h / n : 0 }
}

/**
 * Recall per strategy and budget: pooled with each strategy's shipped setting, and held out
 * (for each conversation, the setting with the most hits on the other conversations, summed
 * over every budget, ties to the shipped one; recall pooled over the folds).
 */
export function evaluate(
  samples: readonly LocomoSample[],
  budgets: readonly number[],
  names: readonly string[] = Object.keys(FAMILIES),
  families: Record<string, Family> = FAMILIES,
): Row[] {
  const rows: Row[] = []
  for (const name of names) {
    const family = families[name]
    if (!family) throw new Error(`unknown strategy ${name}`)
    const questions: Question[] = []
    const hits = measure(samples, budgets, family, questions)
    const settings = Object.keys(family.settings)
    const conversations = [...new Set(questions.map((q) => q.conversation))]
    const categories = [...new Set(questions.map((q) => q.category))].sort()
    // The setting each fold uses: most hits on the other conversations, over all budgets.
    const chosen: Record<string, string> = {}
    for (const c of conversations) {
      let best = settings[0] as string
      let bestHits = -1
      for (const s of settings) {
        let h = 0
        for (const perBudget of hits.get(s) ?? [])
          for (let q = 0; q < perBudget.length; q++)
            if (questions[q]?.conversation !== c) h += perBudget[q] as number
        if (h > bestHits) {
          best = s
          bestHits = h
        }
      }
      chosen[c] = best
    }
    budgets.forEach((fraction, b) => {
      const shipped = hits.get(settings[0] as string)?.[b] as Uint8Array
      // Held out: each question scored with its own fold's setting.
      const held = Uint8Array.from(
        questions.map((q, k) => hits.get(chosen[q.conversation] as string)?.[b]?.[k] as number),
      )
      const byCat = (h: Uint8Array) =>
        Object.fromEntries(
          categories.map((cat) => [cat, recallOf(h, (q) => questions[q]?.category === cat)]),
        )
      const all = recallOf(held, () => true)
      rows.push({
        strategy: name,
        budget: fraction,
        ...all,
        pooled: { ...recallOf(shipped, () => true), byCategory: byCat(shipped) },
        heldOut: {
          ...all,
          byCategory: byCat(held),
          byConversation: Object.fromEntries(
            conversations.map((c) => [c, recallOf(held, (q) => questions[q]?.conversation === c)]),
          ),
          chosen,
        },
      })
    })
  }
  return rows
}

/** Median time of one fit with the named `relevance` strategy for one question over the longest conversation. */
export function timeOneFit(
  samples: readonly LocomoSample[],
  runs = 30,
): { turns: number; medianMs: number } {
  const longest = samples
    .map((s) => locomoChat(s))
    .sort((a, b) => b.messages.length - a.messages.length)[0]
  if (!longest) return { turns: 0, medianMs: 0 }
  const counter = exactCounter()
  const history = [
    ...longest.messages,
    { role: 'user', content: 'When did they go to the museum?' } as Message,
  ]
  const budget = Math.round(counter.countMessages(history) * 0.25)
  for (let k = 0; k < 5; k++) fit(history, { strategy: 'mostRelevant', budget, counter })
  const times: number[] = []
  for (let k = 0; k < runs; k++) {
    // A new question each run, as an agent asks: the per-message caches stay warm.
    const asked = [
      ...longest.messages,
      { role: 'user', content: `What did they do on day ${k}?` } as Message,
    ]
    const t0 = performance.now()
    fit(asked, { strategy: 'mostRelevant', budget, counter })
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return { turns: longest.messages.length - 1, medianMs: times[Math.floor(runs / 2)] as number }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`

/** The Markdown tables `npm run eval:locomo` prints. */
export function formatRows(
  rows: readonly Row[],
  families: Record<string, Family> = FAMILIES,
): string {
  const cats = [...new Set(rows.flatMap((r) => Object.keys(r.heldOut.byCategory)))]
  const first = rows[0]
  const count = (c: string) => first?.heldOut.byCategory[c]?.questions ?? 0
  const header = [
    'budget',
    'strategy',
    'questions',
    'pooled',
    'held out',
    ...cats.map((c) => `${c} (${count(c)})`),
  ]
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map(
      (r) =>
        `| ${[
          pct(r.budget),
          r.strategy,
          String(r.questions),
          pct(r.pooled.recall),
          pct(r.heldOut.recall),
          ...cats.map((c) => (r.heldOut.byCategory[c] ? pct(r.heldOut.byCategory[c].recall) : '-')),
        ].join(' | ')} |`,
    ),
  ]
  const choices = new Map<string, string>()
  for (const r of rows) {
    const per = Object.entries(r.heldOut.chosen)
    if (
      new Set(per.map(([, s]) => s)).size > 0 &&
      Object.keys(families[r.strategy]?.settings ?? {}).length > 1
    )
      choices.set(r.strategy, per.map(([c, s]) => `${c}: ${s}`).join('; '))
  }
  const notes = [...choices].map(
    ([name, text]) => `- ${name}, setting per held-out conversation: ${text}`,
  )
  return `${lines.join('\n')}\n${notes.length ? `\n${notes.join('\n')}\n` : ''}`
}

function main(): void {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      budgets: { type: 'string' },
      strategies: { type: 'string' },
      ideas: { type: 'boolean' },
      json: { type: 'boolean' },
      only: { type: 'string' },
      misses: { type: 'boolean' },
    },
  })
  const budgets = (values.budgets ?? '0.1,0.25,0.5').split(',').map(Number)
  if (budgets.some((b) => !(b > 0 && b <= 1))) {
    process.stderr.write('eval-locomo: --budgets takes fractions in (0, 1], e.g. 0.1,0.25\n')
    process.exit(2)
  }
  const families = values.ideas ? { ...FAMILIES, ...IDEAS } : FAMILIES
  const names = values.strategies
    ? values.strategies.split(',')
    : values.ideas
      ? ['scoreBased+bm25', 'relevance', ...Object.keys(IDEAS)]
      : Object.keys(FAMILIES)
  const unknown = names.filter((n) => !Object.hasOwn(families, n))
  if (unknown.length) {
    process.stderr.write(
      `eval-locomo: unknown strategy ${unknown.join(', ')} (known: ${Object.keys(families).join(', ')})\n`,
    )
    process.exit(2)
  }
  const data = values.data ?? LOCOMO_DEV_PATH
  const all = readLocomo(data) as LocomoSample[]
  const only = values.only?.split(',')
  const samples = only ? all.filter((s) => only.includes(s.sample_id)) : all
  if (samples.length === 0) {
    process.stderr.write(`eval-locomo: no conversation named ${values.only} in ${data}\n`)
    process.exit(2)
  }
  if (values.misses) {
    for (const fraction of budgets) {
      const found = misses(samples, fraction, (query) => mostRelevant({ query }))
      process.stdout.write(
        `mostRelevant at ${pct(fraction)}: ${found.misses.length} of ${found.questions} questions miss evidence\n\n${missTable(found.misses, CATEGORIES)}\n\n`,
      )
    }
    return
  }
  const rows = evaluate(samples, budgets, names, families)
  const timing = timeOneFit(samples)
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ data, rows, timing }, null, 2)}\n`)
    return
  }
  process.stdout.write(formatRows(rows, families))
  process.stdout.write(
    `\nfit for one question over a ${timing.turns}-turn conversation (relevance, 25% budget): median ${timing.medianMs.toFixed(2)} ms\n`,
  )
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) main()

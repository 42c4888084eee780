// Why a strategy misses LoCoMo evidence: each question whose evidence is not all kept, by
// category and by what its first missed evidence turn shares with the question.
// npx tsx scripts/eval-locomo.ts --misses [--budgets 0.1] [--data PATH] [--only conv-26,conv-30]
import { fit } from '../src/context/fit.js'
import { ContextOverflowError } from '../src/errors.js'
import { type Message, messageText } from '../src/messages/message.js'
import { terms_ } from '../src/strategies/query-terms.js'
import type { Strategy } from '../src/strategies/types.js'
import { exactCounter } from '../src/tokens/counters.js'
import { type LocomoSample, locomoChat, normaliseEvidence } from './locomo.js'

/** Why an evidence turn was left out, judged from its words and the question's. */
export type MissReason =
  | 'relative date'
  | 'answer after a matching turn'
  | 'ranked out'
  | 'common words only'
  | 'no shared word'

export const MISS_REASONS: readonly MissReason[] = [
  'relative date',
  'answer after a matching turn',
  'ranked out',
  'common words only',
  'no shared word',
]

/** A time said relative to the day it was said on: "yesterday", "last Saturday", "two weeks ago". */
const RELATIVE =
  /\b(yesterday|today|tonight|tomorrow|ago|(last|this|next|past) (week|weekend|month|year|night|summer|winter|spring|fall|monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b/i

/** A word held by more than this share of the turns, and by 3 or more, is common (a speaker's name, "time"). */
const COMMON_SHARE = 0.05

export interface Miss {
  conversation: string
  category: number
  question: string
  reason: MissReason
  /** Evidence turns left out, of all the question's evidence turns. */
  missed: number
  evidence: number
}

/**
 * The reason a left-out evidence turn gives, first that applies: a temporal question
 * (category 2) whose turn says its time relatively; the turn shares a rare word with the
 * question (ranked out: the words were there); the turn before it does (the answer to a
 * matching turn); it shares only common words; it shares none.
 */
export function reasonFor(
  question: string,
  category: number,
  turn: string,
  before: string | undefined,
  common: (term: string) => boolean,
): MissReason {
  if (category === 2 && RELATIVE.test(turn)) return 'relative date'
  const asked = new Set(terms_(question))
  const shared = (text: string) => [...new Set(terms_(text))].filter((t) => asked.has(t))
  const own = shared(turn)
  if (own.some((t) => !common(t))) return 'ranked out'
  if (before !== undefined && shared(before).some((t) => !common(t)))
    return 'answer after a matching turn'
  return own.length > 0 ? 'common words only' : 'no shared word'
}

/** Every question the strategy misses at `fraction` of each conversation, with its reason. */
export function misses(
  samples: readonly LocomoSample[],
  fraction: number,
  strategy: (query: string) => Strategy,
): { questions: number; misses: Miss[] } {
  const counter = exactCounter()
  const out: Miss[] = []
  let questions = 0
  for (const sample of samples) {
    const { messages, diaIds } = locomoChat(sample)
    const texts = messages.map((m) => messageText(m))
    const df = new Map<string, number>()
    for (const t of texts) for (const w of new Set(terms_(t))) df.set(w, (df.get(w) ?? 0) + 1)
    const common = (w: string) => {
      const d = df.get(w) ?? 0
      return d >= 3 && d > COMMON_SHARE * texts.length
    }
    const where = new Map<string, number>()
    diaIds.forEach((d, i) => {
      if (d) where.set(normaliseEvidence([d])[0] ?? d, i)
    })
    const budget = Math.max(1, Math.round(counter.countMessages(messages) * fraction))
    for (const qa of sample.qa) {
      const evidence = normaliseEvidence(qa.evidence)
        .map((e) => where.get(e))
        .filter((i): i is number => i !== undefined)
      if (evidence.length === 0) continue
      questions++
      const history: Message[] = [...messages, { role: 'user', content: qa.question }]
      let kept: Set<number>
      try {
        kept = new Set(fit(history, { strategy: strategy(qa.question), budget, counter }).kept)
      } catch (e) {
        if (!(e instanceof ContextOverflowError)) throw e
        kept = new Set()
      }
      const left = evidence.filter((i) => !kept.has(i))
      const first = left[0]
      if (first === undefined) continue
      out.push({
        conversation: sample.sample_id,
        category: qa.category,
        question: qa.question,
        reason: reasonFor(qa.question, qa.category, texts[first] ?? '', texts[first - 1], common),
        missed: left.length,
        evidence: evidence.length,
      })
    }
  }
  return { questions, misses: out }
}

/** Misses counted by category (rows) and reason (columns), as a Markdown table. */
export function missTable(list: readonly Miss[], categories: Record<number, string>): string {
  const cats = [...new Set(list.map((m) => m.category))].sort((a, b) => a - b)
  const header = ['category', ...MISS_REASONS, 'all']
  const row = (label: string, of: readonly Miss[]) =>
    `| ${[label, ...MISS_REASONS.map((r) => String(of.filter((m) => m.reason === r).length)), String(of.length)].join(' | ')} |`
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...cats.map((c) =>
      row(
        categories[c] ?? String(c),
        list.filter((m) => m.category === c),
      ),
    ),
    row('all', list),
  ].join('\n')
}

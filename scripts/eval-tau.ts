// How often the identifiers the next tool call uses are still in the kept context, on τ-bench.
// npm run eval:tau [-- --budgets 0.1,0.25] [--json]
import '../src/tokens/node-encodings.js'
import { parseArgs } from 'node:util'
import { fit } from '../src/context/fit.js'
import { ContextOverflowError } from '../src/errors.js'
import { type Message, messageText } from '../src/messages/message.js'
import { type Unit, UnitBuilder } from '../src/messages/units.js'
import { fromOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { mostRelevant, relevanceScorer } from '../src/strategies/most-relevant.js'
import { scoreBased } from '../src/strategies/score-based.js'
import { combine, recency, relevance } from '../src/strategies/scorers.js'
import { tokenLimited } from '../src/strategies/token-limited.js'
import type { Strategy } from '../src/strategies/types.js'
import type { TokenCounter } from '../src/tokens/counter.js'
import { exactCounter } from '../src/tokens/counters.js'
import { type TauRecord, tauBench } from '../test/tau-bench.js'

/** The strategies compared; each is made once per call (the query is the newest user message). */
export const TAU_STRATEGIES: Record<string, () => Strategy> = {
  tokenLimited: () => tokenLimited(),
  recency: () => scoreBased({ scorer: recency() }),
  bm25: () => scoreBased({ scorer: relevance() }),
  'bm25+recency': () =>
    scoreBased({
      scorer: combine([
        [relevance(), 1],
        [recency(), 1],
      ]),
    }),
  relevance: () => mostRelevant(),
  'relevance+recency': () =>
    scoreBased({
      scorer: combine([
        [relevanceScorer(), 1],
        [recency(), 1],
      ]),
    }),
}

/**
 * Identifiers in a tool call's JSON arguments: user ids (`mia_li_3668`), reservation ids
 * (six capitals and digits, `OI5L9G`), flight numbers (`HAT084`), payment ids
 * (`credit_card_7815826`). Other values (dates, airports, cabin names) are not counted.
 */
export function identifiers(args: string): string[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(args)
  } catch {
    return []
  }
  const out = new Set<string>()
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (
        /^[a-z]+_[a-z]+_\d+$/.test(v) ||
        /^(?=.*\d)[A-Z0-9]{6}$/.test(v) ||
        /^[A-Z]{6}$/.test(v) ||
        /^[A-Z]{3}\d{3}$/.test(v)
      )
        out.add(v)
    } else if (Array.isArray(v)) for (const x of v) walk(x)
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x)
  }
  walk(parsed)
  return [...out]
}

/** One place where the agent calls a tool: the history before it and the identifiers it needs. */
export interface ToolCallCase {
  task: number
  history: Message[]
  /** Identifiers in the call's arguments that appear earlier in the history (the rest no selection could keep). */
  ids: string[]
  /** Every identifier is in what is always sent (system prompt, newest user message, newest unit). */
  inNewest: boolean
}

export function toolCallCases(records: readonly TauRecord[]): ToolCallCase[] {
  const cases: ToolCallCase[] = []
  for (const record of records) {
    const messages = fromOpenAIChat(record.traj)
    const seen: string[] = []
    messages.forEach((m, k) => {
      if (m.role === 'assistant' && m.toolCalls?.length && k > 0) {
        const before = seen.join('\n')
        const ids = [...new Set(m.toolCalls.flatMap((c) => identifiers(c.arguments)))].filter(
          (id) => before.includes(id),
        )
        if (ids.length > 0) {
          const history = messages.slice(0, k)
          const always = alwaysSent(history)
            .map((i) => messageText(history[i] as Message))
            .join('\n')
          const inNewest = ids.every((id) => always.includes(id))
          cases.push({ task: record.task_id, history, ids, inNewest })
        }
      }
      seen.push(messageText(m))
    })
  }
  return cases
}

export interface TauRow {
  strategy: string
  budget: number
  calls: number
  /** Share of calls whose every identifier is in the kept messages. */
  recall: number
  /** Calls needing an identifier from outside what is always sent, and the share of those kept. */
  olderCalls: number
  olderRecall: number
  /** Calls whose system prompt and newest turn alone exceed the budget (counted as misses). */
  overflows: number
}

/** Indices of the messages every strategy sends: the system prompt, the newest user message, the newest unit. */
export function alwaysSent(history: readonly Message[]): number[] {
  const builder = new UnitBuilder()
  for (const m of history) builder.push(m)
  const units = builder.units
  const always = new Set<Unit>()
  if (units[0]?.kind === 'system') always.add(units[0])
  const last = units[units.length - 1]
  if (last) always.add(last)
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u] as Unit
    if (unit.kind !== 'system' && history[unit.start]?.role === 'user') {
      always.add(unit)
      break
    }
  }
  const out: number[] = []
  for (const u of always) for (let i = u.start; i < u.end; i++) out.push(i)
  return out.sort((a, b) => a - b)
}

/**
 * The budget for a history at `fraction`: what is always sent plus that fraction of the rest,
 * so a long policy prompt or a large newest tool result does not leave nothing to choose from.
 */
export function tauBudget(history: readonly Message[], fraction: number, counter: TokenCounter) {
  let fixed = 0
  for (const i of alwaysSent(history)) fixed += counter.countMessage(history[i] as Message)
  const total = counter.countMessages(history)
  return Math.max(1, Math.round(fixed + fraction * (total - fixed)))
}

export function evaluateTau(
  cases: readonly ToolCallCase[],
  budgets: readonly number[],
  strategies: Record<string, () => Strategy> = TAU_STRATEGIES,
): TauRow[] {
  const counter = exactCounter()
  const rows: TauRow[] = []
  for (const fraction of budgets) {
    for (const [name, make] of Object.entries(strategies)) {
      let hit = 0
      let olderHit = 0
      let overflows = 0
      for (const c of cases) {
        const budget = tauBudget(c.history, fraction, counter)
        let text: string
        try {
          text = fit(c.history, { strategy: make(), budget, counter })
            .messages.map(messageText)
            .join('\n')
        } catch (e) {
          if (!(e instanceof ContextOverflowError)) throw e
          overflows++
          continue
        }
        if (c.ids.every((id) => text.includes(id))) {
          hit++
          if (!c.inNewest) olderHit++
        }
      }
      const older = cases.filter((c) => !c.inNewest).length
      rows.push({
        strategy: name,
        budget: fraction,
        calls: cases.length,
        recall: hit / cases.length,
        olderCalls: older,
        olderRecall: older ? olderHit / older : 0,
        overflows,
      })
    }
  }
  return rows
}

function main(): void {
  const { values } = parseArgs({
    options: { budgets: { type: 'string' }, json: { type: 'boolean' } },
  })
  const budgets = (values.budgets ?? '0.1,0.25').split(',').map(Number)
  if (budgets.some((b) => !(b > 0 && b <= 1))) {
    process.stderr.write('eval-tau: --budgets takes fractions in (0, 1], e.g. 0.1,0.25\n')
    process.exit(2)
  }
  const cases = toolCallCases(tauBench())
  const rows = evaluateTau(cases, budgets)
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ rows }, null, 2)}\n`)
    return
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  process.stdout.write(
    '| budget | strategy | calls | all identifiers kept | calls needing older turns | kept |\n| --- | --- | --- | --- | --- | --- |\n',
  )
  for (const r of rows)
    process.stdout.write(
      `| ${pct(r.budget)} | ${r.strategy} | ${r.calls} | ${pct(r.recall)} | ${r.olderCalls} | ${pct(r.olderRecall)} |\n`,
    )
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) main()

// Whether what an agent's next tool call needs from older turns is still sent, on τ-bench
// (GPT-4o airline trajectories) or on τ²-bench airline conversations run by Claude Sonnet 4.5.
//
// A case is an assistant tool call whose arguments carry an identifier first seen in an
// older turn: in the history before the newest user message, not in the system prompt, and
// not again since that user message. The history before the call is fitted to the system
// prompt plus a fraction of the rest plus 400 tokens; the case counts when every such
// identifier is in what is sent, in any message (a ledger or a summary included).
//
// Settings (how much room the ledger takes) are chosen by leave-one-out over groups of
// trajectories: each group is scored with the setting that did best on the other groups.
//
// npm run eval:agent [-- --data tau-bench|tau2-claude] [--budgets 0.1,0.25] [--folds 5] [--json]
import '../src/tokens/node-encodings.js'
import { parseArgs } from 'node:util'
import { fit } from '../src/context/fit.js'
import { ContextOverflowError } from '../src/errors.js'
import { type Message, messageText } from '../src/messages/message.js'
import { fromOpenAIChat } from '../src/providers/openai-chat/codec.js'
import { mostRelevant } from '../src/strategies/most-relevant.js'
import { scoreBased } from '../src/strategies/score-based.js'
import { tokenLimited } from '../src/strategies/token-limited.js'
import type { Strategy } from '../src/strategies/types.js'
import type { TokenCounter } from '../src/tokens/counter.js'
import { exactCounter } from '../src/tokens/counters.js'
import { clearToolResults } from '../src/transforms/clear-tool-results.js'
import { pipe } from '../src/transforms/pipe.js'
import { type TauRecord, tauBench } from '../test/tau-bench.js'
import { tau2Claude } from '../test/tau2-claude.js'

/** The data sets `--data` names, each as `{ task_id, traj }` records in OpenAI chat format. */
export const DATA_SETS: Record<string, () => TauRecord[]> = {
  'tau-bench': tauBench,
  'tau2-claude': tau2Claude,
}

/**
 * What a tool call names that it must have read somewhere: every string value of its JSON
 * arguments without spaces, of three or more characters, holding a digit or written in
 * capitals (user, reservation and payment ids, flight numbers, dates, airport codes).
 */
export function callIdentifiers(args: string): string[] {
  const out = new Set<string>()
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (/^[A-Za-z0-9_:.-]{3,}$/.test(v) && (/\d/.test(v) || /^[A-Z]{3,}$/.test(v))) out.add(v)
    } else if (Array.isArray(v)) for (const x of v) walk(x)
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x)
  }
  try {
    walk(JSON.parse(args))
  } catch {
    // Arguments that are not JSON name nothing this method can check.
  }
  return [...out]
}

export interface AgentCase {
  /** The trajectory's position in the data set (the unit of leave-one-out groups). */
  trajectory: number
  history: Message[]
  /** Identifiers the call needs that only older turns hold. */
  ids: string[]
}

/** Every case of the method above, in data order. */
export function agentCases(records: readonly TauRecord[]): AgentCase[] {
  const cases: AgentCase[] = []
  records.forEach((record, trajectory) => {
    const messages = fromOpenAIChat(record.traj)
    const texts = messages.map(messageText)
    const system = messages
      .flatMap((m, k) => (m.role === 'system' ? [texts[k] as string] : []))
      .join('\n')
    let lastUser = -1
    messages.forEach((m, k) => {
      if (m.role === 'user') lastUser = k
      if (m.role !== 'assistant' || !m.toolCalls?.length || lastUser < 0) return
      const before = texts
        .slice(0, lastUser)
        .filter((_, i) => messages[i]?.role !== 'system')
        .join('\n')
      const since = texts.slice(lastUser, k).join('\n')
      const ids = [...new Set(m.toolCalls.flatMap((c) => callIdentifiers(c.arguments)))].filter(
        (id) => before.includes(id) && !system.includes(id) && !since.includes(id),
      )
      if (ids.length > 0) cases.push({ trajectory, history: messages.slice(0, k), ids })
    })
  })
  return cases
}

/** The system prompt plus `fraction` of the rest plus 400 tokens. */
export function agentBudget(
  history: readonly Message[],
  fraction: number,
  counter: TokenCounter,
): number {
  let system = 0
  let rest = 0
  for (const m of history) {
    const t = counter.countMessage(m)
    if (m.role === 'system') system += t
    else rest += t
  }
  return Math.round(system + fraction * rest + 400)
}

/** Whether each case's identifiers are all sent by `strategy` at `fraction`. */
export function hits(
  cases: readonly AgentCase[],
  fraction: number,
  make: () => Strategy | undefined,
  counter: TokenCounter = exactCounter(),
  extra: Record<string, unknown> = {},
): { hit: boolean[]; ledgerTokens: number[] } {
  const hit: boolean[] = []
  const ledgerTokens: number[] = []
  for (const c of cases) {
    const budget = agentBudget(c.history, fraction, counter)
    const strategy = make()
    try {
      const r = fit(c.history, { budget, counter, ...(strategy && { strategy }), ...extra })
      const text = r.messages.map(messageText).join('\n')
      hit.push(c.ids.every((id) => text.includes(id)))
      const ledger = r.inserted.find((i) => i.reason === 'ledger')
      ledgerTokens.push(ledger ? counter.countMessage(ledger.message) : 0)
    } catch (e) {
      if (!(e instanceof ContextOverflowError)) throw e
      hit.push(false)
      ledgerTokens.push(0)
    }
  }
  return { hit, ledgerTokens }
}

/** The strategies compared, each with the `fit` options it runs under. */
export const AGENT_STRATEGIES: Record<
  string,
  { make: () => Strategy | undefined; options?: Record<string, unknown> }
> = {
  'fit default, before (ledger: false)': { make: () => undefined, options: { ledger: false } },
  'fit default (ledger for agents)': { make: () => undefined },
  mostRelevant: { make: () => mostRelevant() },
  'mostRelevant, ledger: true': { make: () => mostRelevant(), options: { ledger: true } },
  scoreBased: { make: () => scoreBased() },
  'tokenLimited + clearToolResults({ facts })': {
    make: () => pipe(clearToolResults({ facts: true, keep: 1 }), tokenLimited()),
  },
}

/** Ledger shares tried; each fold is scored with the share that did best on the others. */
export const SHARES = [0.2, 0.3, 0.4, 0.5] as const

/** Folds of whole tasks: every trial of a task in the same fold. */
export function foldOf(
  records: readonly TauRecord[],
  folds: number,
): (trajectory: number) => number {
  const tasks = [...new Set(records.map((r) => r.task_id))].sort((a, b) => a - b)
  const fold = new Map(tasks.map((t, k) => [t, k % folds]))
  return (trajectory) => fold.get(records[trajectory]?.task_id ?? -1) ?? 0
}

/**
 * Leave-one-fold-out recall of the ledger: for each fold, the share with the best recall on
 * the other folds, scored on this fold. Returns the held-out recall and the shares chosen.
 */
export function leaveOneOut(
  cases: readonly AgentCase[],
  fraction: number,
  fold: (trajectory: number) => number,
  folds: number,
  counter: TokenCounter,
): { recall: number; chosen: number[]; ledgerTokens: number } {
  const byShare = SHARES.map((share) =>
    hits(cases, fraction, () => tokenLimited(), counter, { ledger: { share } }),
  )
  let hit = 0
  let ledgerTokens = 0
  let ledgers = 0
  const chosen: number[] = []
  for (let f = 0; f < folds; f++) {
    let best = 0
    let bestRecall = -1
    SHARES.forEach((_, k) => {
      const run = byShare[k] as { hit: boolean[] }
      const others = run.hit.filter((_, c) => fold((cases[c] as AgentCase).trajectory) !== f)
      const recall = others.filter(Boolean).length / Math.max(1, others.length)
      if (recall > bestRecall) {
        bestRecall = recall
        best = k
      }
    })
    chosen.push(SHARES[best] as number)
    const run = byShare[best] as { hit: boolean[]; ledgerTokens: number[] }
    cases.forEach((c, k) => {
      if (fold(c.trajectory) !== f) return
      if (run.hit[k]) hit++
      const t = run.ledgerTokens[k] as number
      if (t > 0) {
        ledgerTokens += t
        ledgers++
      }
    })
  }
  return {
    recall: hit / Math.max(1, cases.length),
    chosen,
    ledgerTokens: ledgerTokens / Math.max(1, ledgers),
  }
}

const share = (xs: readonly boolean[]) => xs.filter(Boolean).length / Math.max(1, xs.length)

function main(): void {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      budgets: { type: 'string' },
      folds: { type: 'string' },
      json: { type: 'boolean' },
    },
  })
  const budgets = (values.budgets ?? '0.1,0.25').split(',').map(Number)
  const folds = Number(values.folds ?? 5)
  if (budgets.some((b) => !(b > 0 && b <= 1)) || !(Number.isInteger(folds) && folds >= 2)) {
    process.stderr.write(
      'eval-agent: --budgets takes fractions in (0, 1], e.g. 0.1,0.25; --folds a whole number >= 2\n',
    )
    process.exit(2)
  }
  const data = values.data ?? 'tau-bench'
  const load = Object.hasOwn(DATA_SETS, data) ? DATA_SETS[data] : undefined
  if (!load) {
    process.stderr.write(`eval-agent: --data takes ${Object.keys(DATA_SETS).join(' or ')}\n`)
    process.exit(2)
  }
  const records = load()
  const cases = agentCases(records)
  const counter = exactCounter()
  const fold = foldOf(records, folds)
  const rows: {
    strategy: string
    budget: number
    calls: number
    recall: number
    ledgerTokens?: number
    shares?: number[]
  }[] = []
  for (const b of budgets) {
    for (const [name, { make, options }] of Object.entries(AGENT_STRATEGIES)) {
      const { hit, ledgerTokens } = hits(cases, b, make, counter, options)
      const used = ledgerTokens.filter((t) => t > 0)
      rows.push({
        strategy: name,
        budget: b,
        calls: cases.length,
        recall: share(hit),
        ...(used.length > 0 && { ledgerTokens: used.reduce((x, y) => x + y, 0) / used.length }),
      })
    }
    const loo = leaveOneOut(cases, b, fold, folds, counter)
    rows.push({
      strategy: `ledger, share chosen leaving each of ${folds} task folds out`,
      budget: b,
      calls: cases.length,
      recall: loo.recall,
      ledgerTokens: loo.ledgerTokens,
      shares: loo.chosen,
    })
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ data, rows }, null, 2)}\n`)
    return
  }
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  process.stdout.write(
    '| budget | strategy | calls | identifiers sent | ledger tokens (mean, when sent) |\n| --- | --- | --- | --- | --- |\n',
  )
  for (const r of rows)
    process.stdout.write(
      `| ${pct(r.budget)} | ${r.strategy}${r.shares ? ` (shares ${r.shares.join(', ')})` : ''} | ${r.calls} | ${pct(r.recall)} | ${r.ledgerTokens === undefined ? '' : Math.round(r.ledgerTokens)} |\n`,
    )
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) main()

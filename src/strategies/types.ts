import type { Fact, FactReport } from '../messages/fact.js'
import type { Message } from '../messages/message.js'
import type { Unit } from '../messages/units.js'
import type { Provider } from '../messages/validate.js'
import type { TokenCounter } from '../tokens/counter.js'

/** What a strategy sees: a valid history, split into units, counted once. */
export interface View {
  readonly messages: readonly Message[]
  readonly units: readonly Unit[]
  /** Tokens of each message, per-message overhead included. */
  readonly tokens: readonly number[]
  /** Tokens of each unit. */
  readonly unitTokens: readonly number[]
  /** `unitPrefix[k]` = tokens of units `0..k-1`; length `units.length + 1`. */
  readonly unitPrefix: readonly number[]
  /** Tokens the kept messages may use: the budget less tools, reply reserve and priming. */
  readonly available: number
  /** The whole budget and what is taken from it before any message, for overflow errors. */
  readonly budget: number
  readonly overhead: Readonly<{ tools: number; reserve: number; priming: number }>
  readonly counter: TokenCounter
  readonly provider: Provider
  /** What the next model call is about (relevance scorers); default: the newest user text. */
  readonly query?: string | undefined
  /** Summaries its owner keeps beside the history (a `ChatContext`), for strategies that summarize. */
  readonly summaries?: SummaryLedger | undefined
}

/** A message standing for view positions `[from, to)`, kept beside the history, never in it. */
export interface SummaryEntry {
  replaces: [number, number]
  message: Message
  /** Tokens of `message`, as counted when it was made. */
  tokens?: number | undefined
  /** Identifies the message at `to - 1`, so a summary is never applied to another history. */
  anchor?: string | undefined
  /** The facts of the replaced range (carried into the next summary) and how many this one kept. */
  facts?: { all: Fact[]; report: FactReport } | undefined
}

/** Where summaries live, oldest first; entries sharing `replaces` form one summary. */
export interface SummaryLedger {
  list(): readonly SummaryEntry[]
  add(entries: readonly SummaryEntry[]): void
}

/** One entry of a strategy's output, in output order. */
export type PlanItem =
  /** The view's message at `index`, as is or replaced by `message` (truncated, stubbed, cleared). */
  | { index: number; message?: Message; reason?: ChangeReason }
  /** A message the strategy wrote: a placeholder or a summary standing for `replaces`. */
  | {
      synthetic: Message
      replaces: number[]
      reason: 'placeholder' | 'summary'
      /** For a summary: how many facts of the replaced messages it keeps. */
      facts?: FactReport
    }

export type ChangeReason = 'truncated' | 'stubbed' | 'cleared' | 'thought-dropped' | 'calls-removed'

/** A selection policy: from a view to the ordered list of what is sent. */
export interface Strategy<Name extends string = string, Options = unknown> {
  readonly name: Name
  readonly options: Options
  /** Keeps the result within `view.available` on its own (else `fit` enforces the budget after it). */
  readonly budgetAware: boolean
  select(view: View): PlanItem[] | Promise<PlanItem[]>
  /** Rewrites applied before `select` (see `pipe`). */
  readonly transforms?: readonly Transform[]
}

/** A per-message rewrite applied before selection (drop thoughts, clear old tool results, ...). */
export interface Transform<Name extends string = string, Options = unknown> {
  readonly name: Name
  readonly options: Options
  /** Returns replacements by index (`null` removes the message); the view is not modified. */
  apply(view: View): Map<number, Message | null>
}

/** Every message of the unit range `[from, to)`, as plan items. */
export function unitItems(view: View, from: number, to: number, out: PlanItem[] = []): PlanItem[] {
  for (let u = from; u < to; u++) {
    const unit = view.units[u] as Unit
    for (let i = unit.start; i < unit.end; i++) out.push({ index: i })
  }
  return out
}

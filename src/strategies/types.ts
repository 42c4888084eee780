import type { Fact, FactReport } from '../messages/fact.js'
import type { Message } from '../messages/message.js'
import type { Unit, UnitKind } from '../messages/units.js'
import type { Provider } from '../providers/provider.js'
import type { ToolInput } from '../providers/tool-shapes.js'
import type { TokenCounter } from '../tokens/counter.js'

/** What a strategy sees: a valid history, split into units, counted once. */
export interface View {
  readonly messages: readonly Message[]
  /** Units of the history: valid unit indices are `[0, unitCount)`. */
  readonly unitCount: number
  /**
   * Every unit as an object. These four arrays are made on first read (a context's index
   * then keeps them in step, so a later view pays only for what is new); the methods read
   * the index without making anything: prefer `unitCount`, `unit(u)`, `kind(u)`,
   * `start(u)` and `end(u)`.
   */
  readonly units: readonly Unit[]
  /** Tokens of each message, per-message overhead included (see `units`; or `messageTokens(i)`). */
  readonly tokens: readonly number[]
  /** Tokens of each unit (see `units`; or `unitSize(u)`). */
  readonly unitTokens: readonly number[]
  /** `unitPrefix[k]` = tokens of units `0..k-1`; length `unitCount + 1` (see `units`; or `rangeTokens(from, to)`). */
  readonly unitPrefix: readonly number[]
  /** Tokens the kept messages may use: the budget less tools, reply reserve and priming. */
  readonly available: number
  /** The whole budget and what is taken from it before any message, for overflow errors. */
  readonly budget: number
  readonly overhead: Readonly<{ tools: number; reserve: number; priming: number }>
  readonly counter: TokenCounter
  readonly provider: Provider
  /** The provider's history opens with a user turn after the system prompt (Anthropic, Gemini). */
  readonly userFirst: boolean
  /** What the next model call is about (relevance scorers); default: the newest user text. */
  readonly query?: string | undefined
  /** Summaries its owner keeps beside the history (a `ChatContext`), for strategies that summarize. */
  readonly summaries?: SummaryLedger | undefined
  /** Place in the caller's history of each view message (repair may have removed some): what a ledger names. */
  readonly origin?: ArrayLike<number> | undefined
  /**
   * The recall tool is offered with the request: a message left out or shortened can be asked
   * back by its number (`origin`), and what stands for it may say so.
   */
  readonly recall?: boolean | undefined

  /** Unit `u` (a `RangeError` outside `[0, unitCount)`). */
  unit(u: number): Unit
  /** First view position of unit `u`. */
  start(u: number): number
  /** View position just after unit `u`. */
  end(u: number): number
  kind(u: number): UnitKind
  /** The first message of unit `u`. */
  first(u: number): Message
  /** Role of the first message of unit `u`. */
  role(u: number): Message['role']
  /** Tokens of unit `u`. */
  unitSize(u: number): number
  /** Tokens of the units `[from, to)`: two lookups in the prefix sums. */
  rangeTokens(from: number, to: number): number
  /** The message at view position `i`, and its tokens. */
  message(i: number): Message
  messageTokens(i: number): number
  /** The unit holding view position `i` (a binary search). */
  unitOf(i: number): number
  /** The newest unit after the preamble that opens with a user message, or -1. */
  newestUser(): number
  /** How many units are tool exchanges: kept by the index as messages arrive (a view made by hand may not say). */
  exchanges?(): number
  /** The units always sent, and their tokens. */
  mandatory(): Mandatory
  /** Every message of the units `[from, to)`, as plan items, appended to `out`. */
  items(from: number, to: number, out?: PlanItem[]): PlanItem[]
  /**
   * The same view with `less` tokens fewer available, for a strategy that keeps room for a
   * message of its own (the ledger); `opensWithUser: true` when that message is a user turn
   * right after the system prompt, so the history kept need not open with one (`userFirst`
   * false); `aside: true` adds `less` to `aside`.
   */
  narrowed?(less: number, opensWithUser?: boolean, aside?: boolean): View
  /**
   * Tokens of the room a wrapper set aside for a message of its own (the ledger's share):
   * a stable cut counts them in its slack, so it moves as often as it would without them.
   */
  readonly aside?: number
}

/** The units that are always sent: the system preamble, the newest user message, the newest unit. */
export interface Mandatory {
  /** Index of the preamble unit, or -1. */
  preamble: number
  /** Index of the newest unit that opens with a user message, or -1. */
  lastUser: number
  /** Index of the newest unit, or -1 for an empty history. */
  last: number
  /** First unit after the preamble. */
  first: number
  tokens: number
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
      reason: 'placeholder' | 'summary' | 'ledger'
      /** For a summary: how many facts of the replaced messages it keeps. */
      facts?: FactReport
    }

/** Why a message is sent changed (`media-omitted`: images or files over the provider's per-request limits, sent as a short text). */
export type ChangeReason =
  | 'truncated'
  | 'stubbed'
  | 'cleared'
  | 'thought-dropped'
  | 'calls-removed'
  | 'media-omitted'

/** A selection policy: from a view to the ordered list of what is sent. */
export interface Strategy<Name extends string = string, Options = unknown> {
  readonly name: Name
  readonly options: Options
  /** Keeps the result within `view.available` on its own (else `fit` enforces the budget after it). */
  readonly budgetAware: boolean
  /**
   * `true`: `select` returns a promise (it calls out), so only `fitAsync` and
   * `ChatContext.getMessages` run it. `false`: it never does, so an awaiting caller need not
   * copy the view. Unset: either (the view is copied for the wait).
   */
  readonly async?: boolean
  /**
   * Its own rule may leave out the newest user message or the newest message (a window of
   * the last N messages, a head and a tail): the plan check then asks only for the system
   * prompt. Unset, a plan without them is an `InvalidPlanError`.
   */
  readonly ownWindow?: boolean
  /** Keeps summaries beside the history: a `ChatContext` over a store reads them back on sync. */
  readonly keepsSummaries?: boolean
  /** Set by `withLedger`: the ledger it writes of what it drops (a saved state or component keeps it). */
  readonly ledger?: Readonly<{ share: number; maxTokens: number; when: 'always' | 'tool-calls' }>
  /**
   * The ledger when none is asked for or refused: `auto` (when the history has tool calls)
   * for `tokenLimited`, the default of agents, by name, object or default alike.
   */
  readonly ledgerByDefault?: 'auto'
  /** What the strategy was told about the request (its own `limit`, `model`, ...): `fit`'s options win, but of `limit` and `budget` the smaller. */
  readonly request?: RequestOptions
  select(view: View): PlanItem[] | Promise<PlanItem[]>
  /** Rewrites applied before `select` (see `pipe`). */
  readonly transforms?: readonly Transform[]
}

/** What a request may use, as a strategy can be told it (`tokenLimited({ limit, model, ... })`). */
export interface RequestOptions {
  limit?: number | undefined
  model?: string | undefined
  reserve?: number | undefined
  tools?: readonly ToolInput[] | undefined
}

/** A per-message rewrite applied before selection (drop thoughts, clear old tool results, ...). */
export interface Transform<Name extends string = string, Options = unknown> {
  readonly name: Name
  readonly options: Options
  /** Why a message it changes or removes is reported as changed. */
  readonly reason: ChangeReason
  /** Returns replacements by index (`null` removes the message); the view is not modified. */
  apply(view: View): Map<number, Message | null>
}

/** Every message of the unit range `[from, to)`, as plan items. */
export function unitItems(view: View, from: number, to: number, out: PlanItem[] = []): PlanItem[] {
  return view.items(from, to, out)
}

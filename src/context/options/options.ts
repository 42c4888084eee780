import { InvalidOptionError } from '../../errors.js'
import type { ToolSchema } from '../../messages/message.js'
import { describeValue, unknownOption } from '../../options-check.js'
import { type ToolInput, toolSchemas } from '../../providers/tool-shapes.js'
import type { ProviderRules } from '../../providers/types.js'
import { type Provider, rulesOf } from '../../providers/validate.js'
import {
  checkRecallOptions,
  RECALL_TOOL_NAME,
  type RecallOptions,
  recallToolSchema,
} from '../../recall/definition.js'
import {
  checkLedgerOptions,
  type LedgerOptions,
  ledgerBase,
  withLedger,
} from '../../strategies/ledger.js'
import { checkPin, type Pin, withPins } from '../../strategies/pins.js'
import {
  CUT_OPTIONS,
  type TokenLimitedOptions,
  tokenLimited,
} from '../../strategies/token-limited.js'
import type { Strategy, SummaryLedger, Transform } from '../../strategies/types.js'
import { unbounded } from '../../strategies/unbounded.js'
import type { TokenCounter } from '../../tokens/counter.js'
import { counterFor, exactCounter, requireModel } from '../../tokens/counters.js'
import { reconcileLimits } from './budget-rule.js'
import { defaultStrategyOptions } from './default-strategy.js'
import {
  type AsyncFactory,
  makeStrategy,
  type StrategyName,
  type StrategyOptionsByName,
  strategyOptionNames,
} from './registry.js'

/** What every fit takes, whatever the strategy. */
export interface RequestFitOptions {
  /**
   * Tokens the whole request may use. Default: the strategy's `limit`, else the model's window;
   * beside a strategy's own `limit`, the smaller wins (the result's `notes` say so). With none
   * of budget, model and limit, a fit is refused (`InvalidOptionError`) unless the strategy
   * bounds itself (`buffered`, `headAndTail`, `userTurns`) or is `'unbounded'`.
   */
  budget?: number | undefined
  /** A model id: its window is the default budget and its counter the default counter. */
  model?: string | undefined
  /** How tokens are counted. Default: the model's counter, else exact o200k. */
  counter?: TokenCounter | undefined
  /** Tools sent with the request, in any SDK's shape: counted against the budget. */
  tools?: readonly ToolInput[] | undefined
  /** Tokens kept free for the reply. Default 0 with a budget; with only a model, its output limit (at most a quarter of the window). */
  reserve?: number | undefined
  /** Whose rules the output must pass. Default `openai`. */
  provider?: Provider | undefined
  /** What the next call is about, for relevance-based strategies. */
  query?: string | undefined
  /** Rewrites applied before selection, in order. */
  transforms?: Transform[] | undefined
  /** Where a summarizing strategy keeps its summaries between calls (a `ChatContext` passes its own). */
  summaries?: SummaryLedger | undefined
  /**
   * A ledger of what the strategy drops: one user message after the system prompt listing
   * the identifiers, dates and amounts the dropped messages held, with their turn and source.
   * `'auto'` (the default strategy's default): when the history has tool calls. `true` or
   * options: always. `false` (any other strategy's default): never.
   */
  ledger?: boolean | 'auto' | LedgerOptions | undefined
  /**
   * The recall tool is offered with the request: its definition is counted with `tools`
   * (added when no tool of its name is there), and the ledger tells the model it may ask
   * for any message it names. `true` or options (how much a recall returns).
   */
  recall?: boolean | RecallOptions | undefined
  /**
   * Messages sent whenever the system prompt is, beside those marked `pinned: true`: called
   * with each message and its index in the history. Counted with what must be sent (a
   * `ContextOverflowError` when the system prompt, the pinned messages and the newest turn
   * do not fit), kept verbatim by every strategy.
   */
  pin?: Pin | undefined
}

/** No strategy: `tokenLimited` under a budget (how it cuts is given beside it), else `unbounded`. */
export interface DefaultStrategyOptions
  extends Pick<TokenLimitedOptions, (typeof CUT_OPTIONS)[number]> {
  strategy?: undefined
}

/** A strategy object: its options were given to its factory. */
export interface StrategyObjectOptions {
  strategy: Strategy
}

/** A strategy by name, with exactly its own options beside it. */
export type NamedStrategyOptions = {
  [K in StrategyName]: { strategy: K } & StrategyOptionsByName[K]
}[StrategyName]

/** Options of `fit`: a misspelt option is a compile error (and an `InvalidOptionError` at run time). */
export type FitOptions = RequestFitOptions &
  (DefaultStrategyOptions | StrategyObjectOptions | NamedStrategyOptions)

/** The options of a fit beside the strategy's own (the default's: `CUT_OPTIONS`). */
export const FIT_OPTIONS = [
  'strategy',
  'budget',
  'model',
  'counter',
  'tools',
  'reserve',
  'provider',
  'query',
  'transforms',
  'summaries',
  'ledger',
  'recall',
  'pin',
] as const

/**
 * Refuses what cannot be `fit`'s options: a value that is not an object, or an own key that
 * is neither a request option, one of `extraKeys`, nor an option of the strategy named (the
 * default's when none is), naming the closest known one.
 */
export function checkFitKeys(options: unknown, extraKeys: readonly string[] = []): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new InvalidOptionError('options', `expected an object, got ${describeValue(options)}`)
  const given = options as Record<string, unknown>
  const named = typeof given.strategy === 'string' ? given.strategy : undefined
  const own = named !== undefined ? strategyOptionNames(named) : []
  const known = [
    ...FIT_OPTIONS,
    ...extraKeys,
    ...(given.strategy === undefined ? CUT_OPTIONS : own),
  ]
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) {
      const where =
        named !== undefined
          ? `fit with strategy ${named}`
          : given.strategy === undefined
            ? 'fit'
            : 'fit with a strategy object'
      throw unknownOption(key, known, where)
    }
  }
}

/** Options resolved once: what every fit of a history with these options shares. */
export interface Setup {
  strategy: Strategy
  counter: TokenCounter
  budget: number
  reserve: number
  tools: ToolSchema[]
  toolTokens: number
  /** The provider API whose rules the request follows (the `provider` option, resolved once). */
  provider: ProviderRules
  transforms: Transform[]
  query: string | undefined
  summaries?: SummaryLedger | undefined
  /** The ledger as resolved (`false`: none), for a saved state to restore. */
  ledger: false | 'auto' | Required<LedgerOptions>
  /** No strategy was named: the default (`tokenLimited` under a budget, else `unbounded`). */
  defaultStrategy: boolean
  /** What the result should say about how it was fitted (a model's assumed figures). */
  notes?: string[] | undefined
  /** The `pin` option (the strategy is already wrapped to honour it and `pinned: true`). */
  pin?: Pin | undefined
  /** The recall tool is offered: what is left out or shortened says it can be asked back. */
  recall?: boolean
}

/**
 * The one place options are read: the strategy (built from its name, or the default), and
 * the budget, model, reserve, tools and provider, from `fit`'s options first and then from
 * what the strategy was told. Unknown options are refused, naming the closest known one.
 * `extraKeys` are options the caller reads itself (a `ChatContext`'s `store`, ...). `make`
 * makes the strategies only asynchronous callers run (summarizing, `mostRelevant` with an
 * `embed` function) when named: the callers that can run them pass it; without it, naming
 * summarizing is refused as asynchronous.
 */
export function resolveSetup(
  options: FitOptions,
  extraKeys: readonly string[] = [],
  make?: AsyncFactory,
): Setup {
  checkFitKeys(options, extraKeys)
  const given = options as Record<string, unknown>
  const named = typeof given.strategy === 'string' ? given.strategy : undefined
  const own = named !== undefined ? strategyOptionNames(named) : []
  const modelOption = checkString('model', given.model)
  const limitOption = given.budget
  if (limitOption !== undefined) checkCount('budget', limitOption, 1)

  let strategy: Strategy
  if (named !== undefined) {
    const picked: Record<string, unknown> = {}
    for (const key of own) if (given[key] !== undefined) picked[key] = given[key]
    strategy = makeStrategy(named, picked, make)
  } else if (given.strategy !== undefined) {
    strategy = checkStrategy(given.strategy)
  } else {
    const finite =
      limitOption !== undefined || (modelOption !== undefined && requireModel(modelOption))
    // Checked even when no budget makes the default strategy run.
    const defaults = defaultStrategyOptions(given)
    strategy = finite ? tokenLimited(defaults) : unbounded()
  }

  // One rule whatever the spelling: the strategy's own ledger (`withLedger`), else the one
  // asked for, else the strategy's default (`auto` for tokenLimited by name, object or default).
  const ledger = resolveLedger(given.ledger, strategy)
  const recall =
    given.recall === undefined || given.recall === false
      ? false
      : checkRecallOptions(given.recall as RecallOptions | true)
  const plain = ledgerBase(strategy)
  if (!ledger || plain.keepsSummaries) strategy = plain
  else if (ledger !== strategy.ledger || recall)
    strategy = withLedger(plain, ledger === 'auto' ? { when: 'tool-calls' } : ledger, {
      recall: recall !== false,
    })
  // Pinned messages are sent whatever the strategy: it (and its ledger) choose in the room
  // they leave (strategies/pins.ts).
  const pin = checkPin(given.pin)
  strategy = withPins(strategy, pin)

  const told = strategy.request ?? {}
  const modelId = modelOption ?? checkString('model', told.model)
  const model = modelId ? requireModel(modelId) : undefined
  if (told.limit !== undefined) checkCount('budget', told.limit, 1)
  // budget-rule.ts: both given, the smaller of budget and the strategy's limit wins (and a note says so).
  const limits = reconcileLimits(limitOption as number | undefined, told.limit, strategy.name)
  const limit = limits.limit
  const budget = limit ?? model?.contextWindow ?? Number.POSITIVE_INFINITY
  const reserveOption = given.reserve ?? told.reserve
  if (reserveOption !== undefined) checkCount('reserve', reserveOption, 0)
  const reserve =
    (reserveOption as number | undefined) ??
    (limit === undefined && model
      ? Math.min(model.maxOutputTokens, Math.floor(model.contextWindow / 4))
      : 0)
  const provider = rulesOf(given.provider as Provider | undefined)
  const counter =
    (given.counter as TokenCounter | undefined) ??
    (modelId ? counterFor(modelId) : provider.counter()) ??
    defaultCounter()
  const listed = toolSchemas((given.tools as readonly ToolInput[] | undefined) ?? told.tools)
  // The recall tool is sent with the request: it is counted like the others.
  const tools =
    recall && !listed.some((t) => t.name === RECALL_TOOL_NAME)
      ? [...listed, recallToolSchema()]
      : listed
  const transforms = given.transforms ?? []
  if (!Array.isArray(transforms))
    throw new InvalidOptionError('transforms', 'expected a list of transforms')
  return {
    strategy,
    counter,
    budget,
    reserve,
    tools,
    toolTokens: counter.countTools(tools),
    provider,
    transforms: [...(strategy.transforms ?? []), ...(transforms as Transform[])],
    query: checkString('query', given.query),
    summaries: given.summaries as SummaryLedger | undefined,
    ledger: plainLedger(ledger),
    defaultStrategy: given.strategy === undefined,
    ...((model?.assumed || limits.note) && {
      notes: [model?.assumed, limits.note].filter((n): n is string => n !== undefined),
    }),
    ...(pin && { pin }),
    ...(recall && { recall: true }),
  }
}

type ResolvedLedger = false | 'auto' | Required<LedgerOptions>

/**
 * The `ledger` option: given, it wins; else the strategy's own (`withLedger`), else its
 * default (`auto` for tokenLimited, none for the others). A summarizing strategy keeps facts
 * in its own summaries: none.
 */
function resolveLedger(value: unknown, strategy: Strategy): ResolvedLedger | Strategy['ledger'] {
  if (value === undefined) {
    if (strategy.keepsSummaries) return false
    return strategy.ledger ?? strategy.ledgerByDefault ?? false
  }
  if (value === false) return false
  if (value === 'auto') return 'auto'
  if (value === true) return checkLedgerOptions({})
  if (value && typeof value === 'object' && !Array.isArray(value))
    return checkLedgerOptions(value as LedgerOptions)
  throw new InvalidOptionError(
    'ledger',
    `expected true, false, "auto" or { share, maxTokens, when }, got ${describeValue(value)}`,
  )
}

/** A resolved ledger as plain data, for a saved state to restore. */
function plainLedger(ledger: ResolvedLedger | Strategy['ledger']): ResolvedLedger {
  return ledger && ledger !== 'auto' ? { ...ledger } : (ledger ?? false)
}

/** A strategy object, or a typed error saying what was given instead (a scorer, most often). */
function checkStrategy(value: unknown): Strategy {
  if (typeof value === 'function') {
    throw new InvalidOptionError(
      'strategy',
      'got a function: a scorer (such as relevance()) goes in scoreBased({ scorer }); a strategy is an object such as mostRelevant() or a name',
    )
  }
  const s = value as Partial<Strategy> | null
  if (!s || typeof s !== 'object' || typeof s.select !== 'function' || typeof s.name !== 'string')
    throw new InvalidOptionError('strategy', 'expected a strategy object or a strategy name')
  return s as Strategy
}

let sharedCounter: TokenCounter | undefined
function defaultCounter(): TokenCounter {
  sharedCounter ??= exactCounter()
  return sharedCounter
}

function checkString(option: string, value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') return value
  throw new InvalidOptionError(option, `expected a string, got ${describeValue(value)}`)
}

function checkCount(option: string, value: unknown, min: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new InvalidOptionError(
      option,
      `expected a finite number >= ${min}, got ${describeValue(value)}`,
    )
  }
}

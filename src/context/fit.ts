// Registers 'summarizing' by name, so configs, saved states and the CLI can name it.
import '../compress/index.js'
import { ContextOverflowError, InvalidInputError, InvalidOptionError } from '../errors.js'
import { messageIssue } from '../messages/check.js'
import type { FactReport } from '../messages/fact.js'
import type { Message, ToolSchema } from '../messages/message.js'
import { type ToolInput, toolSchemas } from '../messages/tool-shapes.js'
import { type Unit, UnitBuilder } from '../messages/units.js'
import {
  needsUserFirst,
  PROVIDERS,
  type ProblemCode,
  type Provider,
  repair,
  requireUserTurn,
} from '../messages/validate.js'
import type { ContextManagementReport } from '../native/context-management.js'
import { createStrategy, type StrategyOptionsByName } from '../strategies/index.js'
import { type StableOptions, tokenLimited } from '../strategies/token-limited.js'
import type {
  ChangeReason,
  PlanItem,
  Strategy,
  SummaryLedger,
  Transform,
  View,
} from '../strategies/types.js'
import { unbounded } from '../strategies/unbounded.js'
import type { TokenCounter } from '../tokens/counter.js'
import { counterFor, exactCounter, providerCounter, requireModel } from '../tokens/counters.js'
import { defaultStrategyOptions } from './default-strategy.js'

type NamedOptions = Partial<
  StrategyOptionsByName['buffered'] &
    StrategyOptionsByName['headAndTail'] &
    Omit<StrategyOptionsByName['tokenLimited'], 'tools'> &
    StrategyOptionsByName['userTurns']
> &
  Record<string, unknown>

export interface FitOptions extends NamedOptions {
  /** A strategy, or its name with its options given beside it. Default: `tokenLimited` under a budget, else `unbounded`. */
  strategy?: Strategy | string
  /** Tokens the whole request may use. Default: the strategy's `limit`, else the model's window. */
  budget?: number
  /** A model id: its window is the default budget and its counter the default counter. */
  model?: string
  /** How tokens are counted. Default: the model's counter, else exact o200k. */
  counter?: TokenCounter
  /** Tools sent with the request, in any SDK's shape: counted against the budget. */
  tools?: readonly ToolInput[]
  /** Tokens kept free for the reply. Default 0 with a budget; with only a model, its output limit (at most a quarter of the window). */
  reserve?: number
  /** Whose rules the output must pass. Default `openai`. */
  provider?: Provider
  /** What the next call is about, for relevance-based strategies. */
  query?: string
  /** Rewrites applied before selection, in order. */
  transforms?: Transform[]
  /** For the default `tokenLimited`: cut at fixed points so the prompt cache keeps hitting. */
  stable?: boolean | StableOptions
  /** Where a summarizing strategy keeps its summaries between calls (a `ChatContext` passes its own). */
  summaries?: SummaryLedger
}

export type Fate = 'kept' | 'changed' | 'dropped' | 'summarized' | 'invalid'

export interface MessageFate {
  fate: Fate
  /** Tokens of the input message (as counted before any change). */
  tokens: number
  /** Where it is in the output, when it is there. */
  position?: number
  /** Why it changed or went: a repair problem, a change reason, `budget`, `strategy`. */
  reason?: ProblemCode | ChangeReason | 'budget' | 'strategy' | 'placeholder' | 'summary'
}

export interface FitResult {
  /** What to send: fresh objects, safe to modify. */
  messages: Message[]
  /** Input indices present in the output (as is or changed), ascending. */
  kept: number[]
  /** Input indices absent from the output, ascending. */
  dropped: number[]
  /** Messages the strategy wrote, with the input indices each stands for. */
  inserted: {
    position: number
    message: Message
    replaces: number[]
    reason: 'placeholder' | 'summary'
    /** For a summary: the facts of the replaced messages it keeps, and those it had to re-insert. */
    facts?: FactReport
  }[]
  /** Input messages sent in a changed form. */
  changed: { index: number; position: number; reason: ChangeReason | ProblemCode }[]
  tokens: { messages: number; tools: number; priming: number; reserve: number; total: number }
  /** The budget the request was fitted to, or null when unbounded. */
  budget: number | null
  strategy: string
  /** One entry per input message: what happened to it and why. */
  fates: MessageFate[]
  /** Set by `withContextManagement`: which parts of a policy the provider ran, and what it reported. */
  contextManagement?: ContextManagementReport
}

/** Options resolved once: what every fit of a context shares. */
export interface Setup {
  strategy: Strategy
  counter: TokenCounter
  budget: number
  reserve: number
  tools: ToolSchema[]
  toolTokens: number
  provider: Provider
  transforms: Transform[]
  query: string | undefined
  summaries?: SummaryLedger | undefined
}

export function resolveSetup(options: FitOptions = {}): Setup {
  const so = (typeof options.strategy === 'object' ? options.strategy.options : {}) as NamedOptions
  const modelId = options.model ?? (so.model as string | undefined)
  const model = modelId ? requireModel(modelId) : undefined
  const limit = options.budget ?? (so.limit as number | undefined) ?? options.limit
  if (limit !== undefined) checkCount('budget', limit, 1)
  const budget = limit ?? model?.contextWindow ?? Number.POSITIVE_INFINITY
  const reserveOption = options.reserve ?? (so.reserve as number | undefined)
  if (reserveOption !== undefined) checkCount('reserve', reserveOption, 0)
  const reserve =
    reserveOption ??
    (limit === undefined && model
      ? Math.min(model.maxOutputTokens, Math.floor(model.contextWindow / 4))
      : 0)
  const counter =
    options.counter ??
    (modelId ? counterFor(modelId) : providerCounter(options.provider)) ??
    defaultCounter()
  const tools = toolSchemas(options.tools ?? (so.tools as ToolInput[] | undefined))
  const provider = options.provider ?? 'openai'
  if (!PROVIDERS.includes(provider)) {
    throw new InvalidOptionError(
      'provider',
      `expected one of ${PROVIDERS.join(', ')}, got ${JSON.stringify(provider)}`,
    )
  }
  let strategy: Strategy
  if (typeof options.strategy === 'string') strategy = createStrategy(options.strategy, options)
  else if (options.strategy) strategy = options.strategy
  else {
    const defaults = defaultStrategyOptions(options)
    strategy = Number.isFinite(budget) ? tokenLimited(defaults) : unbounded()
  }
  return {
    strategy,
    counter,
    budget,
    reserve,
    tools,
    toolTokens: counter.countTools(tools),
    provider,
    transforms: [...(strategy.transforms ?? []), ...(options.transforms ?? [])],
    query: options.query,
    summaries: options.summaries,
  }
}

let sharedCounter: TokenCounter | undefined
function defaultCounter(): TokenCounter {
  sharedCounter ??= exactCounter()
  return sharedCounter
}

function checkCount(option: string, value: unknown, min: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new InvalidOptionError(
      option,
      `expected a finite number >= ${min}, got ${JSON.stringify(value)}`,
    )
  }
}

const checked = new WeakSet<object>()

/** Schema-checks each message once (a message seen before is not checked again). */
export function checkMessages(
  messages: readonly unknown[],
): asserts messages is readonly Message[] {
  if (!Array.isArray(messages))
    throw new InvalidInputError('expected a list of messages', { field: 'messages' })
  for (let i = 0; i < messages.length; i++) checkMessage(messages[i], i)
}

export function checkMessage(m: unknown, index: number): asserts m is Message {
  if (m && typeof m === 'object' && checked.has(m)) return
  const issue = messageIssue(m)
  if (issue) {
    throw new InvalidInputError(issue.message, {
      index,
      field: issue.path.length ? issue.path.join('.') : 'role',
    })
  }
  checked.add(m as object)
}

/** A history made ready for strategies: repaired, transformed, counted, split into units. */
export interface Prepared {
  view: View
  /** Input index of each view message. */
  origin: number[]
  /** Input indices removed before selection: by the repair (invalid) or by a transform. */
  removed: Map<number, { fate: 'invalid' | 'dropped'; reason: ProblemCode | ChangeReason }>
  /** Input indices sent changed by repair or a transform, and why. */
  rewritten: Map<number, ChangeReason | ProblemCode>
}

export function prepare(input: readonly Message[], setup: Setup): Prepared {
  const fixed = repair(input, { provider: setup.provider })
  const removed: Prepared['removed'] = new Map(
    fixed.removed.map((r) => [r.index, { fate: 'invalid', reason: r.code }]),
  )
  const rewritten = new Map<number, ChangeReason | ProblemCode>(
    fixed.changed.map((c) => [c.index, c.code]),
  )
  let messages = fixed.messages
  let origin = fixed.origin
  let view = buildView(messages, setup)
  for (const transform of setup.transforms) {
    const changes = transform.apply(view)
    if (changes.size === 0) continue
    const nextMessages: Message[] = []
    const nextOrigin: number[] = []
    for (let i = 0; i < messages.length; i++) {
      const change = changes.get(i)
      const from = origin[i] as number
      if (change === null) {
        removed.set(from, { fate: 'dropped', reason: transformReason(transform.name) })
        rewritten.delete(from)
        continue
      }
      if (change !== undefined) rewritten.set(from, transformReason(transform.name))
      nextMessages.push(change ?? (messages[i] as Message))
      nextOrigin.push(from)
    }
    const repaired = repair(nextMessages, { provider: setup.provider })
    messages = repaired.messages
    origin = repaired.origin.map((k) => nextOrigin[k] as number)
    for (const r of repaired.removed) {
      removed.set(nextOrigin[r.index] as number, { fate: 'dropped', reason: r.code })
    }
    view = buildView(messages, setup)
  }
  return { view, origin, removed, rewritten }
}

function transformReason(name: string): ChangeReason {
  if (name === 'dropThoughts' || name === 'clearThinking') return 'thought-dropped'
  if (name === 'truncateMessages') return 'truncated'
  if (name === 'removeToolExchanges') return 'calls-removed'
  return 'cleared'
}

export function buildView(messages: readonly Message[], setup: Setup): View {
  const tokens = messages.map((m) => setup.counter.countMessage(m))
  const builder = new UnitBuilder()
  for (const m of messages) builder.push(m)
  const units = builder.units
  const unitTokens = new Array<number>(units.length)
  const unitPrefix = new Array<number>(units.length + 1)
  unitPrefix[0] = 0
  for (let u = 0; u < units.length; u++) {
    const unit = units[u] as Unit
    let t = 0
    for (let i = unit.start; i < unit.end; i++) t += tokens[i] as number
    unitTokens[u] = t
    unitPrefix[u + 1] = (unitPrefix[u] as number) + t
  }
  return viewOf(messages, units, tokens, unitTokens, unitPrefix, setup)
}

export function viewOf(
  messages: readonly Message[],
  units: readonly Unit[],
  tokens: readonly number[],
  unitTokens: readonly number[],
  unitPrefix: readonly number[],
  setup: Setup,
): View {
  const priming = setup.counter.replyPriming
  return {
    messages,
    units,
    tokens,
    unitTokens,
    unitPrefix,
    budget: setup.budget,
    available: setup.budget - setup.reserve - setup.toolTokens - priming,
    overhead: { tools: setup.toolTokens, reserve: setup.reserve, priming },
    counter: setup.counter,
    provider: setup.provider,
    query: setup.query,
    ...(setup.summaries && { summaries: setup.summaries }),
  }
}

/**
 * Fits a history to a budget: the messages to send and an account of every input message.
 * The input is never modified and the output shares no object with it.
 */
export function fit(messages: readonly Message[], options: FitOptions = {}): FitResult {
  checkMessages(messages)
  const setup = resolveSetup(options)
  const prepared = prepare(messages, setup)
  const plan = setup.strategy.select(prepared.view)
  if (plan instanceof Promise) {
    throw new InvalidOptionError('strategy', `${setup.strategy.name} is asynchronous: use fitAsync`)
  }
  return assemble(messages, prepared, plan, setup)
}

/** `fit` for strategies that call out (summarizers): same result, awaited. */
export async function fitAsync(
  messages: readonly Message[],
  options: FitOptions = {},
): Promise<FitResult> {
  checkMessages(messages)
  const setup = resolveSetup(options)
  const prepared = prepare(messages, setup)
  return assemble(messages, prepared, await setup.strategy.select(prepared.view), setup)
}

/** Items of one unit (or one synthetic message), dropped or kept together. */
interface Block {
  items: PlanItem[]
  tokens: number
  mandatory: boolean
  firstRole: Message['role']
}

export function planMessage(view: View, item: PlanItem): Message {
  return 'synthetic' in item
    ? item.synthetic
    : (item.message ?? (view.messages[item.index] as Message))
}

function planTokens(view: View, item: PlanItem): number {
  if ('synthetic' in item) return view.counter.countMessage(item.synthetic)
  return item.message
    ? view.counter.countMessage(item.message)
    : (view.tokens[item.index] as number)
}

/** Groups plan items by unit, marking the ones that must stay. */
function toBlocks(view: View, plan: PlanItem[]): Block[] {
  const unitOf = new Int32Array(view.messages.length)
  view.units.forEach((u, k) => {
    unitOf.fill(k, u.start, u.end)
  })
  const last = view.units.length - 1
  let lastUser = -1
  for (let u = last; u >= 0; u--) {
    if (view.messages[(view.units[u] as Unit).start]?.role === 'user') {
      lastUser = u
      break
    }
  }
  const blocks: Block[] = []
  let current = -2
  for (const item of plan) {
    const unit = 'synthetic' in item ? -1 : (unitOf[item.index] as number)
    const block = blocks[blocks.length - 1]
    if (block && unit !== -1 && unit === current) {
      block.items.push(item)
      block.tokens += planTokens(view, item)
      continue
    }
    current = unit
    const isSystem = unit >= 0 && view.units[unit]?.kind === 'system'
    blocks.push({
      items: [item],
      tokens: planTokens(view, item),
      mandatory: isSystem || (unit >= 0 && (unit === last || unit === lastUser)),
      firstRole: planMessage(view, item).role,
    })
  }
  return blocks
}

/** Drops the oldest optional blocks until the plan fits (for strategies that do not count). */
function enforceBudget(view: View, blocks: Block[]): Block[] {
  let total = 0
  for (const b of blocks) total += b.tokens
  if (total <= view.available) return blocks
  const out: Block[] = []
  for (const b of blocks) {
    if (total > view.available && !b.mandatory) {
      total -= b.tokens
      continue
    }
    out.push(b)
  }
  if (total > view.available) {
    const system = out
      .filter((b) => b.firstRole === 'system' && b.mandatory)
      .reduce((n, b) => n + b.tokens, 0)
    const { tools, reserve, priming } = view.overhead
    throw new ContextOverflowError('the system prompt and the newest turn', {
      required: total + tools + reserve + priming,
      budget: view.budget,
      breakdown: { system, 'newest turn': total - system, tools, reserve, priming },
    })
  }
  return out
}

/**
 * Anthropic: after the system prompt the first message is the user's. Leading items up to
 * the first user message go; they are whole units, since a unit never starts with a result.
 */
export function alignToUser(view: View, plan: PlanItem[]): PlanItem[] {
  let k = 0
  while (k < plan.length && planMessage(view, plan[k] as PlanItem).role === 'system') k++
  let j = k
  while (j < plan.length && planMessage(view, plan[j] as PlanItem).role !== 'user') j++
  if (j === k || j === plan.length) return plan
  return [...plan.slice(0, k), ...plan.slice(j)]
}

/**
 * A plan with no user message cannot be sent to Anthropic: the newest user message goes in,
 * in its place in time (the strategy's own choice is otherwise left alone).
 */
function withUserTurn(view: View, plan: PlanItem[]): PlanItem[] {
  if (plan.some((item) => planMessage(view, item).role === 'user')) return plan
  let u = view.units.length - 1
  while (u >= 0 && view.messages[(view.units[u] as Unit).start]?.role !== 'user') u--
  const unit = view.units[u]
  if (!unit) return plan
  const at = plan.findIndex((item) => 'index' in item && item.index > unit.start)
  const items: PlanItem[] = []
  for (let i = unit.start; i < unit.end; i++) items.push({ index: i })
  return at < 0 ? [...plan, ...items] : [...plan.slice(0, at), ...items, ...plan.slice(at)]
}

export function assemble(
  input: readonly Message[],
  prepared: Prepared,
  plan: PlanItem[],
  setup: Setup,
): FitResult {
  const { view, origin, removed, rewritten } = prepared
  const enforce = !setup.strategy.budgetAware && Number.isFinite(view.available)
  const anthropic = needsUserFirst(setup.provider)
  let blocks = toBlocks(view, anthropic ? withUserTurn(view, plan) : plan)
  if (enforce) blocks = enforceBudget(view, blocks)
  if (anthropic) {
    // The budget may have taken the only user message (a placeholder): bring the newest back.
    blocks = toBlocks(
      view,
      withUserTurn(
        view,
        blocks.flatMap((b) => b.items),
      ),
    )
    if (enforce) blocks = enforceBudget(view, blocks)
    blocks = toBlocks(
      view,
      alignToUser(
        view,
        blocks.flatMap((b) => b.items),
      ),
    )
  }

  // What the strategy chose but the budget then took out is dropped for the budget.
  const chosen = new Set<number>()
  if (!setup.strategy.budgetAware)
    for (const item of plan) if ('index' in item) chosen.add(origin[item.index] as number)
  const fates: MessageFate[] = new Array(input.length)
  for (let i = 0; i < input.length; i++) {
    const gone = removed.get(i)
    fates[i] = {
      fate: gone?.fate ?? 'dropped',
      tokens: setup.counter.countMessage(input[i] as Message),
      reason: gone?.reason ?? (setup.strategy.budgetAware || chosen.has(i) ? 'budget' : 'strategy'),
    }
  }
  const messages: Message[] = []
  const inserted: FitResult['inserted'] = []
  const changed: FitResult['changed'] = []
  let messageTokens = 0
  for (const block of blocks) {
    messageTokens += block.tokens
    for (const item of block.items) {
      const position = messages.length
      messages.push(structuredClone(planMessage(view, item)))
      if ('synthetic' in item) {
        const replaces = item.replaces.map((k) => origin[k] as number)
        inserted.push({
          position,
          message: messages[position] as Message,
          replaces,
          reason: item.reason,
          ...(item.facts && { facts: structuredClone(item.facts) }),
        })
        for (const k of replaces)
          Object.assign(fates[k] as MessageFate, { fate: 'summarized', reason: item.reason })
        continue
      }
      const from = origin[item.index] as number
      const reason = item.reason ?? rewritten.get(from)
      const fate = fates[from] as MessageFate
      fate.position = position
      if (reason) {
        fate.fate = 'changed'
        fate.reason = reason
        changed.push({ index: from, position, reason })
      } else {
        fate.fate = 'kept'
        delete fate.reason
      }
    }
  }
  requireUserTurn(messages, setup.provider, input.length)
  const kept: number[] = []
  const dropped: number[] = []
  fates.forEach((f, i) => {
    if (f.position !== undefined) kept.push(i)
    else dropped.push(i)
  })
  // A budget-aware strategy left room only it knew about: any leftover overflow is reported as such.
  if (messageTokens > view.available && Number.isFinite(view.available)) {
    const { tools, reserve, priming } = view.overhead
    throw new ContextOverflowError(`the ${setup.strategy.name} selection`, {
      required: messageTokens + tools + reserve + priming,
      budget: view.budget,
      breakdown: { messages: messageTokens, tools, reserve, priming },
    })
  }
  const priming = setup.counter.replyPriming
  return {
    messages,
    kept,
    dropped,
    inserted,
    changed,
    tokens: {
      messages: messageTokens,
      tools: setup.toolTokens,
      priming,
      reserve: setup.reserve,
      total: messageTokens + setup.toolTokens + priming,
    },
    budget: Number.isFinite(setup.budget) ? setup.budget : null,
    strategy: setup.strategy.name,
    fates,
  }
}

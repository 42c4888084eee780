import * as z from 'zod/mini'
import { InvalidInputError, InvalidOptionError, InvalidStateError } from '../errors.js'
import type { Format } from '../formats/detect.js'
import { type Message, messageSchema } from '../messages/message.js'
import { type Unit, UnitBuilder } from '../messages/units.js'
import {
  needsProviderRepair,
  needsRepair,
  needsUserFirst,
  PROVIDERS,
  requireUserTurn,
} from '../messages/validate.js'
import { type HistoryStore, StoreConflictError } from '../store/history-store.js'
import type {
  PlanItem,
  Strategy,
  SummaryEntry,
  SummaryLedger,
  Transform,
  View,
} from '../strategies/types.js'
import { calibrate } from './calibration.js'
import {
  alignToUser,
  assemble,
  checkMessage,
  type FitOptions,
  type FitResult,
  fit,
  fitAsync,
  planMessage,
  resolveSetup,
  type Setup,
  viewOf,
} from './fit.js'
import { toMessages } from './foreign.js'
import { checkedLimit, limitSetup } from './learned-limit.js'
import { buildFromState, optionsFromState } from './state-settings.js'
import { recountSummary, storedCount } from './stored-count.js'

export interface ChatContextOptions extends FitOptions {
  /** Messages the context starts with (and, by default, returns to on `clear()`). */
  initialMessages?: readonly Message[]
  /** Where the history lives, shared by every process on the same `id`. Default: this process's memory. */
  store?: HistoryStore
  /** The conversation's id in the store. */
  id?: string
  /**
   * The format messages are added in, so an SDK's messages go in as they come
   * (`'openai-chat'`, `'openai-responses'`, `'anthropic'`, `'gemini'`, ...); `'auto'` tells
   * each by its shape. Default: this library's `Message`.
   */
  format?: Format | 'auto'
}

export const STATE_TYPE = 'context-window/chat-context'
export const STATE_VERSION = 1

const stateSchema = z.object({
  type: z.literal(STATE_TYPE),
  version: z.int().check(z.positive()),
  messages: z.array(messageSchema),
  initialMessages: z._default(z.array(messageSchema), []),
  settings: z._default(
    z.object({
      strategy: z.optional(
        z.object({ name: z.string(), options: z.record(z.string(), z.unknown()) }),
      ),
      budget: z.optional(z.number().check(z.positive())),
      model: z.optional(z.string()),
      reserve: z.optional(z.number().check(z.nonnegative())),
      provider: z.optional(z.enum(PROVIDERS)),
      tools: z.optional(z.array(z.record(z.string(), z.unknown()))),
    }),
    {},
  ),
  /** Summaries kept beside the messages (optional: version-1 states without them still load). */
  summaries: z.optional(
    z.array(
      z.object({
        replaces: z.tuple([z.int().check(z.nonnegative()), z.int().check(z.positive())]),
        message: messageSchema,
        tokens: z.optional(z.int().check(z.nonnegative())),
        anchor: z.optional(z.string()),
      }),
    ),
  ),
  /** A window the provider's rejection taught (optional: states without it still load). */
  limit: z.optional(z.object({ window: z.int().check(z.positive()) })),
})

/** Plain JSON that holds a context's messages and the settings to rebuild it. */
export type ChatContextState = z.input<typeof stateSchema>

/**
 * A conversation's history and the policy that decides what of it is sent (AutoGen's
 * `ChatCompletionContext`). Each message is counted once, when it is added; the context
 * keeps running sums over units, so a budget-aware strategy serves `getMessages` with a
 * search and a copy of what it returns, however long the history.
 */
export class ChatContext {
  private readonly options: ChatContextOptions
  /** The setup as configured, and as fitted to a window learnt from the provider. */
  private readonly baseSetup: Setup
  private setup: Setup
  private learned: number | undefined
  private readonly initial: Message[]
  private messages: Message[] = []
  private tokens: number[] = []
  private builder = new UnitBuilder()
  private unitTokens: number[] = []
  private unitPrefix: number[] = [0]
  /** Units that make the history invalid as it stands (orphans, exchanges left unanswered). */
  private broken = 0
  private callIds = new Set<string>()
  private reusedIds = false
  /** A message the provider's own repair takes out (a compaction item, a turn Gemini cannot send). */
  private providerRepair = false
  private anyNonSystem = false
  /** Summaries a strategy made, beside the history (which they never replace). */
  private summaryList: SummaryEntry[] = []
  private readonly ledger: SummaryLedger = {
    list: () => this.summaryList,
    add: (entries) => {
      for (const e of entries) this.summaryList.push(frozenCopy(e))
      const store = this.store
      if (!store) return
      // Kept in the store beside the messages, after this context's pending writes. A lost
      // summary costs a new one later, never a message: a failed write is not an error here.
      this.writing = this.writing
        .then(async () => {
          for (const e of entries) await store.putSummary(this.id, e)
        })
        .catch(() => {})
    },
  }

  constructor(options: ChatContextOptions = {}) {
    this.options = options
    this.baseSetup = resolveSetup({ ...options, summaries: this.ledger })
    this.setup = this.baseSetup
    this.initial = (options.initialMessages ?? []).map((m, i) => {
      checkMessage(m, i)
      return frozenCopy(m)
    })
    if (options.store) {
      if (!options.id)
        throw new InvalidOptionError('id', 'a context over a store needs the conversation id')
      this.store = options.store
      this.id = options.id
    } else {
      for (const m of this.initial) this.append(m)
    }
  }

  private readonly store: HistoryStore | undefined
  private readonly id: string = ''
  /** Writes to the store, in the order they were asked for. */
  private writing: Promise<unknown> = Promise.resolve()
  private seeded = false

  /**
   * Reads what other processes appended to the store since the last read, with their
   * stored counts (nothing is counted twice), and waits for this context's own writes.
   * `getMessages` does this first; call it before `getMessagesSync` to see others' messages.
   */
  async sync(): Promise<void> {
    const store = this.store
    if (!store) return
    await this.writing
    if (!this.seeded) {
      await this.seed()
      this.seeded = true
    }
    if (store.limit) this.setLimit(await store.limit(this.id))
    const length = await store.length(this.id)
    // The store lost messages (cleared elsewhere, or a server restarted empty): start over from it.
    if (length < this.messages.length || this.stale) this.reset([])
    this.stale = false
    if (length === this.messages.length) return
    for (const e of await store.read(this.id, this.messages.length)) {
      this.append(frozenCopy(e.message), storedCount(e, this.setup.counter))
    }
    // Summaries other processes made for these messages: served without summarizing again.
    if (this.setup.strategy.name === 'summarizing') {
      this.summaryList = (await store.summaries(this.id)).map((e) =>
        frozenCopy(recountSummary(e, this.setup.counter)),
      )
    }
  }

  /** Set when an append finds fewer messages in the store than this context holds. */
  private stale = false

  /** The initial messages go into an empty conversation once, whoever gets there first. */
  private async seed(): Promise<void> {
    const store = this.store as HistoryStore
    if (!this.initial.length || (await store.length(this.id)) > 0) return
    await store
      .append(
        this.id,
        this.initial.map((m) => this.entry(m)),
        { expectedLength: 0 },
      )
      .catch((e) => {
        if (!(e instanceof StoreConflictError)) throw e
      })
  }

  private entry(m: Message) {
    return {
      message: m,
      tokens: this.setup.counter.countMessage(m),
      counter: this.setup.counter.name,
    }
  }

  private write(messages: Message[]): Promise<void> {
    const store = this.store as HistoryStore
    const job = this.writing
      .then(() => (this.seeded ? undefined : this.seed()))
      .then(async () => {
        this.seeded = true
        const length = await store.append(
          this.id,
          messages.map((m) => this.entry(m)),
        )
        if (length < this.messages.length + messages.length) this.stale = true
      })
    // A failed write rejects this call and the next sync, and does not block later writes.
    this.writing = job.catch(() => {})
    return job.then(() => undefined)
  }

  /** The messages the context started with (copies). */
  get initialMessages(): Message[] {
    return structuredClone(this.initial)
  }

  get strategy(): Strategy {
    return this.setup.strategy
  }

  get transforms(): Transform[] {
    return [...this.setup.transforms]
  }

  /** How many messages the history holds. */
  get length(): number {
    return this.messages.length
  }

  /** Tokens of the whole stored history (not of what `getMessages` returns). */
  get historyTokens(): number {
    return this.unitPrefix[this.unitPrefix.length - 1] as number
  }

  /**
   * Adds a message to the history; it is validated and copied, so later edits by the caller
   * do not reach it. Over a store, the returned promise settles when the store has it.
   */
  addMessage(message: Message | object): Promise<void> {
    // In an SDK's format, one message may decode to several: added together.
    if (this.options.format !== undefined) return this.addMessages([message])
    checkMessage(message, this.messages.length)
    if (this.store) return this.write([frozenCopy(message)])
    this.append(frozenCopy(message))
    return Promise.resolve()
  }

  /** Adds several messages at once (atomically, over a store). */
  addMessages(input: readonly (Message | object)[]): Promise<void> {
    if (!Array.isArray(input))
      throw new InvalidInputError('expected a list of messages', { field: 'messages' })
    const messages =
      this.options.format !== undefined
        ? toMessages(input, this.options.format, this.messages.length, this.messages.at(-1))
        : (input as readonly Message[])
    messages.forEach((m, k) => {
      checkMessage(m, this.messages.length + k)
    })
    if (this.store) return this.write(messages.map((m) => frozenCopy(m)))
    for (const m of messages) this.append(frozenCopy(m))
    return Promise.resolve()
  }

  private append(m: Message, counted?: number): void {
    const t = counted ?? this.setup.counter.countMessage(m)
    const units = this.builder.units
    const before = units[units.length - 1]
    const beforeWasOpen = before?.kind === 'exchange' && !before.complete
    const extended = this.builder.push(m)
    this.messages.push(m)
    this.tokens.push(t)
    if (extended) {
      const k = this.unitTokens.length - 1
      this.unitTokens[k] = (this.unitTokens[k] as number) + t
      this.unitPrefix[k + 1] = (this.unitPrefix[k + 1] as number) + t
    } else {
      // A new unit: an exchange still open before it will never be answered now.
      if (beforeWasOpen) this.broken++
      const last = units[units.length - 1] as Unit
      if (last.kind === 'orphan') this.broken++
      this.unitTokens.push(t)
      this.unitPrefix.push((this.unitPrefix[this.unitPrefix.length - 1] as number) + t)
    }
    if (needsRepair(m, this.setup.provider)) this.broken++
    if (needsProviderRepair(this.setup.provider, m, this.anyNonSystem)) this.providerRepair = true
    if (m.role !== 'system') this.anyNonSystem = true
    if (m.role === 'assistant') {
      for (const c of m.toolCalls ?? []) {
        if (this.callIds.has(c.id)) this.reusedIds = true
        this.callIds.add(c.id)
      }
    }
  }

  /** The history is valid as stored, so no repair pass is needed. */
  private isClean(): boolean {
    const units = this.builder.units
    const last = units[units.length - 1]
    const lastOpen = last?.kind === 'exchange' && !last.complete
    return (
      this.broken === 0 &&
      !lastOpen &&
      !(this.reusedIds && this.setup.provider === 'anthropic') &&
      !this.providerRepair
    )
  }

  private view(): View {
    const view = viewOf(
      this.messages,
      this.builder.units,
      this.tokens,
      this.unitTokens,
      this.unitPrefix,
      this.setup,
    )
    if (this.calibration === 1) return view
    // Counts stay as counted; the room they may fill shrinks or grows by the measured ratio.
    return { ...view, available: Math.floor(view.available / this.calibration) }
  }

  /** Provider tokens per counted token, learnt from reported usage (1 until told otherwise). */
  private calibration = 1
  private ratio: number | undefined
  private lastSent: { messages: number; overhead: number } | undefined

  /**
   * Tells the context what the provider reported for the request it just sent (its input
   * or prompt tokens). For models whose tokenizer is estimated, later views are sized by the
   * measured ratio (smoothed, plus `margin`) so they neither overflow nor waste room.
   */
  recordUsage(
    usage: { promptTokens: number },
    options: { margin?: number } = {},
  ): { ratio: number; factor: number } {
    const counted = this.lastSent ? this.lastSent.messages + this.lastSent.overhead : 0
    const next = calibrate(
      { ratio: this.ratio, factor: this.calibration },
      usage?.promptTokens,
      counted,
      options.margin,
    )
    this.ratio = next.ratio
    this.calibration = next.factor
    return { ratio: this.ratio ?? 1, factor: this.calibration }
  }

  /** The budget the context fits to, or undefined when unbounded. */
  get budget(): number | undefined {
    return Number.isFinite(this.setup.budget) ? this.setup.budget : undefined
  }

  /** The factor applied to counts after `recordUsage` (1 before). */
  get usageFactor(): number {
    return this.calibration
  }

  /**
   * What to send now: the strategy's view of the history, in a new array. Messages from the
   * history are frozen (an edit throws instead of changing the history); `fit()` returns
   * fresh, editable copies instead. Works with every strategy, asynchronous ones included.
   */
  async getMessages(options: { budget?: number } = {}): Promise<Message[]> {
    await this.sync()
    if (options.budget !== undefined) {
      const r = await fitAsync(this.messages, { ...this.fitOptions(), budget: options.budget })
      this.remember(r.tokens.messages)
      return r.messages
    }
    if (!this.isFastPath()) {
      const r = await this.fit()
      this.remember(r.tokens.messages)
      return r.messages
    }
    return this.fromPlan(await this.setup.strategy.select(this.view()))
  }

  /** `getMessages` for synchronous strategies, without a promise. */
  getMessagesSync(): Message[] {
    if (!this.isFastPath()) {
      const r = this.fitSync()
      this.remember(r.tokens.messages)
      return r.messages
    }
    const plan = this.setup.strategy.select(this.view())
    if (plan instanceof Promise) {
      throw new InvalidOptionError(
        'strategy',
        `${this.setup.strategy.name} is asynchronous: use getMessages`,
      )
    }
    return this.fromPlan(plan)
  }

  /** A valid history, no transforms, a strategy that needs no pass after it: nothing is done per stored message. */
  private isFastPath(): boolean {
    const { strategy, transforms, budget, provider } = this.setup
    // A strategy that does not count needs the budget pass (and, for Anthropic, the user-turn rule) of fit.
    const selfContained =
      strategy.budgetAware || (!Number.isFinite(budget) && provider === 'openai')
    return selfContained && transforms.length === 0 && this.isClean()
  }

  private fromPlan(plan: PlanItem[]): Message[] {
    const view = this.view()
    const items = needsUserFirst(this.setup.provider) ? alignToUser(view, plan) : plan
    // Stored messages are frozen copies: handing them out costs a pointer each, and the
    // caller's edits cannot reach the history (they throw instead).
    const out = items.map((item) => planMessage(view, item))
    requireUserTurn(out, this.setup.provider, this.messages.length)
    // Stored counts, not a recount: only messages the strategy wrote are counted here.
    let n = 0
    for (const item of items) {
      if ('synthetic' in item) n += view.counter.countMessage(item.synthetic)
      else
        n += item.message
          ? view.counter.countMessage(item.message)
          : (view.tokens[item.index] as number)
    }
    this.remember(n)
    return out
  }

  /** What the last view sent, so reported usage can be compared with it. */
  private remember(messageTokens: number): void {
    this.lastSent = {
      messages: messageTokens,
      overhead: this.setup.toolTokens + this.setup.counter.replyPriming,
    }
  }

  /** The full account: what is sent, what was kept, dropped or changed, and why. */
  async fit(): Promise<FitResult> {
    await this.sync()
    return fitAsync(this.messages, this.fitOptions())
  }

  fitSync(): FitResult {
    const setup = this.setup
    if (!this.isClean() || setup.transforms.length > 0) {
      // The general path repairs and transforms first.
      return fit(this.messages, this.fitOptions())
    }
    const view = this.view()
    const plan = setup.strategy.select(view)
    if (plan instanceof Promise) {
      throw new InvalidOptionError('strategy', `${setup.strategy.name} is asynchronous: use fit()`)
    }
    return assemble(
      this.messages,
      { view, origin: view.messages.map((_, i) => i), removed: new Map(), rewritten: new Map() },
      plan,
      setup,
    )
  }

  private fitOptions(): FitOptions {
    return {
      ...this.options,
      strategy: this.setup.strategy,
      counter: this.setup.counter,
      summaries: this.ledger,
      ...(this.learned !== undefined && { budget: this.setup.budget, reserve: this.setup.reserve }),
    }
  }

  /** The window a provider's rejection taught (see `learnLimit`), until `forgetLimit`. */
  get learnedLimit(): number | undefined {
    return this.learned
  }

  /**
   * Remembers the provider's window (what "maximum context length is N" says): every later
   * view fits within it, the reserve taken from it once. A smaller figure replaces a larger
   * one; it is kept in `saveState` and, over a store, shared with every process on this id.
   */
  async learnLimit(window: number): Promise<void> {
    const w = checkedLimit(window)
    if (w === undefined)
      throw new InvalidOptionError(
        'window',
        `expected a whole number of tokens >= 1, got ${JSON.stringify(window)}`,
      )
    this.setLimit(this.learned === undefined ? w : Math.min(this.learned, w))
    await this.store?.putLimit?.(this.id, this.learned ?? null)
  }

  /** Forgets a learnt window (the deployment changed): views fit the configured budget again. */
  async forgetLimit(): Promise<void> {
    this.setLimit(undefined)
    await this.store?.putLimit?.(this.id, null)
  }

  private setLimit(window: number | undefined): void {
    const learned = checkedLimit(window)
    if (learned === this.learned) return
    this.learned = learned
    this.setup = limitSetup(this.baseSetup, this.learned, this.options.reserve)
  }

  /**
   * Empties the history. By default the initial messages come back (the system prompt
   * stays); `{ initial: false }` empties it completely, as AutoGen's `clear()` does.
   */
  async clear(options: { initial?: boolean } = {}): Promise<void> {
    const keep = options.initial === false ? [] : this.initial
    this.reset(keep)
    if (!this.store) return
    await this.writing
    await this.store.clear(this.id)
    this.reset([])
    this.seeded = true
    if (keep.length) await this.write([...keep])
  }

  private reset(messages: readonly Message[]): void {
    this.messages = []
    this.tokens = []
    this.builder = new UnitBuilder()
    this.unitTokens = []
    this.unitPrefix = [0]
    this.broken = 0
    this.callIds = new Set()
    this.reusedIds = false
    this.providerRepair = false
    this.anyNonSystem = false
    this.summaryList = []
    for (const m of messages) this.append(frozenCopy(m))
  }

  /** The stored history (copies), not the strategy's view of it. */
  history(): Message[] {
    return structuredClone(this.messages)
  }

  /** Summaries made so far (copies), oldest first, each with the history positions `[from, to)` it stands for. */
  summaries(): SummaryEntry[] {
    return structuredClone(this.summaryList)
  }

  /** Summaries of a saved state that fall inside its history. */
  private restoreSummaries(summaries: readonly SummaryEntry[] | undefined): void {
    this.summaryList = (summaries ?? [])
      .filter((e) => e.replaces[0] < e.replaces[1] && e.replaces[1] <= this.messages.length)
      .map((e) => frozenCopy(recountSummary(e, this.setup.counter)))
  }

  /** Versioned plain JSON: the history, the initial messages, the summaries and the settings. */
  saveState(): ChatContextState {
    const { strategy } = this.setup
    const settings: ChatContextState['settings'] = {
      strategy: {
        name: strategy.name,
        options: JSON.parse(JSON.stringify(strategy.options ?? {})),
      },
      provider: this.setup.provider,
    }
    if (Number.isFinite(this.setup.budget) && this.options.budget !== undefined)
      settings.budget = this.setup.budget
    if (this.options.model) settings.model = this.options.model
    if (this.options.reserve !== undefined) settings.reserve = this.options.reserve
    if (this.setup.tools.length) settings.tools = structuredClone(this.setup.tools)
    return {
      type: STATE_TYPE,
      version: STATE_VERSION,
      messages: structuredClone(this.messages),
      initialMessages: structuredClone(this.initial),
      settings,
      ...(this.summaryList.length > 0 && { summaries: structuredClone(this.summaryList) }),
      ...(this.learned !== undefined && { limit: { window: this.learned } }),
    }
  }

  /**
   * Replaces the history with a saved one (the settings stay this context's: use
   * `ChatContext.fromState` to rebuild them too). A state that fails the schema or comes
   * from a newer version is refused and the context is left as it was.
   */
  loadState(state: unknown): void {
    const parsed = parseState(state)
    this.reset(parsed.messages as Message[])
    this.restoreSummaries(parsed.summaries as SummaryEntry[] | undefined)
  }

  /** A context rebuilt from a saved state: history, initial messages and settings. */
  static fromState(state: unknown, overrides: ChatContextOptions = {}): ChatContext {
    const parsed = parseState(state)
    const settings = optionsFromState(parsed.settings) as FitOptions
    const ctx = buildFromState(
      () =>
        new ChatContext({
          ...settings,
          initialMessages: parsed.initialMessages as Message[],
          ...overrides,
        }),
    )
    ctx.reset(parsed.messages as Message[])
    ctx.restoreSummaries(parsed.summaries as SummaryEntry[] | undefined)
    if (parsed.limit) ctx.setLimit(parsed.limit.window)
    return ctx
  }
}

function parseState(state: unknown): z.output<typeof stateSchema> {
  if (state && typeof state === 'object' && 'version' in state) {
    const version = (state as { version: unknown }).version
    if (typeof version === 'number' && version > STATE_VERSION) {
      throw new InvalidStateError(
        `state version ${version} is newer than this library reads (${STATE_VERSION}): upgrade context-window`,
      )
    }
  }
  const parsed = stateSchema.safeParse(state)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const path = issue?.path.join('.') ?? ''
    const where = /^messages\.(\d+)\.?(.*)$/.exec(path)
    if (where) {
      const err = new InvalidInputError(issue?.message ?? 'invalid', {
        source: 'state',
        index: Number(where[1]),
        field: where[2] || 'message',
      })
      throw new InvalidStateError(`invalid state: ${err.message}`)
    }
    throw new InvalidStateError(
      `invalid state: ${path ? `field ${path}: ` : ''}${issue?.message ?? 'not a state'}`,
    )
  }
  return parsed.data
}

/** A deep copy that cannot be modified: what the history stores. One pass, no structuredClone. */
function frozenCopy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as T
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value))
    out[key] = frozenCopy((value as Record<string, unknown>)[key])
  return Object.freeze(out) as T
}

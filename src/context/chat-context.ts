import * as z from 'zod/mini'
import { asyncStrategyFromOptions } from '../compress/index.js'
import { supersede } from '../compress/summarizing.js'
import { InvalidInputError, InvalidOptionError, InvalidStateError } from '../errors.js'
import { detectFormat, FORMATS, type Format, providerOfFormat } from '../formats/detect.js'
import { messageIssue } from '../messages/check.js'
import { type Message, messageSchema } from '../messages/message.js'
import { describeValue } from '../options-check.js'
import { providerApiOfFormat } from '../providers/index.js'
import { PROVIDERS, type Provider } from '../providers/validate.js'
import type { RecallOptions } from '../recall/definition.js'
import { recallText } from '../recall/tool.js'
import { newAppendId } from '../store/append-id.js'
import { type HistoryStore, StoreConflictError } from '../store/history-store.js'
import type {
  PlanItem,
  Strategy,
  SummaryEntry,
  SummaryLedger,
  Transform,
} from '../strategies/types.js'
import { assemble, sendable } from './assemble.js'
import { calibrate } from './calibration.js'
import { checkList, checkMessage } from './check.js'
import { copyPlain } from './copy.js'
import { toMessages } from './foreign.js'
import { HistoryIndex } from './history-index.js'
import { checkedLimit, limitSetup, mergeLimits } from './learned-limit.js'
import type { DefaultStrategyOptions, FitOptions } from './options.js'
import { resolveSetup, type Setup } from './options.js'
import { type Prepared, prepare } from './prepare.js'
import type { FitResult } from './result.js'
import { buildFromState, optionsFromState } from './state-settings.js'
import { recountSummary, storedCount } from './stored-count.js'

/** What a context takes besides `fit`'s options. */
export interface ContextOwnOptions {
  /** Messages the context starts with (and, by default, returns to on `clear()`). */
  initialMessages?: readonly Message[] | undefined
  /** Where the history lives, shared by every process on the same `id`. Default: this process's memory. */
  store?: HistoryStore | undefined
  /** The conversation's id in the store. */
  id?: string | undefined
  /**
   * The format messages are added in, so an SDK's messages go in as they come
   * (`'openai-chat'`, `'openai-responses'`, `'anthropic'`, `'gemini'`, ...); `'auto'` tells
   * each by its shape. Default: this library's `Message`. Messages come out as `Message`s
   * whatever the format (one history, sent to any provider): send them with the format's
   * writer, `toOpenAIChat(await ctx.getMessages())`.
   */
  format?: Format | 'auto' | undefined
}

/** `fit`'s options plus the context's own: a misspelt option is a compile error and an `InvalidOptionError`. */
export type ChatContextOptions = FitOptions & ContextOwnOptions

/** Option names a context reads itself, beside `fit`'s. */
export const CONTEXT_OPTIONS: readonly string[] = ['initialMessages', 'store', 'id', 'format']

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
      /** The default strategy's own options (a state without `strategy` keeps the default). */
      stable: z.optional(
        z.union([
          z.boolean(),
          z.object({ lowWater: z.optional(z.number()), evictAtLeast: z.optional(z.number()) }),
        ]),
      ),
      dropFrom: z.optional(z.enum(['oldest', 'middle'])),
      budget: z.optional(z.number().check(z.positive())),
      model: z.optional(z.string()),
      reserve: z.optional(z.number().check(z.nonnegative())),
      provider: z.optional(z.enum(PROVIDERS)),
      tools: z.optional(z.array(z.record(z.string(), z.unknown()))),
      ledger: z.optional(
        z.union([
          z.literal('auto'),
          z.boolean(),
          z.object({
            share: z.number(),
            maxTokens: z.number(),
            when: z.enum(['always', 'tool-calls']),
          }),
        ]),
      ),
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
  /** The history, checked, repaired for the provider, counted and grouped as it arrives. */
  private index: HistoryIndex
  /** Summaries a strategy made, beside the history (which they never replace). */
  private summaryList: SummaryEntry[] = []
  private readonly ledger: SummaryLedger = {
    list: () => this.summaryList,
    add: (entries) => {
      // A new summary supersedes those it folds in: the state holds one, not every one made.
      this.summaryList = supersede(
        this.summaryList,
        entries.map((e) => frozenCopy(e)),
      )
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
    if (options === null || typeof options !== 'object' || Array.isArray(options))
      throw new InvalidOptionError('options', 'expected an object of ChatContext options')
    this.options = options
    this.baseSetup = resolveSetup(
      { ...options, provider: providerFromFormat(options), summaries: this.ledger } as FitOptions,
      CONTEXT_OPTIONS,
      asyncStrategyFromOptions,
    )
    this.setup = this.baseSetup
    this.index = this.newIndex()
    const initial = options.initialMessages ?? []
    checkList(initial)
    // Array.from visits the holes of a sparse list (map and forEach skip them).
    this.initial = Array.from(initial, (m, i) => {
      checkMessage(m, i)
      return frozenCopy(m)
    })
    if (options.store) {
      if (!options.id)
        throw new InvalidOptionError('id', 'a context over a store needs the conversation id')
      this.store = options.store
      this.id = options.id
    } else {
      for (const m of this.initial) this.index.push(m)
    }
  }

  /** Every message reaches the index checked (added, loaded from a state, read from the store). */
  private newIndex(): HistoryIndex {
    return new HistoryIndex(this.setup.counter, this.setup.provider, true, true)
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
    if (!store) {
      this.releaseHeld()
      return
    }
    await this.releaseRun()
    await this.writing
    if (!this.seeded) {
      await this.seed()
      this.seeded = true
    }
    if (store.limit) this.setLimit(await store.limit(this.id))
    let length = await store.length(this.id)
    // The store lost messages (cleared elsewhere, expired, or a server restarted empty): start
    // over from it, with the initial messages first again when it lost them all.
    if (length < this.index.length || this.stale) {
      this.reset([])
      if (length === 0 && this.initial.length > 0 && !this.clearedInitial) {
        await this.seed()
        length = await store.length(this.id)
      }
    }
    this.stale = false
    // Every write of this context is in the store now: what it holds is read below.
    this.unread = 0
    this.written = []
    if (length === this.index.length) return
    for (const e of await store.read(this.id, this.index.length)) {
      checkMessage(e.message, this.index.length)
      this.index.push(frozenCopy(e.message), storedCount(e, this.setup.counter))
    }
    // Summaries other processes made for these messages: served without summarizing again.
    if (this.setup.strategy.keepsSummaries) {
      this.summaryList = supersede(
        [],
        (await store.summaries(this.id))
          .filter((e) => servableSummary(e.message))
          .map((e) => frozenCopy(recountSummary(e, this.setup.counter))),
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
        { expectedLength: 0, appendId: newAppendId() },
      )
      .then(() => {
        this.unread += this.initial.length
      })
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

  /** Messages this context wrote to its store that its index has not read back yet. */
  private unread = 0

  /** Where the next added message goes: an error about it names this position. */
  private get nextPosition(): number {
    // Over a store, this context's own writes not read back yet, and the initial messages it will seed.
    const seeding = this.store && !this.seeded ? this.initial.length : 0
    return this.index.length + this.unread + seeding
  }

  private write(messages: Message[]): Promise<void> {
    this.unread += messages.length
    const store = this.store as HistoryStore
    // One id per write: a store that receives it twice (a resend after a lost reply) keeps one copy.
    const appendId = newAppendId()
    const job = this.writing
      .then(() => (this.seeded ? undefined : this.seed()))
      .then(async () => {
        this.seeded = true
        // A store that lost the conversation gets the initial messages first again.
        const seed =
          this.initial.length > 0 && !this.clearedInitial
            ? { seed: this.initial.map((m) => this.entry(m)) }
            : {}
        const length = await store.append(
          this.id,
          messages.map((m) => this.entry(m)),
          { ...seed, appendId },
        )
        if (length < this.index.length + messages.length) this.stale = true
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
    this.releaseHeld()
    return this.index.length
  }

  /** Tokens of the whole stored history (not of what `getMessages` returns). */
  get historyTokens(): number {
    this.releaseHeld()
    return this.index.inputTotal
  }

  /**
   * Adds a message to the history; it is validated and copied, so later edits by the caller
   * do not reach it. Over a store, the returned promise settles when the store has it.
   */
  addMessage(message: Message | object): Promise<void> {
    // In an SDK's format, one message may decode to several: added together.
    if (this.options.format !== undefined) return this.addMessages([message])
    checkWithHint(message, this.nextPosition)
    if (this.store) return this.write([frozenCopy(message)])
    this.index.push(frozenCopy(message))
    return Promise.resolve()
  }

  /**
   * Adds several messages at once (atomically, over a store). In the Responses format, the
   * model's items (reasoning, its message, its calls) are one run, decoded as one assistant
   * message as `fit` decodes them: items added one at a time are held until an item of
   * another kind arrives or the context is read, then added together.
   */
  addMessages(input: readonly (Message | object)[]): Promise<void> {
    checkList(input)
    let list: readonly (Message | object)[] = input
    const inRun = providerApiOfFormat(this.options.format)?.inModelRun
    if (inRun) {
      const all = [...this.heldRun, ...input]
      let cut = all.length
      while (cut > 0 && inRun(all[cut - 1])) cut--
      const held = all.slice(cut)
      // Checked now, so a bad item is refused when it is added, not when the run is read.
      if (held.length > 0) this.decode(held, this.nextPosition)
      this.heldRun = held
      list = all.slice(0, cut)
      if (list.length === 0) return Promise.resolve()
    }
    return this.append(list)
  }

  /** Responses model items added but not yet decoded: the run they start is not whole yet. */
  private heldRun: object[] = []

  /**
   * Before a synchronous read: the held run goes into the history (over a store it is written
   * there, and read back by the next `sync`, as every write of this context is).
   */
  private releaseHeld(): void {
    if (this.heldRun.length === 0) return
    if (!this.store) {
      this.releaseRun()
      return
    }
    this.releaseRun().catch(() => {})
  }

  /** Adds the held run of Responses model items, when there is one. */
  private releaseRun(): Promise<void> {
    if (this.heldRun.length === 0) return Promise.resolve()
    const run = this.heldRun
    this.heldRun = []
    return this.append(run)
  }

  private decode(input: readonly (Message | object)[], at: number): readonly Message[] {
    if (this.options.format === undefined) return input as readonly Message[]
    return toMessages(input, this.options.format, at, this.newest(0), this.openCalls())
  }

  /**
   * Messages this context wrote to its store and has not read back yet: a turn added next
   * answers their calls as it would in memory (read back, the index holds them).
   */
  private written: Message[] = []

  /** The message `back` places before the newest, its own writes not read back yet included. */
  private newest(back: number): Message | undefined {
    const w = this.written
    if (back < w.length) return w[w.length - 1 - back]
    return this.index.input.at(-1 - (back - w.length))
  }

  /** Names of the calls the newest results may answer: those of the last assistant message. */
  private openCalls(): Map<string, string> {
    const calls = new Map<string, string>()
    const total = this.written.length + this.index.input.length
    for (let back = 0; back < total; back++) {
      const m = this.newest(back) as Message
      if (m.role === 'tool') continue
      if (m.role === 'assistant') for (const c of m.toolCalls ?? []) calls.set(c.id, c.name)
      break
    }
    return calls
  }

  private append(input: readonly (Message | object)[]): Promise<void> {
    const at = this.nextPosition
    const messages = this.decode(input, at)
    // Every index, holes of a sparse list included (forEach would skip them).
    for (let k = 0; k < messages.length; k++)
      if (this.options.format === undefined) checkWithHint(messages[k], at + k)
      else checkMessage(messages[k], at + k)
    if (this.store) {
      const copies = messages.map((m) => frozenCopy(m))
      this.written.push(...copies)
      return this.write(copies)
    }
    for (const m of messages) this.index.push(frozenCopy(m))
    return Promise.resolve()
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
   * fresh, editable copies instead. Works with every strategy, asynchronous ones included;
   * over a store it first reads what other processes appended.
   */
  async getMessages(options: { budget?: number } = {}): Promise<Message[]> {
    await this.sync()
    const setup = this.setupFor(options)
    const planned = this.plan(setup)
    // A synchronous plan is assembled at once: nothing may be appended between the two.
    const { prepared, plan } = planned instanceof Promise ? await planned : planned
    return this.sent(sendable(prepared, plan, setup, { share: true }))
  }

  /** `getMessages` for synchronous strategies, without a promise (and without reading the store). */
  getMessagesSync(options: { budget?: number } = {}): Message[] {
    this.releaseHeld()
    const setup = this.setupFor(options)
    const { prepared, plan } = this.planSync(setup, 'getMessages')
    return this.sent(sendable(prepared, plan, setup, { share: true }))
  }

  /** The full account of what `getMessages` sends: kept, dropped or changed, and why (fresh copies). */
  fit(): FitResult {
    this.releaseHeld()
    const { prepared, plan } = this.planSync(this.setup, 'fitAsync')
    const r = assemble(prepared, plan, this.setup)
    this.sent({ messages: r.messages, tokens: r.tokens.messages })
    return r
  }

  /** `fit` for asynchronous strategies (summarizing), after reading the store. */
  async fitAsync(): Promise<FitResult> {
    await this.sync()
    const planned = this.plan(this.setup)
    const { prepared, plan } = planned instanceof Promise ? await planned : planned
    const r = assemble(prepared, plan, this.setup)
    this.sent({ messages: r.messages, tokens: r.tokens.messages })
    return r
  }

  /**
   * Runs a recall tool call (`args` as the model sent them) over what `fitAsync` sends now,
   * after reading the store: the messages left out that it asks for, as the tool's result
   * (sized by `options`, else the context's own `recall` option).
   */
  async recall(args: unknown, options?: RecallOptions | true): Promise<string> {
    // The request as `fitAsync` makes it, not recorded as sent (usage is compared with what was).
    await this.sync()
    const planned = this.plan(this.setup)
    const { prepared, plan } = planned instanceof Promise ? await planned : planned
    const r = assemble(prepared, plan, this.setup)
    const own = this.options.recall
    const settings = options ?? (own === undefined || own === false ? true : own)
    return recallText(this.history(), r, args, this.setup.counter, settings)
  }

  /** @deprecated Use `fit()` (synchronous, as the module's `fit`). */
  fitSync(): FitResult {
    this.releaseHeld()
    return this.fit()
  }

  /** The context's setup, or one with another budget for this call. */
  private setupFor(options: { budget?: number }): Setup {
    if (options.budget === undefined) return this.setup
    const budget = resolveSetup({ budget: options.budget }).budget
    // A window the provider taught caps every view, one asked with its own budget too.
    return limitSetup({ ...this.setup, budget }, this.learned, this.options.reserve)
  }

  private planSync(setup: Setup, asyncName: string): { prepared: Prepared; plan: PlanItem[] } {
    const refuse = () =>
      new InvalidOptionError('strategy', `${setup.strategy.name} is asynchronous: use ${asyncName}`)
    if (setup.strategy.async) throw refuse()
    const prepared = prepare(this.index, setup, { calibration: this.calibration })
    const plan = setup.strategy.select(prepared.view)
    if (plan instanceof Promise) throw refuse()
    return { prepared, plan }
  }

  /**
   * The view and the strategy's plan: at once when the strategy answers at once, else a
   * promise. A strategy that may await sees a copy, since messages may be added meanwhile.
   */
  private plan(
    setup: Setup,
  ): { prepared: Prepared; plan: PlanItem[] } | Promise<{ prepared: Prepared; plan: PlanItem[] }> {
    const prepared = prepare(this.index, setup, {
      calibration: this.calibration,
      frozen: setup.strategy.async !== false,
    })
    const plan = setup.strategy.select(prepared.view)
    if (!(plan instanceof Promise)) return { prepared, plan }
    if (setup.strategy.async === false) {
      // Its view was not copied, as it said it never waits: what it resolves to is not used.
      plan.catch(() => {})
      throw new InvalidOptionError(
        'strategy',
        `${setup.strategy.name} declares async: false, but its select returned a promise`,
      )
    }
    return plan.then((p) => ({ prepared, plan: p }))
  }

  /** Remembers what was sent, so reported usage can be compared with it. */
  private sent(r: { messages: Message[]; tokens: number }): Message[] {
    this.lastSent = {
      messages: r.tokens,
      overhead: this.setup.toolTokens + this.setup.counter.replyPriming,
    }
    return r.messages
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
        `expected a whole number of tokens >= 1, got ${describeValue(window)}`,
      )
    this.setLimit(mergeLimits(this.learned, w))
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
  /** Set by `clear({ initial: false })`: the conversation is to go on without the initial messages. */
  private clearedInitial = false

  async clear(options: { initial?: boolean } = {}): Promise<void> {
    this.clearedInitial = options.initial === false
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
    this.heldRun = []
    this.index = this.newIndex()
    this.unread = 0
    this.written = []
    this.summaryList = []
    for (const m of messages) this.index.push(frozenCopy(m))
  }

  /** The stored history (copies), not the strategy's view of it. */
  history(): Message[] {
    this.releaseHeld()
    return structuredClone(this.index.input)
  }

  /** Summaries made so far (copies), oldest first, each with the history positions `[from, to)` it stands for. */
  summaries(): SummaryEntry[] {
    return structuredClone(this.summaryList)
  }

  /** Summaries of a saved state that fall inside its history. */
  private restoreSummaries(summaries: readonly SummaryEntry[] | undefined): void {
    this.summaryList = supersede(
      [],
      (summaries ?? [])
        .filter((e) => e.replaces[0] < e.replaces[1] && e.replaces[1] <= this.index.length)
        .filter((e) => servableSummary(e.message))
        .map((e) => frozenCopy(recountSummary(e, this.setup.counter))),
    )
  }

  /** Versioned plain JSON: the history, the initial messages, the summaries and the settings. */
  saveState(): ChatContextState {
    this.releaseHeld()
    const { strategy } = this.setup
    const settings: ChatContextState['settings'] = { provider: this.setup.provider.name }
    // The default strategy is saved as the default, so a state restored with a budget is
    // fitted as a default context is (tokenLimited, with its ledger), not as `unbounded`.
    if (this.setup.defaultStrategy) {
      const own = this.options as DefaultStrategyOptions
      if (own.stable !== undefined) settings.stable = JSON.parse(JSON.stringify(own.stable))
      if (own.dropFrom !== undefined) settings.dropFrom = own.dropFrom
    } else
      settings.strategy = {
        name: strategy.name,
        options: JSON.parse(JSON.stringify(strategy.options ?? {})),
      }
    if (Number.isFinite(this.setup.budget) && this.options.budget !== undefined)
      settings.budget = this.setup.budget
    if (this.options.model) settings.model = this.options.model
    if (this.options.reserve !== undefined) settings.reserve = this.options.reserve
    if (this.setup.tools.length) settings.tools = structuredClone(this.setup.tools)
    // Saved when off too: a restored default context would otherwise get the default ledger.
    settings.ledger = structuredClone(this.setup.ledger)
    return {
      type: STATE_TYPE,
      version: STATE_VERSION,
      messages: structuredClone(this.index.input),
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
    // A strategy given in `overrides` replaces the saved one with its options.
    const settings = optionsFromState(
      overrides.strategy === undefined
        ? parsed.settings
        : { ...parsed.settings, strategy: undefined },
    )
    const ctx = buildFromState(
      () =>
        new ChatContext({
          ...settings,
          initialMessages: parsed.initialMessages as Message[],
          ...overrides,
        } as ChatContextOptions),
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
  return copyPlain(value, true)
}

/**
 * A provider's own format brings its rules: `format: 'anthropic'` fits by Anthropic's. A
 * `provider` that names another is refused, since what is added in one format and sent by
 * another provider's rules would break one of them.
 */
function providerFromFormat(options: ChatContextOptions): Provider | undefined {
  if (options === null || typeof options !== 'object') return undefined
  const given = (options as { provider?: unknown }).provider as Provider | undefined
  const format = (options as { format?: unknown }).format
  if (
    format !== undefined &&
    format !== 'auto' &&
    !(FORMATS as readonly unknown[]).includes(format)
  )
    throw new InvalidOptionError(
      'format',
      `expected one of ${FORMATS.join(', ')} or auto, got ${describeValue(format)}`,
    )
  const implied = providerOfFormat(format as Format | undefined)
  if (implied && given !== undefined && given !== implied)
    throw new InvalidOptionError(
      'provider',
      `format ${JSON.stringify(format)} is ${implied}'s and brings its rules; got provider ${JSON.stringify(given)} (leave provider out, or add messages in its format)`,
    )
  return given ?? implied
}

/**
 * A summary read back from a saved state or a store is served only if it is what a summary
 * is: a valid message of plain content, with no tool call (which would need its result) and
 * not a tool result (which would need its call). Anything else is left out, and the history
 * it stood for is fitted as if it had never been summarized.
 */
function servableSummary(m: unknown): boolean {
  if (messageIssue(m) !== undefined) return false
  const message = m as Message
  if (message.role === 'tool') return false
  return !(message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0)
}

/**
 * `checkMessage` for a context without a `format`: a message in an SDK's own shape (an OpenAI
 * completion message, an Anthropic turn, a Gemini content, a Responses item) is refused with
 * what to pass instead.
 */
function checkWithHint(m: unknown, index: number): asserts m is Message {
  try {
    checkMessage(m, index)
  } catch (e) {
    if (!(e instanceof InvalidInputError)) throw e
    let format: Format | undefined
    try {
      format = detectFormat([m])
    } catch {
      throw e
    }
    throw new InvalidInputError(
      `${e.detail} (it looks like a ${format} message: pass format: '${format}' or 'auto' to the ChatContext)`,
      { index, ...(e.field !== undefined && { field: e.field }) },
    )
  }
}

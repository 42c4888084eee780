import { asyncStrategyFromOptions } from '../../compress/index.js'
import { ContextOverflowError, InvalidOptionError } from '../../errors.js'
import type { Unchecked } from '../../messages/input.js'
import type { Message } from '../../messages/message.js'
import { type RecallOptions, recallRun } from '../../recall/definition.js'
import type { Strategy, SummaryEntry, SummaryLedger, Transform } from '../../strategies/types.js'
import { assemble, sendable } from '../assemble.js'
import { type Planned, planNow, planView } from '../context-plan.js'
import { type FitOptions, resolveSetup, type Setup } from '../options/options.js'
import type { RecallResult } from '../recall.js'
import { recallAnswer } from '../recall-tool.js'
import type { FitResult } from '../result.js'
import type { AddedMessage, ContextFormat } from './chat-context-types.js'
import { checkedInitial } from './chat-input.js'
import {
  type ChatContextOptions,
  CONTEXT_OPTIONS,
  providerFromFormat,
  storeOf,
} from './chat-options.js'
import { type ChatContextState, parseState, savedState } from './chat-state.js'
import { ContextHistory } from './context-history.js'
import { ContextSizing } from './context-sizing.js'
import { buildFromState, optionsFromState } from './state-settings.js'

export type { AddedMessage, ContextFormat, FormatMessages } from './chat-context-types.js'
export { type ChatContextOptions, CONTEXT_OPTIONS, type ContextOwnOptions } from './chat-options.js'
export { type ChatContextState, STATE_TYPE, STATE_VERSION } from './chat-state.js'

/**
 * A conversation's history and the policy that decides what of it is sent (AutoGen's
 * `ChatCompletionContext`). Each message is counted once, when it is added; the context
 * keeps running sums over units, so a budget-aware strategy serves `getMessages` with a
 * search and a copy of what it returns, however long the history.
 */
export class ChatContext<F extends ContextFormat = undefined> {
  private readonly options: ChatContextOptions
  private readonly sizing: ContextSizing
  private readonly initial: Message[]
  private readonly log: ContextHistory
  /** How strategies keep summaries: beside the history, which they never replace. */
  private readonly ledger: SummaryLedger = {
    list: () => this.log.summaries,
    add: (entries) => this.log.addSummaries(entries),
  }

  /** `F`, the `format` option, types what `addMessage` takes (see `AddedMessage`). */
  constructor(options: ChatContextOptions & { format?: F } = {}) {
    if (options === null || typeof options !== 'object' || Array.isArray(options))
      throw new InvalidOptionError('options', 'expected an object of ChatContext options')
    this.options = options
    const provider = providerFromFormat(options)
    // A budget given here only for a window learnt later, when the options give none.
    const resolve = (budget?: number) =>
      resolveSetup(
        { ...options, provider, summaries: this.ledger, ...(budget && { budget }) } as FitOptions,
        CONTEXT_OPTIONS,
        asyncStrategyFromOptions,
      )
    this.sizing = new ContextSizing(resolve, options)
    const setup = this.sizing.setup
    this.initial = checkedInitial(options.initialMessages ?? [])
    this.log = new ContextHistory({
      counter: setup.counter,
      provider: setup.provider,
      strategy: setup.strategy,
      options,
      store: storeOf(options),
      initial: this.initial,
      storedLimit: (window) => this.sizing.setLimit(window),
    })
  }

  /** The setup as configured, fitted to a window learnt from the provider. */
  private get setup(): Setup {
    return this.sizing.setup
  }

  /**
   * Reads what other processes appended to the store since the last read, with their
   * stored counts (nothing is counted twice), and waits for this context's own writes.
   * `getMessages` does this first; call it before `getMessagesSync` to see others' messages.
   */
  sync(): Promise<void> {
    return this.log.sync()
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
    this.log.releaseHeld()
    return this.log.index.length
  }

  /** Tokens of the whole stored history (not of what `getMessages` returns). */
  get historyTokens(): number {
    this.log.releaseHeld()
    return this.log.index.inputTotal
  }

  /**
   * Adds a message to the history; it is validated and copied, so later edits by the caller
   * do not reach it. Over a store, the returned promise settles when the store has it.
   */
  addMessage<const M>(message: M & Unchecked<M>): Promise<void>
  addMessage(message: AddedMessage<F>): Promise<void>
  addMessage(message: AddedMessage<F>): Promise<void> {
    return this.log.add(message)
  }

  /**
   * Adds several messages at once (atomically, over a store). In the Responses format, the
   * model's items (reasoning, its message, its calls) are one run, decoded as one assistant
   * message as `fit` decodes them: items added one at a time are held until an item of
   * another kind arrives or the context is read, then added together.
   */
  addMessages<const M>(input: readonly (M & Unchecked<M>)[]): Promise<void>
  addMessages(input: readonly AddedMessage<F>[]): Promise<void>
  addMessages(input: readonly AddedMessage<F>[]): Promise<void> {
    return this.log.addAll(input)
  }

  /**
   * Tells the context what the provider reported for the request it just sent (its input
   * or prompt tokens). For models whose tokenizer is estimated, later views are sized by the
   * measured ratio (smoothed, plus `margin`) so they neither overflow nor waste room.
   */
  recordUsage(
    usage: { promptTokens: number },
    options: { margin?: number } = {},
  ): { ratio: number; factor: number } {
    return this.sizing.recordUsage(usage, options)
  }

  /** The budget the context fits to, or undefined when unbounded. */
  get budget(): number | undefined {
    return Number.isFinite(this.setup.budget) ? this.setup.budget : undefined
  }

  /** The factor applied to counts after `recordUsage` (1 before). */
  get usageFactor(): number {
    return this.sizing.calibration
  }

  /**
   * What to send now: the strategy's view of the history, in a new array. Messages from the
   * history are frozen (an edit throws instead of changing the history); `fit()` returns
   * fresh, editable copies instead. Works with every strategy, asynchronous ones included;
   * over a store it first reads what other processes appended.
   */
  async getMessages(options: { budget?: number } = {}): Promise<Message[]> {
    await this.sync()
    const setup = this.sizing.setupFor(options)
    // A synchronous plan is assembled at once: nothing may be appended between the two.
    const planned = this.planView(setup)
    const { prepared, plan } = planned instanceof Promise ? await planned : planned
    return this.sizing.sent(sendable(prepared, plan, setup, { share: true }))
  }

  /** `getMessages` for synchronous strategies, without a promise (and without reading the store). */
  getMessagesSync(options: { budget?: number } = {}): Message[] {
    this.log.releaseHeld()
    const setup = this.sizing.setupFor(options)
    const { prepared, plan } = this.planNow(setup, 'getMessages')
    return this.sizing.sent(sendable(prepared, plan, setup, { share: true }))
  }

  /** The full account of what `getMessages` sends: kept, dropped or changed, and why (fresh copies). */
  fit(): FitResult {
    this.log.releaseHeld()
    const { prepared, plan } = this.planNow(this.setup, 'fitAsync')
    const r = assemble(prepared, plan, this.setup)
    this.sizing.sent({ messages: r.messages, tokens: r.tokens.messages })
    return r
  }

  /** `fit` for asynchronous strategies (summarizing), after reading the store. */
  async fitAsync(): Promise<FitResult> {
    await this.sync()
    const planned = this.planView(this.setup)
    const { prepared, plan } = planned instanceof Promise ? await planned : planned
    const r = assemble(prepared, plan, this.setup)
    this.sizing.sent({ messages: r.messages, tokens: r.tokens.messages })
    return r
  }

  /**
   * Runs a recall tool call (`args` as the model sent them) over what `fitAsync` sends now,
   * after reading the store: the messages left out (or sent shortened) that it asks for, in
   * `recall()`'s shape, `text` the tool's result (sized by `options`, else the context's own
   * `recall` option). Arguments with no plain meaning are not thrown: `error` says why.
   */
  async recall(args: unknown, options?: RecallOptions | true): Promise<RecallResult> {
    // The request as `fitAsync` makes it, not recorded as sent (usage is compared with what was).
    await this.sync()
    const planned = this.planView(this.setup)
    const { prepared, plan } = planned instanceof Promise ? await planned : planned
    const r = assemble(prepared, plan, this.setup)
    const own = this.options.recall
    const settings = options ?? recallRun(own)
    // The history as held (not copied): recall reads it and keeps its index beside it.
    const index = this.log.index
    const invalid = index.removed.map((x) => x.index)
    return recallAnswer(index.input, r, args, this.setup.counter, settings, invalid)
  }

  /** The plan over the history now; an asynchronous strategy is refused, naming `asyncName`. */
  private planNow(setup: Setup, asyncName: string): Planned {
    return this.checked(() => planNow(this.log.index, setup, this.sizing.calibration, asyncName))
  }

  /**
   * `planNow` for any strategy, asynchronous ones included: a synchronous plan comes back at
   * once (not in a promise), so the caller assembles it before anything can be appended.
   */
  private planView(setup: Setup): Planned | Promise<Planned> {
    return this.checked(() => planView(this.log.index, setup, this.sizing.calibration))
  }

  /**
   * `make`'s plan, made once more if a count another process stored was wrong for what it
   * sends, or made a turn look too big to send (then the history is counted here).
   */
  private checked(make: () => Planned): Planned
  private checked(make: () => Planned | Promise<Planned>): Planned | Promise<Planned>
  private checked(make: () => Planned | Promise<Planned>): Planned | Promise<Planned> {
    let planned: Planned | Promise<Planned>
    try {
      planned = make()
    } catch (e) {
      return this.retried(e, make)
    }
    // A plan with no stored count in it (the common case) is returned as it is.
    if (!(planned instanceof Promise)) return this.storedHold(planned, make)
    return planned.then(
      (p) => this.storedHold(p, make),
      (e) => this.retried(e, make),
    )
  }

  /** `planned`, or the plan made again when a stored count in what it sends was wrong. */
  private storedHold(planned: Planned, make: () => Planned | Promise<Planned>) {
    return this.log.storedCountsHold(planned.prepared, planned.plan) ? planned : make()
  }

  /** The plan made again after `e`, when stored counts may have caused it; else `e` thrown. */
  private retried(e: unknown, make: () => Planned | Promise<Planned>) {
    if (!this.overStoredCounts(e)) throw e
    return make()
  }

  /**
   * Whether `e` is an overflow that counts read from the store may have caused (one stored
   * far over the truth makes a turn look too big to send): then none is believed again, and
   * the plan is made once more on counts of this process's own.
   */
  private overStoredCounts(e: unknown): boolean {
    if (!(e instanceof ContextOverflowError) || !this.log.holdsStoredCounts) return false
    this.log.distrustStoredCounts()
    return true
  }

  /** The window a provider's rejection taught (see `learnLimit`), until `forgetLimit`. */
  get learnedLimit(): number | undefined {
    return this.sizing.learned
  }

  /**
   * Remembers the provider's window (what "maximum context length is N" says): every later
   * view fits within it, the reserve taken from it once. A smaller figure replaces a larger
   * one; it is kept in `saveState` and, over a store, shared with every process on this id.
   */
  async learnLimit(window: number): Promise<void> {
    const learned = this.sizing.learn(window)
    await this.log.putLimit(learned ?? null)
  }

  /** Forgets a learnt window (the deployment changed): views fit the configured budget again. */
  async forgetLimit(): Promise<void> {
    this.sizing.setLimit(undefined)
    await this.log.putLimit(null)
  }

  /**
   * Empties the history. By default the initial messages come back (the system prompt
   * stays); `{ initial: false }` empties it completely, as AutoGen's `clear()` does.
   */
  async clear(options: { initial?: boolean } = {}): Promise<void> {
    await this.log.clear(options.initial !== false)
  }

  /** The stored history (copies), not the strategy's view of it. */
  history(): Message[] {
    this.log.releaseHeld()
    return structuredClone(this.log.index.input)
  }

  /** Summaries made so far (copies), oldest first, each with the history positions `[from, to)` it stands for. */
  summaries(): SummaryEntry[] {
    return structuredClone(this.log.summaries)
  }

  /** Versioned plain JSON: the history, the initial messages, the summaries and the settings. */
  saveState(): ChatContextState {
    this.log.releaseHeld()
    return savedState({
      setup: this.setup,
      options: this.options,
      messages: this.log.index.input,
      initial: this.initial,
      summaries: this.log.summaries,
      learned: this.sizing.learned,
    })
  }

  /**
   * Replaces the history with a saved one (the settings stay this context's: use
   * `ChatContext.fromState` to rebuild them too). A state that fails the schema or comes
   * from a newer version is refused and the context is left as it was.
   */
  loadState(state: unknown): void {
    const parsed = parseState(state)
    this.log.restore(parsed.messages as Message[], parsed.summaries as SummaryEntry[] | undefined)
  }

  /** A context rebuilt from a saved state: history, initial messages and settings. */
  static fromState<F extends ContextFormat = undefined>(
    state: unknown,
    overrides: ChatContextOptions & { format?: F } = {},
  ): ChatContext<F> {
    const parsed = parseState(state)
    // A strategy given in `overrides` replaces the saved one with its options.
    const settings = optionsFromState(
      overrides.strategy === undefined
        ? parsed.settings
        : { ...parsed.settings, strategy: undefined },
    )
    const ctx = buildFromState(
      () =>
        new ChatContext<F>({
          ...settings,
          initialMessages: parsed.initialMessages as Message[],
          ...overrides,
        } as ChatContextOptions & { format?: F }),
    )
    ctx.log.restore(parsed.messages as Message[], parsed.summaries as SummaryEntry[] | undefined)
    if (parsed.limit) ctx.sizing.setLimit(parsed.limit.window)
    return ctx
  }
}

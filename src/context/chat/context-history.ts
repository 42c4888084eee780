import { supersede } from '../../compress/summary-ledger.js'
import type { Message } from '../../messages/message.js'
import { providerApiOfFormat } from '../../providers/index.js'
import type { ProviderRules } from '../../providers/types.js'
import { newAppendId } from '../../store/append-id.js'
import {
  type AppendOptions,
  type HistoryStore,
  STORE_TIMEOUT_MS,
  StoreConflictError,
  type StoredEntry,
  StoreError,
} from '../../store/history-store.js'
import type { PlanItem, Strategy, SummaryEntry } from '../../strategies/types.js'
import type { TokenCounter } from '../../tokens/counter.js'
import { storedCountsHold } from '../assemble.js'
import { checkList, checkMessage } from '../check.js'
import { frozenCopy } from '../copy.js'
import { HistoryIndex } from '../history-index.js'
import type { Prepared } from '../prepare.js'
import { checkAdded, checkWithHint, decodeAdded } from './chat-input.js'
import type { ContextOwnOptions } from './chat-options.js'
import { servedSummaries, storedCount } from './stored-count.js'

/** Tries of one write before its error reaches the caller. */
const WRITE_TRIES = 3
/** The time limit of a store that does not state its own (the built-in stores' default). */

/** A write to the store, kept until the store is known to have it. */
interface Write {
  messages: readonly Message[]
  entries: Omit<StoredEntry, 'seq'>[]
  /** Its append id, the same every time it is sent. */
  options: AppendOptions & { appendId: string }
}

/** A failure worth sending the write again for: the store's, not the input's or a conflict. */
const transient = (e: unknown) => e instanceof StoreError && !(e instanceof StoreConflictError)

/** What a context's history is kept by and counted with. */
export interface HistoryOptions {
  counter: TokenCounter
  provider: ProviderRules
  strategy: Strategy
  /** The context's options, whose `format` is read as each message is added. */
  options: Pick<ContextOwnOptions, 'format'>
  /** Where the history lives, with the conversation's id; none: this process's memory. */
  store: { store: HistoryStore; id: string } | undefined
  /** The initial messages, checked and frozen. */
  initial: readonly Message[]
  /** Called with the window the store holds for the conversation, on every sync. */
  storedLimit: (window: number | undefined) => void
}

/**
 * A context's history and summaries: in memory, or over a store, where every write goes
 * first and is read back by the next `sync` (with what other processes appended), so every
 * process on one id holds the same history in the same order.
 */
export class ContextHistory {
  /** The history, checked, repaired for the provider, counted and grouped as it arrives. */
  private held: HistoryIndex
  /** Summaries a strategy made, beside the history (which they never replace). */
  summaries: SummaryEntry[] = []
  private readonly store: HistoryStore | undefined
  private readonly id: string
  /** Writes to the store, in the order they were asked for. */
  private writing: Promise<unknown> = Promise.resolve()
  /**
   * Writes not known to be in the store, oldest first: each is sent (again) under its append
   * id before anything after it, so one whose reply was lost is stored once.
   */
  private unsent: Write[] = []
  private seeded = false
  /** Set when an append finds fewer messages in the store than this context holds. */
  private stale = false
  /** Set by `clear(false)`: the conversation is to go on without the initial messages. */
  private clearedInitial = false
  /** Messages this context wrote to its store that its index has not read back yet. */
  private unread = 0
  /**
   * Messages this context wrote to its store and has not read back yet: a turn added next
   * answers their calls as it would in memory (read back, the index holds them).
   */
  private written: Message[] = []
  /** Responses model items added but not yet decoded: the run they start is not whole yet. */
  private heldRun: object[] = []
  /** Whether counts read from the store are believed (until one is found wrong). */
  private believeStored = true

  constructor(private readonly o: HistoryOptions) {
    this.held = this.newIndex()
    this.store = o.store?.store
    this.id = o.store?.id ?? ''
    if (!this.store) for (const m of o.initial) this.held.push(m)
  }

  /** Every message reaches the index checked (added, loaded from a state, read from the store). */
  private newIndex(): HistoryIndex {
    return new HistoryIndex(this.o.counter, this.o.provider, true, true)
  }

  /** The history as read so far (the held run of Responses items not included). */
  get index(): HistoryIndex {
    return this.held
  }

  /**
   * Whether the counts other processes stored for what `plan` sends hold (each checked once,
   * when first to be sent). One found wrong (a store edited, a writer with another tokenizer
   * under the same name) and none is believed again: the history is counted here, once, as
   * over a store without counts, and the caller plans again.
   */
  storedCountsHold(prepared: Prepared, plan: PlanItem[]): boolean {
    if (storedCountsHold(prepared, plan, this.held.givenCounts)) return true
    this.distrustStoredCounts()
    return false
  }

  /** Whether any count in the history now came from the store unchecked. */
  get holdsStoredCounts(): boolean {
    return this.held.givenCounts.size > 0
  }

  /** No stored count is believed again: the history is counted here, once. */
  distrustStoredCounts(): void {
    this.believeStored = false
    const old = this.held
    this.held = this.newIndex()
    for (const m of old.input) this.held.push(m)
  }

  /** A strategy's new summaries: a new one supersedes those it folds in. */
  addSummaries(entries: readonly SummaryEntry[]): void {
    this.summaries = supersede(
      this.summaries,
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
  }

  /**
   * Reads what other processes appended to the store since the last read, with their
   * stored counts (nothing is counted twice), and waits for this context's own writes.
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
      await this.seed(store)
      this.seeded = true
    }
    // Writes that failed are sent again first (in turn with any new ones): what is read then
    // holds them.
    if (this.unsent.length > 0) {
      const job = this.writing.then(() => this.flush(store))
      this.writing = job.catch(() => {})
      await job.catch((e) => this.advised(e))
    }
    if (store.limit) this.o.storedLimit(await store.limit(this.id))
    let length = await store.length(this.id)
    // The store lost messages (cleared elsewhere, expired, or a server restarted empty): start
    // over from it, with the initial messages first again when it lost them all.
    if (length < this.held.length || this.stale) {
      this.reset([])
      if (length === 0 && this.o.initial.length > 0 && !this.clearedInitial) {
        await this.seed(store)
        length = await store.length(this.id)
      }
    }
    this.stale = false
    // Every write of this context is in the store now: what it holds is read below.
    this.unread = 0
    this.written = []
    if (length === this.held.length) return
    for (const e of await store.read(this.id, this.held.length)) {
      checkMessage(e.message, this.held.length)
      this.held.push(
        frozenCopy(e.message),
        this.believeStored ? storedCount(e, this.o.counter) : undefined,
      )
    }
    // Summaries other processes made for these messages: served without summarizing again.
    if (this.o.strategy.keepsSummaries)
      this.summaries = servedSummaries(await store.summaries(this.id), this.o.counter)
  }

  /** The initial messages go into an empty conversation once, whoever gets there first. */
  private async seed(store: HistoryStore): Promise<void> {
    const initial = this.o.initial
    if (!initial.length || (await store.length(this.id)) > 0) return
    const write: Write = {
      messages: initial,
      entries: initial.map((m) => this.entry(m)),
      options: { expectedLength: 0, appendId: newAppendId() },
    }
    // Sent again under its id, a seed that was stored answers its first length, not a conflict.
    await this.send(store, write)
      .then(() => {
        this.unread += initial.length
      })
      .catch((e) => {
        if (!(e instanceof StoreConflictError)) throw e
      })
  }

  private entry(m: Message) {
    return { message: m, tokens: this.o.counter.countMessage(m), counter: this.o.counter.name }
  }

  /** Where the next added message goes: an error about it names this position. */
  private get nextPosition(): number {
    // Over a store, this context's own writes not read back yet, and the initial messages it will seed.
    const seeding = this.store && !this.seeded ? this.o.initial.length : 0
    return this.held.length + this.unread + seeding
  }

  private write(store: HistoryStore, messages: Message[]): Promise<void> {
    this.unread += messages.length
    // A store that lost the conversation gets the initial messages first again.
    const seed =
      this.o.initial.length > 0 && !this.clearedInitial
        ? { seed: this.o.initial.map((m) => this.entry(m)) }
        : {}
    // One id per write, kept for every send of it: a store that receives it twice keeps one copy.
    const write: Write = {
      messages,
      entries: messages.map((m) => this.entry(m)),
      options: { ...seed, appendId: newAppendId() },
    }
    this.unsent.push(write)
    const job = this.writing.then(async () => {
      try {
        if (!this.seeded) {
          await this.seed(store)
          this.seeded = true
        }
        await this.flush(store, write)
      } catch (e) {
        this.advised(e)
      }
    })
    // A failed write rejects this call; it stays queued, and does not block later writes.
    this.writing = job.catch(() => {})
    return job
  }

  /**
   * Sends the writes not known stored, oldest first, up to `last` (default: all). A store's
   * failure leaves the write at the front, to be sent again under its id; a refusal (bad
   * input, a conflict) drops it, as the store will never take it.
   */
  private async flush(store: HistoryStore, last?: Write): Promise<void> {
    const done = (write: Write) => {
      const at = this.unsent.indexOf(write)
      if (at >= 0) this.unsent.splice(at, 1)
    }
    for (let write = this.unsent[0]; write; write = this.unsent[0]) {
      let length: number
      try {
        length = await this.send(store, write)
      } catch (e) {
        if (!transient(e)) done(write)
        throw e
      }
      done(write)
      if (length < this.held.length + write.messages.length) this.stale = true
      if (write === last) return
    }
  }

  /**
   * One write, tried up to 3 times under its append id while a store's failure leaves time:
   * no try starts once the store's own time limit (`timeoutMs`, else 10 s) has passed since the
   * first.
   */
  private async send(store: HistoryStore, write: Write): Promise<number> {
    const limit = store.timeoutMs
    const budget =
      typeof limit === 'number' && limit > 0 && Number.isFinite(limit) ? limit : STORE_TIMEOUT_MS
    const started = Date.now()
    for (let tries = 1; ; tries++) {
      try {
        return await store.append(this.id, write.entries, write.options)
      } catch (e) {
        if (!transient(e) || tries >= WRITE_TRIES || Date.now() - started >= budget) throw e
        await new Promise((r) => setTimeout(r, 100 * tries))
      }
    }
  }

  /**
   * The store's error, saying what is safe to do next when writes are left unsent; any other
   * error as it is.
   */
  private advised(e: unknown): never {
    if (!transient(e) || this.unsent.length === 0) throw e
    const n = this.unsent.reduce((sum, w) => sum + w.messages.length, 0)
    const error = new StoreError(
      `${(e as Error).message}; the context holds the ${n === 1 ? 'message' : `${n} messages`} not known to be stored and sends ${n === 1 ? 'it' : 'them'} again, under the same append id, before its next write or read (await ctx.sync() to send now), so each is stored once: do not add ${n === 1 ? 'it' : 'them'} again (ctx.clear() drops ${n === 1 ? 'it' : 'them'})`,
      this.id,
      (e as StoreError).position,
    )
    ;(error as { cause?: unknown }).cause = e
    throw error
  }

  /** Adds one message (see `ChatContext.addMessage`). */
  add(message: Message | object): Promise<void> {
    // In an SDK's format, one message may decode to several: added together.
    if (this.o.options.format !== undefined) return this.addAll([message])
    checkWithHint(message, this.nextPosition)
    if (this.store) return this.write(this.store, [frozenCopy(message)])
    this.held.push(frozenCopy(message))
    return Promise.resolve()
  }

  /** Adds several messages at once, holding an unfinished run (see `ChatContext.addMessages`). */
  addAll(input: readonly (Message | object)[]): Promise<void> {
    checkList(input)
    let list: readonly (Message | object)[] = input
    const inRun = providerApiOfFormat(this.o.options.format)?.inModelRun
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

  /**
   * Before a synchronous read: the held run goes into the history (over a store it is written
   * there, and read back by the next `sync`, as every write of this context is).
   */
  releaseHeld(): void {
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
    return decodeAdded(input, this.o.options.format, at, this.written, this.held.input)
  }

  private append(input: readonly (Message | object)[]): Promise<void> {
    const at = this.nextPosition
    const messages = this.decode(input, at)
    checkAdded(messages, at, this.o.options.format)
    if (this.store) {
      const copies = messages.map((m) => frozenCopy(m))
      this.written.push(...copies)
      return this.write(this.store, copies)
    }
    for (const m of messages) this.held.push(frozenCopy(m))
    return Promise.resolve()
  }

  /** Shares a learnt window (null: none) with every process on this id, over a store. */
  async putLimit(window: number | null): Promise<void> {
    await this.store?.putLimit?.(this.id, window)
  }

  /** Empties the history, keeping the initial messages unless `initial` is false. */
  async clear(initial: boolean): Promise<void> {
    this.clearedInitial = !initial
    const keep = initial ? this.o.initial : []
    this.reset(keep)
    if (!this.store) return
    await this.writing
    // Writes not known stored were made before the clear: they are not sent again.
    this.unsent = []
    await this.store.clear(this.id)
    this.reset([])
    this.seeded = true
    if (keep.length) await this.write(this.store, [...keep])
  }

  /** Replaces the history with `messages` and the summaries of a saved state that fall inside it. */
  restore(messages: readonly Message[], summaries: readonly SummaryEntry[] | undefined): void {
    this.reset(messages)
    this.summaries = servedSummaries(
      (summaries ?? []).filter(
        (e) => e.replaces[0] < e.replaces[1] && e.replaces[1] <= this.held.length,
      ),
      this.o.counter,
    )
  }

  private reset(messages: readonly Message[]): void {
    this.heldRun = []
    this.held = this.newIndex()
    this.unread = 0
    this.written = []
    this.summaries = []
    for (const m of messages) this.held.push(frozenCopy(m))
  }
}

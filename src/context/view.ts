import type { Message } from '../messages/message.js'
import type { Unit, UnitKind } from '../messages/units.js'
import type { Provider } from '../providers/provider.js'
import type { ProviderRules } from '../providers/types.js'
import type { Mandatory, PlanItem, SummaryLedger, View } from '../strategies/types.js'
import type { TokenCounter } from '../tokens/counter.js'
import type { Column } from './column.js'
import type { PlainArrays } from './history-index.js'
import { kindOf } from './unit-kinds.js'

/** A repaired, counted history split into units: what a `HistoryIndex` holds. */
export interface ViewSource {
  readonly messages: readonly Message[]
  readonly tokens: Column<Float64Array>
  readonly unitStart: Column<Int32Array>
  readonly unitEnd: Column<Int32Array>
  readonly unitKind: Column<Uint8Array>
  readonly unitPrefix: Column<Float64Array>
  readonly newestUser: number
  /** Units that are tool exchanges. */
  readonly exchanges: number
  /** The columns as plain arrays, kept in step by the source (a `HistoryIndex`). */
  plainArrays?(): PlainArrays
}

/** The request around the history: what the messages may use and what else is sent. */
export interface ViewSettings {
  budget: number
  available: number
  overhead: Readonly<{ tools: number; reserve: number; priming: number }>
  counter: TokenCounter
  provider: ProviderRules
  query: string | undefined
  summaries?: SummaryLedger | undefined
  /** Tokens of the room set aside for a wrapper's own message (see `View.aside`). */
  aside?: number
  /** The recall tool is offered with the request (see `View.recall`). */
  recall?: boolean | undefined
}

/** A view over `source` as it is now: its units are those the source holds at this call. */
export function createView(
  source: ViewSource,
  settings: ViewSettings,
  origin?: ArrayLike<number>,
): View {
  return new SourceView(source, settings, origin)
}

/** A copy of `source`: for a strategy that awaits, while the source may grow. */
export function snapshot(source: ViewSource): ViewSource {
  return {
    messages: source.messages.slice(),
    tokens: source.tokens.copy(),
    unitStart: source.unitStart.copy(),
    unitEnd: source.unitEnd.copy(),
    unitKind: source.unitKind.copy(),
    unitPrefix: source.unitPrefix.copy(),
    newestUser: source.newestUser,
    exchanges: source.exchanges,
  }
}

const noUnit = (u: number, n: number) => new RangeError(`no unit ${u} in a view of ${n}`)
const noMessage = (i: number, n: number) => new RangeError(`no message ${i} in a view of ${n}`)

class SourceView implements View {
  readonly messages: readonly Message[]
  readonly unitCount: number
  readonly budget: number
  readonly available: number
  readonly overhead: Readonly<{ tools: number; reserve: number; priming: number }>
  readonly counter: TokenCounter
  readonly provider: Provider
  readonly userFirst: boolean
  readonly query: string | undefined
  readonly summaries?: SummaryLedger | undefined
  readonly origin: ArrayLike<number> | undefined
  readonly aside: number
  readonly recall: boolean
  private readonly source: ViewSource
  private readonly settings: ViewSettings
  private readonly lastUser: number
  private readonly exchangeUnits: number
  private cachedMandatory: Mandatory | undefined
  private arrays: PlainArrays | undefined

  constructor(
    source: ViewSource,
    settings: ViewSettings,
    origin: ArrayLike<number> | undefined,
    userFirst = settings.provider.userFirst,
  ) {
    this.source = source
    this.settings = settings
    this.origin = origin
    this.messages = source.messages
    this.unitCount = source.unitStart.length
    this.lastUser = source.newestUser
    this.exchangeUnits = source.exchanges
    this.budget = settings.budget
    this.available = settings.available
    this.overhead = settings.overhead
    this.counter = settings.counter
    this.provider = settings.provider.name
    this.userFirst = userFirst
    this.query = settings.query
    // Set always, so every view has one shape.
    this.summaries = settings.summaries
    this.aside = settings.aside ?? 0
    this.recall = settings.recall === true
  }

  narrowed(less: number, opensWithUser = false, aside = false): View {
    // Read through `this`, so a view a strategy wrapped (its query, its budget) stays wrapped.
    const settings: ViewSettings = {
      budget: this.budget,
      available: this.available - less,
      overhead: this.overhead,
      counter: this.counter,
      provider: this.settings.provider,
      query: this.query,
      summaries: this.summaries,
      aside: this.aside + (aside ? less : 0),
      recall: this.recall,
    }
    return new SourceView(this.source, settings, this.origin, this.userFirst && !opensWithUser)
  }

  start(u: number): number {
    const s = u < this.unitCount ? this.source.unitStart.at(u) : undefined
    if (s === undefined) throw noUnit(u, this.unitCount)
    return s
  }

  end(u: number): number {
    const e = u < this.unitCount ? this.source.unitEnd.at(u) : undefined
    if (e === undefined) throw noUnit(u, this.unitCount)
    return e
  }

  unit(u: number): Unit {
    return { kind: this.kind(u), start: this.start(u), end: this.end(u), complete: true }
  }

  kind(u: number): UnitKind {
    const k = u < this.unitCount ? this.source.unitKind.at(u) : undefined
    const kind = k === undefined ? undefined : kindOf[k]
    if (kind === undefined) throw noUnit(u, this.unitCount)
    return kind
  }

  first(u: number): Message {
    return this.message(this.start(u))
  }

  role(u: number): Message['role'] {
    return this.first(u).role
  }

  unitSize(u: number): number {
    if (u < 0 || u >= this.unitCount) throw noUnit(u, this.unitCount)
    return this.rangeTokens(u, u + 1)
  }

  rangeTokens(from: number, to: number): number {
    if (to <= from) return 0
    const p = this.source.unitPrefix
    const a = from <= this.unitCount ? p.at(from) : undefined
    const b = to <= this.unitCount ? p.at(to) : undefined
    return (b ?? Number.NaN) - (a ?? Number.NaN)
  }

  message(i: number): Message {
    const m = this.messages[i]
    if (!m) throw noMessage(i, this.messages.length)
    return m
  }

  messageTokens(i: number): number {
    const t = this.source.tokens.at(i)
    if (t === undefined) throw noMessage(i, this.messages.length)
    return t
  }

  unitOf(i: number): number {
    let lo = 0
    let hi = this.unitCount - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (this.start(mid) <= i) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  newestUser(): number {
    return this.lastUser
  }

  exchanges(): number {
    return this.exchangeUnits
  }

  mandatory(): Mandatory {
    if (this.cachedMandatory) return { ...this.cachedMandatory }
    const preamble = this.unitCount > 0 && this.kind(0) === 'system' ? 0 : -1
    const last = this.unitCount - 1
    const lastUser = this.newestUser()
    let tokens = 0
    if (preamble >= 0) tokens += this.unitSize(preamble)
    if (lastUser >= 0) tokens += this.unitSize(lastUser)
    if (last > preamble && last !== lastUser) tokens += this.unitSize(last)
    this.cachedMandatory = { preamble, lastUser, last, first: preamble + 1, tokens }
    return { ...this.cachedMandatory }
  }

  items(from: number, to: number, out: PlanItem[] = []): PlanItem[] {
    for (let u = from; u < to; u++) {
      const end = this.end(u)
      for (let i = this.start(u); i < end; i++) out.push({ index: i })
    }
    return out
  }

  // The arrays below are for strategies written against them: the methods above read the
  // columns without making anything. An index keeps its arrays in step once made, so a
  // later view pays only for what is new; a snapshot's are made for that view.

  private plain(): PlainArrays {
    this.arrays ??= this.source.plainArrays?.() ?? {
      units: Array.from({ length: this.unitCount }, (_, u) => this.unit(u)),
      tokens: Array.from(this.source.tokens.values().subarray(0, this.messages.length)),
      unitTokens: Array.from({ length: this.unitCount }, (_, u) => this.unitSize(u)),
      unitPrefix: Array.from(this.source.unitPrefix.values().subarray(0, this.unitCount + 1)),
    }
    return this.arrays
  }

  get units(): readonly Unit[] {
    return this.plain().units
  }

  get tokens(): readonly number[] {
    return this.plain().tokens
  }

  get unitTokens(): readonly number[] {
    return this.plain().unitTokens
  }

  get unitPrefix(): readonly number[] {
    return this.plain().unitPrefix
  }
}

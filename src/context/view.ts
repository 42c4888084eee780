import type { Message } from '../messages/message.js'
import type { Unit, UnitKind } from '../messages/units.js'
import type { Provider } from '../messages/validate.js'
import type { Mandatory, PlanItem, SummaryLedger, View } from '../strategies/types.js'
import type { TokenCounter } from '../tokens/counter.js'

/** A repaired, counted history split into units: what a `HistoryIndex` holds. */
export interface ViewSource {
  readonly messages: readonly Message[]
  readonly tokens: readonly number[]
  readonly units: readonly Unit[]
  readonly unitTokens: readonly number[]
  readonly unitPrefix: readonly number[]
  readonly newestUser: number
}

/** The request around the history: what the messages may use and what else is sent. */
export interface ViewSettings {
  budget: number
  available: number
  overhead: Readonly<{ tools: number; reserve: number; priming: number }>
  counter: TokenCounter
  provider: Provider
  query: string | undefined
  summaries?: SummaryLedger | undefined
}

/** A view over `source` as it is now (a source that grows later is not seen growing). */
export function createView(source: ViewSource, settings: ViewSettings): View {
  return new SourceView(source, settings)
}

/** A copy of `source`'s arrays: for a strategy that awaits, while the source may grow. */
export function snapshot(source: ViewSource): ViewSource {
  return {
    messages: source.messages.slice(),
    tokens: source.tokens.slice(),
    units: source.units.map((u) => ({ ...u })),
    unitTokens: source.unitTokens.slice(),
    unitPrefix: source.unitPrefix.slice(),
    newestUser: source.newestUser,
  }
}

class SourceView implements View {
  readonly messages: readonly Message[]
  readonly units: readonly Unit[]
  readonly tokens: readonly number[]
  readonly unitTokens: readonly number[]
  readonly unitPrefix: readonly number[]
  readonly budget: number
  readonly available: number
  readonly overhead: Readonly<{ tools: number; reserve: number; priming: number }>
  readonly counter: TokenCounter
  readonly provider: Provider
  readonly query: string | undefined
  readonly summaries?: SummaryLedger | undefined
  private readonly lastUser: number
  private cachedMandatory: Mandatory | undefined

  constructor(source: ViewSource, settings: ViewSettings) {
    this.messages = source.messages
    this.units = source.units
    this.tokens = source.tokens
    this.unitTokens = source.unitTokens
    this.unitPrefix = source.unitPrefix
    this.lastUser = source.newestUser
    this.budget = settings.budget
    this.available = settings.available
    this.overhead = settings.overhead
    this.counter = settings.counter
    this.provider = settings.provider
    this.query = settings.query
    if (settings.summaries) this.summaries = settings.summaries
  }

  unit(u: number): Unit {
    const unit = this.units[u]
    if (!unit) throw new RangeError(`no unit ${u} in a view of ${this.units.length}`)
    return unit
  }

  kind(u: number): UnitKind {
    return this.unit(u).kind
  }

  first(u: number): Message {
    return this.message(this.unit(u).start)
  }

  role(u: number): Message['role'] {
    return this.first(u).role
  }

  unitSize(u: number): number {
    const t = this.unitTokens[u]
    if (t === undefined) throw new RangeError(`no unit ${u} in a view of ${this.units.length}`)
    return t
  }

  rangeTokens(from: number, to: number): number {
    if (to <= from) return 0
    return (this.unitPrefix[to] ?? Number.NaN) - (this.unitPrefix[from] ?? Number.NaN)
  }

  message(i: number): Message {
    const m = this.messages[i]
    if (!m) throw new RangeError(`no message ${i} in a view of ${this.messages.length}`)
    return m
  }

  messageTokens(i: number): number {
    const t = this.tokens[i]
    if (t === undefined)
      throw new RangeError(`no message ${i} in a view of ${this.messages.length}`)
    return t
  }

  unitOf(i: number): number {
    let lo = 0
    let hi = this.units.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (this.unit(mid).start <= i) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  newestUser(): number {
    return this.lastUser
  }

  mandatory(): Mandatory {
    if (this.cachedMandatory) return { ...this.cachedMandatory }
    const preamble = this.units.length > 0 && this.kind(0) === 'system' ? 0 : -1
    const last = this.units.length - 1
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
      const { start, end } = this.unit(u)
      for (let i = start; i < end; i++) out.push({ index: i })
    }
    return out
  }
}

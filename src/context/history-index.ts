import type { Message } from '../messages/message.js'
import { type Unit, UnitBuilder, unitsOf } from '../messages/units.js'
import {
  type RepairResult,
  type RepairSink,
  type RepairState,
  repairFor,
  repairState,
  repairsByUnit,
  repairUnit,
} from '../providers/repair.js'
import type { ProviderRules } from '../providers/types.js'
import { countOnce, type TokenCounter } from '../tokens/counter.js'
import { checkMessage } from './check.js'
import { bytes, float64, int32 } from './column.js'
import { kindCode, kindOf } from './unit-kinds.js'

/** A history index's columns as plain arrays (see `HistoryIndex.plainArrays`). */
export interface PlainArrays {
  units: Unit[]
  tokens: number[]
  unitTokens: number[]
  unitPrefix: number[]
}

/** Where the output of the newest input unit starts: what is undone when that unit grows. */
interface Mark {
  messages: number
  units: number
  removed: number
  changed: number
  needUser: boolean
  newestUser: number
  exchanges: number
  added: string[]
}

/**
 * A history taken once: each message is checked, counted, repaired for the provider and
 * grouped into units as it arrives, with running sums over the units. Appending touches
 * only the newest unit, so the cost of a turn is the new message, not the history.
 *
 * Two sides are kept: the input as given (`input`, `inputTokens`) and the repaired history
 * strategies see (`messages`, `tokens`, the unit columns, `unitPrefix`, `origin`). Numbers
 * live in typed-array columns (`column.ts`) instead of plain arrays and an object per unit:
 * counts and sums as float64 (a counter may give any number), positions in 4 bytes, a kind
 * in 1, so a long history costs little beside its messages. Each input unit gives at most
 * one repaired unit; only the newest input unit is ever repaired again (when a tool result completes it), so everything before it is final.
 */
export class HistoryIndex {
  readonly input: Message[] = []
  readonly inputTokens = float64()
  /** Tokens of every input message (what the whole history weighs as stored). */
  inputTotal = 0
  /** Input messages whose count was given (stored by another process), not counted here. */
  readonly givenCounts = new Set<number>()
  readonly messages: Message[] = []
  /** Input index of each repaired message. */
  readonly origin = int32()
  readonly tokens = float64()
  /** Unit `u` is `messages[unitStart[u], unitEnd[u])`, of kind `unitKind[u]` (see `unit-kinds.ts`). */
  readonly unitStart = int32()
  readonly unitEnd = int32()
  readonly unitKind = bytes()
  /** `unitPrefix[k]` = tokens of units `0..k-1`. */
  readonly unitPrefix = float64()
  /** Input messages repair took out, and why. */
  readonly removed: RepairResult['removed'] = []
  /** Input messages repair changed (a call dropped, an id renamed), and why. */
  readonly changed: RepairResult['changed'] = []
  /** The newest unit that opens with a user message, or -1. */
  newestUser = -1
  /** Units that are tool exchanges: whether the history is an agent's, known without a scan. */
  exchanges = 0

  /** The columns as plain arrays, once a strategy asked for them (see `plainArrays`). */
  private plain: PlainArrays | undefined
  /** How much of `plain` still holds: an undo or a whole repair lowers these. */
  private plainUnits = 0
  private plainMessages = 0

  private readonly raw = new UnitBuilder()
  private readonly state: RepairState
  private mark: Mark | undefined
  /** The newest input unit, when its repaired form is not made yet. */
  private pending: Unit | undefined
  /**
   * Whether the provider's repair goes unit by unit from the start (OpenAI chat, Anthropic).
   * Others (a Responses compaction supersedes everything before it) are repaired whole again
   * when a view is asked for after messages arrived.
   */
  private readonly byUnit: boolean
  private dirty = false
  private readonly out: RepairSink

  constructor(
    readonly counter: TokenCounter,
    readonly provider: ProviderRules,
    /** Messages already checked (a transform's output): skip the schema check. */
    private readonly trusted = false,
    /**
     * The index is the only holder of these messages' counts (a context's own copies): the
     * counter does not also cache them. Else (`fit` on a caller's array, a transform's
     * output) the counter's cache keeps them for a new array of the same messages.
     */
    private readonly ownsCounts = false,
  ) {
    this.unitPrefix.push(0)
    this.state = repairState(provider)
    this.byUnit = repairsByUnit(provider)
    this.out = {
      messages: this.messages,
      removed: this.removed,
      changed: this.changed,
      origin: this.origin,
    }
  }

  get length(): number {
    return this.input.length
  }

  /** Units of the repaired history. */
  get unitCount(): number {
    return this.unitStart.length
  }

  /** Takes the next message (not copied: the caller hands over an object it will not modify). */
  push(m: Message, counted?: number): void {
    const i = this.input.length
    if (!this.trusted) checkMessage(m, i)
    const t = counted ?? this.count(m)
    if (counted !== undefined) this.givenCounts.add(i)
    this.input.push(m)
    this.inputTokens.push(t)
    this.inputTotal += t
    const extended = this.raw.push(m)
    // Only the newest input unit is ever looked at again: older ones are not kept.
    const raw = this.raw.units
    if (raw.length > 1) raw.splice(0, raw.length - 1)
    if (!this.byUnit) {
      this.dirty = true
      return
    }
    if (!extended || !this.mark) {
      // The unit before is final now: repaired once, here, if no view asked for it yet.
      this.settle()
      this.mark = this.markHere()
    } else if (!this.pending) {
      // The newest unit grew: its repaired form is out of date.
      this.undo(this.mark)
    }
    this.pending = this.raw.units[this.raw.units.length - 1]
  }

  /**
   * Repairs the newest input unit, if it changed since it was last repaired. Done when a view
   * is asked for (or the unit is final), so a tool exchange still waiting for its results is
   * not repaired, then repaired again, at every message.
   */
  settle(): void {
    if (!this.byUnit) {
      if (this.dirty) this.repairWhole()
      return
    }
    const unit = this.pending
    const mark = this.mark
    if (!unit || !mark) return
    this.pending = undefined
    mark.added = repairUnit(this.input, unit, this.state, this.out)
    this.extendUnits(mark.messages, unit.kind === 'system')
  }

  /** The whole input repaired again, for a provider whose rules are not unit by unit. */
  private repairWhole(): void {
    this.dirty = false
    const r = repairFor(this.input, this.provider)
    this.messages.length = 0
    for (const c of [this.origin, this.tokens, this.unitStart, this.unitEnd, this.unitKind])
      c.truncate(0)
    this.unitPrefix.truncate(1)
    this.removed.length = 0
    this.changed.length = 0
    this.removed.push(...r.removed)
    this.changed.push(...r.changed)
    this.newestUser = -1
    this.exchanges = 0
    this.plainUnits = 0
    this.plainMessages = 0
    r.messages.forEach((m, k) => {
      this.messages.push(m)
      this.origin.push(r.origin[k] ?? -1)
    })
    for (const u of unitsOf(r.messages)) {
      this.extendUnits(u.start, u.kind === 'system', u.end)
    }
  }

  private count(m: Message): number {
    return this.ownsCounts ? countOnce(this.counter, m) : this.counter.countMessage(m)
  }

  /** The input messages from position `from` of `messages`, in order. */
  pushAll(messages: readonly Message[], from = 0): void {
    for (let i = from; i < messages.length; i++) this.push(messages[i] as Message)
    this.settle()
  }

  /**
   * The columns as plain arrays, for strategies written against `View.units`, `tokens`,
   * `unitTokens` and `unitPrefix`. Made on the first call, then kept in step: a later call
   * costs what changed since, so such a strategy still pays per turn only for what is new.
   */
  plainArrays(): PlainArrays {
    this.plain ??= { units: [], tokens: [], unitTokens: [], unitPrefix: [0] }
    const p = this.plain
    p.units.length = this.plainUnits
    p.unitTokens.length = this.plainUnits
    p.unitPrefix.length = this.plainUnits + 1
    p.tokens.length = this.plainMessages
    for (let u = this.plainUnits; u < this.unitCount; u++) {
      const start = this.unitStart.at(u) ?? 0
      const end = this.unitEnd.at(u) ?? start
      const kind = kindOf[this.unitKind.at(u) ?? 2] ?? 'message'
      const before = this.unitPrefix.at(u) ?? 0
      const after = this.unitPrefix.at(u + 1) ?? before
      p.units.push({ kind, start, end, complete: true })
      p.unitTokens.push(after - before)
      p.unitPrefix.push(after)
    }
    for (let i = this.plainMessages; i < this.messages.length; i++)
      p.tokens.push(this.tokens.at(i) ?? 0)
    this.plainUnits = this.unitCount
    this.plainMessages = this.messages.length
    return p
  }

  /** True when the index holds exactly the first `length` messages of `messages`, as the same objects. */
  isPrefixOf(messages: readonly unknown[]): boolean {
    const input = this.input
    if (input.length > messages.length) return false
    // Newest first: an edited list usually differs near its end.
    for (let i = input.length - 1; i >= 0; i--) if (input[i] !== messages[i]) return false
    return true
  }

  private markHere(): Mark {
    return {
      messages: this.messages.length,
      units: this.unitCount,
      removed: this.removed.length,
      changed: this.changed.length,
      needUser: this.state.needUser,
      newestUser: this.newestUser,
      exchanges: this.exchanges,
      added: [],
    }
  }

  private undo(mark: Mark): void {
    this.messages.length = mark.messages
    this.origin.truncate(mark.messages)
    this.tokens.truncate(mark.messages)
    this.unitStart.truncate(mark.units)
    this.unitEnd.truncate(mark.units)
    this.unitKind.truncate(mark.units)
    this.unitPrefix.truncate(mark.units + 1)
    this.removed.length = mark.removed
    this.changed.length = mark.changed
    this.state.needUser = mark.needUser
    for (const id of mark.added) this.state.usedIds.delete(id)
    this.newestUser = mark.newestUser
    this.exchanges = mark.exchanges
    this.plainUnits = Math.min(this.plainUnits, mark.units)
    this.plainMessages = Math.min(this.plainMessages, mark.messages)
  }

  /** Counts the repaired messages from `from` on and makes them one unit. */
  private extendUnits(from: number, system: boolean, end = this.messages.length): void {
    const n = end
    if (n === from) return
    let t = 0
    for (let k = from; k < n; k++) {
      const m = this.messages[k] as Message
      const at = this.origin.at(k) ?? -1
      const c = m === this.input[at] ? (this.inputTokens.at(at) ?? this.count(m)) : this.count(m)
      this.tokens.push(c)
      t += c
    }
    const first = this.messages[from] as Message
    const u = this.unitCount
    const kind = system
      ? 'system'
      : first.role === 'assistant' && first.toolCalls?.length
        ? 'exchange'
        : 'message'
    this.unitStart.push(from)
    this.unitEnd.push(n)
    this.unitKind.push(kindCode[kind])
    this.unitPrefix.push((this.unitPrefix.at(u) ?? 0) + t)
    if (first.role === 'user') this.newestUser = u
    if (kind === 'exchange') this.exchanges++
  }
}

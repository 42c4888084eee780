import { requireArgument, requireOptions } from '../options-check.js'
import { trimOldest } from './budget.js'
import { readAhead } from './ledger-ahead.js'
import { placeOf } from './ledger-items.js'
import { WINDOW_MESSAGES } from './ledger-tally.js'
import { LEDGER_HEADING, LEDGER_HEADING_RECALL, ledgerText } from './ledger-text.js'
import { pinnedSet } from './pins.js'
import { whenReady } from './scorers.js'
import type { PlanItem, Strategy, View } from './types.js'

export { LEDGER_HEADING, LEDGER_HEADING_RECALL }

export interface LedgerOptions {
  /** Share of the room beside the system prompt kept for the ledger, in (0, 1) (less only when the newest turn leaves less). Default 0.5. */
  share?: number
  /** Tokens the ledger may use at most. Default 1,000. */
  maxTokens?: number
  /** `tool-calls`: only for a history with tool calls (an agent's). Default `always`. */
  when?: 'always' | 'tool-calls'
}

/** Dropped messages read for the ledger, nearest the kept ones first, in times its size. */
const WINDOW = 16
/** ... and never more than this many tokens of them. */
const WINDOW_MAX = 6_000
/**
 * ... under a stable cut: its ledger is made once per move of the cut and keeps its whole room
 * between moves, so reading further back costs little per call and fills the room it holds
 * (on τ-bench traffic at 6,000 tokens, 94% of it against 75%).
 */
const STABLE_WINDOW_MAX = 12_000

/** Chosen by leave-one-out on τ-bench (`npm run eval:agent`). */
export const LEDGER_SHARE = 0.5

/**
 * The dropped view positions the ledger reads, oldest first: walking back from the newest
 * over the gaps between what the plan sends, those nearest the kept ones until `limit`
 * tokens of them. A placeholder stands for nothing here (it holds no fact); a summary does.
 * Its cost is the plan and the window, not the history.
 */
function droppedWindow(view: View, plan: readonly PlanItem[], limit: number): number[] {
  const sent: number[] = []
  let summarized: Set<number> | undefined
  for (const item of plan) {
    if (!('synthetic' in item)) sent.push(item.index)
    else if (item.reason === 'summary') {
      summarized ??= new Set()
      for (const k of item.replaces) summarized.add(k)
    }
  }
  const out: number[] = []
  let volume = 0
  let upper = view.messages.length
  // Pinned messages are sent beside the plan (pins.ts): never dropped.
  const pinned = pinnedSet(view)
  for (let k = sent.length; k >= 0 && volume < limit && out.length < WINDOW_MESSAGES; k--) {
    const lower = k > 0 ? (sent[k - 1] as number) + 1 : 0
    for (let i = upper - 1; i >= lower && volume < limit && out.length < WINDOW_MESSAGES; i--) {
      if (summarized?.has(i) || view.message(i).role === 'system' || pinned.has(i)) continue
      out.push(i)
      volume += view.messageTokens(i)
    }
    if (k > 0) upper = sent[k - 1] as number
  }
  return out.reverse()
}

/** Ranges named at most: a scattered cut is named by its first ranges and a count. */
const RANGES = 12

/**
 * `Left out: messages 1-17, 19.`: the places in the caller's history of the gaps between what
 * the plan sends, as ranges. Its cost is the plan, not the history.
 */
function leftOut(view: View, plan: readonly PlanItem[]): string {
  const sent: number[] = []
  for (const item of plan) if (!('synthetic' in item)) sent.push(item.index)
  // Pinned messages are sent beside the plan (pins.ts): never left out.
  for (const i of pinnedSet(view)) sent.push(i)
  sent.sort((a, b) => a - b)
  const ranges: string[] = []
  let count = 0
  let from = 0
  for (const k of [...sent, view.messages.length]) {
    if (k > from) {
      count++
      if (ranges.length < RANGES) {
        const a = placeOf(view, from)
        const b = placeOf(view, k - 1)
        ranges.push(a === b ? `${a}` : `${a}-${b}`)
      }
    }
    from = Math.max(from, k + 1)
  }
  const more = count > RANGES ? ` and ${count - RANGES} more ranges` : ''
  return `Left out: messages ${ranges.join(', ')}${more}.`
}

/** Whether the history has a tool exchange: the index keeps the count; a view made by hand is read newest first. */
function hasToolCalls(view: View): boolean {
  if (view.exchanges !== undefined) return view.exchanges() > 0
  for (let u = view.unitCount - 1; u >= 0; u--) if (view.kind(u) === 'exchange') return true
  return false
}

/** The plan with the ledger of what it drops after the system prompt, and the ledger's tokens (0: none). */
function withEntry(
  view: View,
  plan: PlanItem[],
  maxTokens: number,
  heading: string,
  windowMax = WINDOW_MAX,
): { plan: PlanItem[]; tokens: number } {
  const window = droppedWindow(view, plan, Math.min(WINDOW * maxTokens, windowMax))
  // With recall, the heading names every message left out: any of them can be asked for.
  const named = heading === LEDGER_HEADING ? heading : `${heading} ${leftOut(view, plan)}`
  const made = window.length > 0 ? ledgerText(view, window, maxTokens, named) : undefined
  if (!made) return { plan, tokens: 0 }
  const at = plan.findIndex(
    (item) => 'synthetic' in item || view.message(item.index).role !== 'system',
  )
  // It stands for the messages it quotes (a bounded list: a fit's cost does not grow with
  // what was dropped); the others stay dropped for the budget.
  const ledger: PlanItem = {
    synthetic: made.message,
    replaces: made.replaces ?? [],
    reason: 'ledger',
  }
  return {
    plan: at < 0 ? [...plan, ledger] : [...plan.slice(0, at), ledger, ...plan.slice(at)],
    tokens: made.tokens,
  }
}

/**
 * The view with `less` tokens fewer available: the inner strategy leaves the ledger its room.
 * The ledger is a user message right after the system prompt, so the kept history need not
 * open with a user turn of its own (a user-first provider's rule is met by the ledger; when no
 * ledger is written after all, assembly still holds the plan to the rule).
 */
function narrowed(view: View, less: number, aside = false): View {
  // A view made by hand may not have `narrowed`: it is layered over instead.
  return (
    view.narrowed?.(less, true, aside) ??
    (Object.create(view, {
      available: { value: view.available - less },
      userFirst: { value: false },
      aside: { value: (view.aside ?? 0) + (aside ? less : 0) },
    }) as View)
  )
}

/** A strategy whose cut holds still between moves (`tokenLimited({ stable })`). */
function isStable(strategy: Strategy): boolean {
  const options = (strategy as { options?: { stable?: unknown } }).options
  return !!options && typeof options === 'object' && !!options.stable
}

export function checkLedgerOptions(options: LedgerOptions): Required<LedgerOptions> {
  requireOptions(options, 'ledger', ['share', 'maxTokens', 'when'], {
    name: 'ledger',
    required: true,
  })
  const { share = LEDGER_SHARE, maxTokens = 1000, when = 'always' } = options
  requireArgument(
    typeof share === 'number' && share > 0 && share < 1,
    'ledger',
    'ledger.share',
    'a fraction in (0, 1)',
    share,
  )
  requireArgument(
    Number.isInteger(maxTokens) && maxTokens > 0,
    'ledger',
    'ledger.maxTokens',
    'a token count > 0',
    maxTokens,
  )
  requireArgument(
    when === 'always' || when === 'tool-calls',
    'ledger',
    'ledger.when',
    '"always" or "tool-calls"',
    when,
  )
  return { share, maxTokens, when }
}

/**
 * `inner` with a ledger of what it drops: the inner strategy selects within the room less
 * the ledger's share; the identifiers, dates, amounts and other facts of the messages it
 * left out are then listed in one user message, in place of them (after the system
 * prompt), each under the message (by its place) and source that held it, within that share. The ledger
 * depends only on what was dropped, so it changes when the cut moves and not otherwise.
 */
/** The strategy a `withLedger` strategy wraps. */
const bases = new WeakMap<object, Strategy>()

/** The strategy without its ledger (itself when it has none). */
export function ledgerBase<S extends Strategy>(strategy: S): S {
  return (bases.get(strategy) as S | undefined) ?? strategy
}

export function withLedger<S extends Strategy>(
  inner: S,
  options: LedgerOptions = {},
  { recall = false }: { recall?: boolean } = {},
): S {
  requireArgument(
    !!inner && typeof inner === 'object' && typeof (inner as Strategy).select === 'function',
    'withLedger',
    'strategy',
    'a strategy object such as tokenLimited()',
    inner,
  )
  const { share, maxTokens, when } = checkLedgerOptions(options)
  const heading = recall ? LEDGER_HEADING_RECALL : LEDGER_HEADING
  // A ledger replaces a ledger: never two in one request.
  const base = ledgerBase(inner)
  const stable = isStable(base)
  const select = (view: View): PlanItem[] | Promise<PlanItem[]> => {
    // Nothing is dropped for the budget when everything fits; an agent's history only, when asked.
    if (
      (base.budgetAware && view.rangeTokens(0, view.unitCount) <= view.available) ||
      (when === 'tool-calls' && !hasToolCalls(view))
    )
      return base.select(view)
    const m = view.mandatory()
    // Made at the size the budget gives (`full`), whatever this turn's newest messages, so
    // under a cut that does not move its text does not change; smaller (`size`) only when the
    // system prompt and the newest turn leave less than that.
    const beside = view.available - (m.preamble >= 0 ? view.unitSize(m.preamble) : 0)
    const full = Math.min(maxTokens, Math.floor(beside * share))
    const size = Math.min(full, view.available - m.tokens)
    if (!Number.isFinite(size) || size < 32) return base.select(view)
    const entry = (plan: PlanItem[]) => {
      const made = withEntry(view, plan, full, heading)
      return made.tokens <= size ? made : withEntry(view, plan, size, heading)
    }
    // A strategy that does not count drops by its own rule; the budget pass assembly would
    // make after it is made here, before the ledger, so the ledger quotes what it drops too
    // and is not itself what that pass takes out.
    if (!base.budgetAware)
      return whenReady(base.select(view), (plan) => {
        const made = entry(trimOldest(view, plan, view.available - size).items)
        return made.tokens > 0 ? made.plan : plan
      })
    // A stable cut keeps the ledger's whole room: its start then depends on the history alone,
    // never on how long the ledger came out, so the ledger moves no cut the strategy would
    // not move (the prompt cache breaks no more often), and between cuts it is the same text.
    // Less only when the system prompt and the newest turn leave less, and then in steps (a
    // half, a quarter...), so a turn that grows by a little does not change the ledger.
    if (stable) {
      let step = full
      while (step > size) step = Math.floor(step / 2)
      if (step < 32) return base.select(view)
      return whenReady(base.select(narrowed(view, step, true)), (plan) => {
        const made = withEntry(view, plan, step, heading, STABLE_WINDOW_MAX)
        return made.tokens > 0 ? made.plan : plan
      })
    }
    // The room the ledger did not use goes back to messages: the strategy selects again with
    // the ledger's real size, and keeps that selection when its ledger is no larger.
    return whenReady(base.select(narrowed(view, size)), (first) => {
      const made = entry(first)
      // Worth a second selection only when a real share of the room is left.
      if (made.tokens === 0 || size - made.tokens < Math.max(32, size / 8)) return made.plan
      return whenReady(base.select(narrowed(view, made.tokens)), (second) => {
        const again = entry(second)
        if (again.tokens === 0) return second
        return again.tokens <= made.tokens ? again.plan : made.plan
      }) as PlanItem[] | Promise<PlanItem[]>
    }) as PlanItem[] | Promise<PlanItem[]>
  }
  const window = Math.min(WINDOW * maxTokens, stable ? STABLE_WINDOW_MAX : WINDOW_MAX)
  const selectAhead = (view: View): PlanItem[] | Promise<PlanItem[]> =>
    whenReady(select(view), (plan) => {
      // Only once the history is near the budget: a short chat never pays for it.
      if (view.rangeTokens(0, view.unitCount) > view.available / 2) readAhead(view, plan, window)
      return plan
    })
  const ledgered = { ...base, select: selectAhead, ledger: { share, maxTokens, when } }
  bases.set(ledgered, base)
  return ledgered
}

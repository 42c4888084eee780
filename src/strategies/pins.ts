import { contentText, type Message } from '../messages/message.js'
import { requireArgument } from '../options-check.js'
import { mandatoryOverflow, trimOldest } from './budget.js'
import { whenReady } from './scorers.js'
import type { PlanItem, Strategy, View } from './types.js'

/**
 * Chooses the messages sent whenever the system prompt is (`fit`'s `pin` option): called with
 * each message and its index in the caller's history. A message with `pinned: true` is
 * pinned whatever it answers.
 */
export type Pin = (message: Message, index: number) => boolean

/** The `pin` option, checked: a function or nothing. */
export function checkPin(value: unknown): Pin | undefined {
  requireArgument(
    value === undefined || typeof value === 'function',
    'fit',
    'pin',
    'a function (message, index) => boolean',
    value,
  )
  return value as Pin | undefined
}

/** Whether a message is pinned: its own `pinned: true`, or the `pin` option's choice. */
export function isPinned(message: Message, index: number, pin: Pin | undefined): boolean {
  return message.pinned === true || pin?.(message, index) === true
}

/**
 * The units holding a pinned message, oldest first (`origin`: each view position's index in
 * the caller's history; default the view's own), or undefined when none is. With a `pin`
 * function, linear in the history; without one, a history that grows by appending is read
 * only where it grew (the positions holding `pinned: true` are kept per message array).
 */
function pinnedUnits(view: View, pin: Pin | undefined, origin = view.origin): number[] | undefined {
  const units: number[] = []
  const n = view.messages.length
  if (pin === undefined) {
    for (const i of flaggedPositions(view)) {
      const u = view.unitOf(i)
      if (units[units.length - 1] !== u) units.push(u)
    }
    return units.length ? units : undefined
  }
  for (let i = 0; i < n; i++)
    if (isPinned(view.message(i), origin?.[i] ?? i, pin)) {
      const u = view.unitOf(i)
      units.push(u)
      i = view.end(u) - 1
    }
  return units.length ? units : undefined
}

/** Per message array: how far it was read, the message read last, and the positions flagged `pinned: true`. */
const flagged = new WeakMap<
  readonly Message[],
  { read: number; last: Message | undefined; positions: number[] }
>()

/** View positions of the messages flagged `pinned: true`, ascending: read once per appended message. */
function flaggedPositions(view: View): readonly number[] {
  const n = view.messages.length
  let kept = flagged.get(view.messages)
  // A history rewritten in place (not appended to) is read again.
  if (!kept || kept.read > n || (kept.read > 0 && view.message(kept.read - 1) !== kept.last)) {
    kept = { read: 0, last: undefined, positions: [] }
    flagged.set(view.messages, kept)
  }
  for (let i = kept.read; i < n; i++) if (view.message(i).pinned === true) kept.positions.push(i)
  kept.read = n
  kept.last = n > 0 ? view.message(n - 1) : undefined
  return kept.positions
}

/** View positions of the units `units`. */
function positionsOf(view: View, units: readonly number[]): Set<number> {
  const out = new Set<number>()
  for (const u of units) for (let i = view.start(u); i < view.end(u); i++) out.add(i)
  return out
}

/**
 * View positions of the units holding a pinned message, or undefined when none is: what a
 * transform leaves as it is.
 */
export function pinnedPositions(
  view: View,
  pin: Pin | undefined,
  origin: ArrayLike<number> | undefined,
): Set<number> | undefined {
  const units = pinnedUnits(view, pin, origin)
  return units && positionsOf(view, units)
}

/** The pinned positions of each view a pinning wrapper handed on. */
const pinnedSets = new WeakMap<View, ReadonlySet<number>>()

/**
 * The view positions a pinning wrapper sends beside whatever the strategy chooses (whole
 * units holding a pinned message), for a strategy that summarizes or lists what it drops:
 * they are sent as they are, so its own message need not repeat them. Empty for a view no
 * pinning wrapper made.
 */
export function pinnedSet(view: View): ReadonlySet<number> {
  return pinnedSets.get(view) ?? new Set()
}

/** The strategy each pinning wrapper wraps, and the wrappers made per strategy and `pin`. */
const inners = new WeakMap<object, Strategy>()
const made = new WeakMap<object, WeakMap<object, Strategy>>()

/** The strategy without its pinning (itself when it has none). */
export function pinsBase<S extends Strategy>(strategy: S): S {
  return (inners.get(strategy) as S | undefined) ?? strategy
}

/**
 * `inner`, with every pinned message sent whenever the system prompt is: whole units (a
 * pinned tool result brings its call and the other results), verbatim, in their place in
 * time. They are counted with what must be sent: the inner strategy chooses within the room
 * they leave, and a `ContextOverflowError` says when the system prompt, the pinned messages
 * and the newest turn do not fit together. A summary the inner strategy writes does not
 * stand for a pinned message (it is sent beside it). Under a provider whose history opens
 * with a user turn (Anthropic, Gemini), an oldest pinned message that is not the user's
 * brings the user turn before it.
 *
 * Made once per strategy and `pin` function; what keeps state by the strategy object
 * (`fitAsync`'s summaries) keys it by `pinsBase`, the strategy as given.
 */
export function withPins<S extends Strategy>(strategy: S, pin?: Pin): S {
  const inner = pinsBase(strategy)
  const byPin = made.get(inner) ?? new WeakMap()
  made.set(inner, byPin)
  const key = pin ?? made
  const known = byPin.get(key)
  if (known) return known as S

  const select = (view: View): PlanItem[] | Promise<PlanItem[]> => {
    const units = pinnedUnits(view, pin)
    if (!units) return inner.select(view)
    const m = view.mandatory()
    const pinned = units.filter((u) => u !== m.preamble)
    const oldest = pinned[0]
    if (oldest === undefined) return inner.select(view)
    // A user-first provider drops what stands before the first user turn: the oldest pinned
    // unit opens with one, or brings the user turn before it.
    if (view.userFirst && view.role(oldest) !== 'user') {
      let u = oldest - 1
      while (u > m.preamble && view.role(u) !== 'user') u--
      if (u > m.preamble) pinned.unshift(u)
    }
    const positions = positionsOf(view, pinned)
    // The pinned units the strategy does not send anyway (the newest turn).
    let tokens = 0
    for (const u of pinned) if (u !== m.last && u !== m.lastUser) tokens += view.unitSize(u)
    if (m.tokens + tokens > view.available)
      throw mandatoryOverflow(
        view,
        m.tokens,
        m.preamble >= 0 ? view.unitSize(m.preamble) : 0,
        tokens,
      )
    // The strategy chooses in the room the pinned units leave; in the whole room when
    // everything fits (it then sends them anyway), or when it does not count (what it chose
    // is then trimmed to fit beside them).
    const room =
      !inner.budgetAware || view.rangeTokens(0, view.unitCount) <= view.available
        ? view
        : (view.narrowed?.(tokens) ??
          (Object.create(view, { available: { value: view.available - tokens } }) as View))
    pinnedSets.set(room, positions)
    return whenReady(inner.select(room), (plan) => merged(view, plan, pinned, positions))
  }
  const wrapped = { ...inner, select } as S
  inners.set(wrapped, inner)
  byPin.set(key, wrapped)
  return wrapped
}

/**
 * The plan with each pinned unit sent whole and verbatim in its place, and no summary
 * standing for a pinned message; then, if a rewrite the strategy made of a pinned message
 * (the newest, cut to fit) or a strategy that does not count left it over the room, the
 * oldest units that are neither pinned nor always sent go until it fits (`trimOldest`).
 */
function merged(
  view: View,
  plan: readonly PlanItem[],
  units: readonly number[],
  positions: ReadonlySet<number>,
): PlanItem[] {
  const out: PlanItem[] = []
  let p = 0
  const before = (i: number) => {
    for (; p < units.length && view.start(units[p] as number) < i; p++)
      view.items(units[p] as number, (units[p] as number) + 1, out)
  }
  for (const item of plan) {
    if ('synthetic' in item)
      out.push({ ...item, replaces: item.replaces.filter((r) => !positions.has(r)) })
    else if (!positions.has(item.index)) {
      before(item.index)
      out.push(item)
    }
  }
  before(Number.POSITIVE_INFINITY)
  return trimOldest(view, out, view.available, (u) => positions.has(view.start(u))).items
}

/** Words that make a user's message a standing instruction (`standingInstructions`). */
const STANDING = [
  // "From now on...", "Going forward...", "for the rest of this conversation..."
  /\b(from now on|(?<!keep )going forward|from here on|in (the )?future|for the rest of (this|the|our) (conversation|chat|session)|until i say otherwise|each time you|every time you|whenever you)\b/i,
  // An imperative "always ..." / "never ..." opening a sentence or after "please", "and", "but".
  /(^|[.!?;:\n]\s*|\b(please|and|but|so)\s+)(always|never|don'?t ever|do not ever)\s+(?!(been|had|was|were|thought|knew|felt|liked|loved|seen|heard|got|went|did|really|have|here|there|a|mind|give|quit|shy)\b)[a-z]/i,
  // "Make sure you always...", "remember to never...", "I always want...", "we never fly..."
  /\b(make sure|remember|be sure|keep in mind)\b[^.!?]{0,20}\b(always|never)\b|\b(i|we) (always|never) (want|need|prefer|fly|book|use|take|pay|sit)\b/i,
]

/**
 * A `pin` function that pins a user's standing instructions: a user message saying what to
 * do from now on ("From now on never book basic economy", "Always answer in French",
 * "Make sure you never share my email"). Off unless given (`pin: standingInstructions()`):
 * it reads English wording, and `npm run eval:instructions` says how often it pins what it
 * should and what it should not.
 */
export function standingInstructions(): Pin {
  // Its answer depends on the message alone: read once per message object, not on every fit.
  const read = new WeakMap<Message, boolean>()
  return (message) => {
    if (message.role !== 'user') return false
    let pinned = read.get(message)
    if (pinned === undefined) {
      const text = contentText(message.content)
      pinned = STANDING.some((re) => re.test(text))
      read.set(message, pinned)
    }
    return pinned
  }
}

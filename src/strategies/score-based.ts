import { ContextOverflowError, InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import type { Unit } from '../messages/units.js'
import { describeValue, requireOptions } from '../options-check.js'
import { assertMandatoryFits } from './budget.js'
import { type AsyncScorer, recency, type Scorer, whenReady } from './scorers.js'
import type { Mandatory, PlanItem, Strategy, View } from './types.js'

export interface ScoreBasedOptions {
  /** Tokens the request may use. Default: the model's window (or `fit`'s budget). */
  limit?: number
  model?: string
  /** Recency decay of the default scorer: newest 1.0, each older one this times the next. */
  keepRate?: number
  /** One score per unit; default `recency({ keepRate })`. A scorer answering with a promise needs `fitAsync`. */
  scorer?: Scorer | AsyncScorer
  /** A kept unit also pulls in the user message just before it, when that fits. */
  neighbours?: boolean
  /** A tool exchange too large to keep whole keeps its call and the newest results that fit. */
  partial?: boolean
}

/** Text of the stub standing in for a tool result left out of a partly kept exchange. */
export const OMITTED_RESULT = '[tool result omitted to fit the context window]'

/**
 * Keeps units by score while they fit (CAMEL `ScoreBasedContextCreator`): the system
 * prompt always; then the highest-scoring units, ties to the newer; a tool exchange is one
 * item (its best score, the sum of its tokens) and, when too large, may keep its call and
 * its newest results with stubs for the rest. The output is in chronological order.
 */
export function scoreBased(
  options: ScoreBasedOptions = {},
): Strategy<'scoreBased', ScoreBasedOptions> {
  requireOptions(options, 'scoreBased', [
    'limit',
    'model',
    'keepRate',
    'scorer',
    'neighbours',
    'partial',
  ])
  const { keepRate = 0.9, neighbours = false, partial = true } = options
  if (!(keepRate > 0 && keepRate <= 1)) {
    throw new InvalidOptionError(
      'keepRate',
      `expected a number in (0, 1], got ${describeValue(keepRate)}`,
    )
  }
  const scorer = options.scorer ?? recency({ keepRate })
  return {
    name: 'scoreBased',
    options,
    budgetAware: true,
    request: { limit: options.limit, model: options.model },
    // The default scorer answers at once; a given one may answer with a promise.
    ...(options.scorer === undefined && { async: false }),
    select: (view) => selectByScore(view, scorer, neighbours, partial),
  }
}

function selectByScore(
  view: View,
  scorer: AsyncScorer,
  neighbours: boolean,
  partial: boolean,
): PlanItem[] | Promise<PlanItem[]> {
  const m = view.mandatory()
  if (m.preamble >= 0 && view.unitSize(m.preamble) > view.available) {
    const system = view.unitSize(m.preamble)
    const { tools, reserve, priming } = view.overhead
    throw new ContextOverflowError('the system message alone', {
      required: system + tools + reserve + priming,
      budget: view.budget,
      breakdown: { system, tools, reserve, priming },
    })
  }
  assertMandatoryFits(view, m)
  const n = view.unitCount
  const room = view.available - m.tokens
  const keep = new Uint8Array(n)
  for (const u of [m.preamble, m.lastUser, m.last]) if (u >= 0) keep[u] = 1
  const partials = new Map<number, PlanItem[]>()

  // Fast path: everything fits.
  if (view.rangeTokens(0, n) <= view.available) return chronological(view, keep.fill(1), partials)

  return whenReady(scorer(view), (scores) =>
    fillByScore(view, m, scores, keep, partials, room, neighbours, partial),
  )
}

function fillByScore(
  view: View,
  m: Mandatory,
  scores: readonly number[],
  keep: Uint8Array,
  partials: Map<number, PlanItem[]>,
  available: number,
  neighbours: boolean,
  partial: boolean,
): PlanItem[] {
  const n = view.unitCount
  if (!Array.isArray(scores) || scores.length !== n) {
    const got = Array.isArray(scores) ? `${scores.length} scores` : typeof scores
    throw new InvalidOptionError('scorer', `returned ${got} for ${n} units`)
  }
  // A score that is not a number (NaN from a custom scorer) ranks last instead of upsetting the sort.
  const score = (u: number) => {
    const x = scores[u]
    return x === undefined || Number.isNaN(x) ? Number.NEGATIVE_INFINITY : x
  }
  let room = available
  const order: number[] = []
  for (let u = 0; u < n; u++) if (!keep[u]) order.push(u)
  order.sort((a, b) => score(b) - score(a) || b - a)

  for (const u of order) {
    if (keep[u] || partials.has(u)) continue
    const t = view.unitSize(u)
    if (t <= room) {
      keep[u] = 1
      room -= t
    } else if (partial && view.kind(u) === 'exchange') {
      const items = partialExchange(view, view.unit(u), room)
      if (items) {
        partials.set(u, items.plan)
        room -= items.tokens
      }
    } else {
      continue
    }
    if (neighbours && (keep[u] || partials.has(u)) && u - 1 > m.preamble && !keep[u - 1]) {
      const pt = view.unitSize(u - 1)
      if (view.role(u - 1) === 'user' && pt <= room && !partials.has(u - 1)) {
        keep[u - 1] = 1
        room -= pt
      }
    }
  }
  return chronological(view, keep, partials)
}

/** The call and the newest results that fit; every other result becomes a stub. */
function partialExchange(
  view: View,
  unit: Unit,
  room: number,
): { plan: PlanItem[]; tokens: number } | undefined {
  const call = view.message(unit.start)
  let tokens = view.messageTokens(unit.start)
  const stubs = new Map<number, { message: Message; tokens: number }>()
  for (let i = unit.start + 1; i < unit.end; i++) {
    const r = view.message(i)
    if (r.role !== 'tool') return undefined
    const stub: Message = {
      role: 'tool',
      toolCallId: r.toolCallId,
      ...(r.toolName !== undefined && { toolName: r.toolName }),
      content: OMITTED_RESULT,
    }
    const st = view.counter.countMessage(stub)
    stubs.set(i, { message: stub, tokens: st })
    tokens += st
  }
  if (tokens > room || call.role !== 'assistant') return undefined
  const full = new Set<number>()
  for (let i = unit.end - 1; i > unit.start; i--) {
    const extra = view.messageTokens(i) - (stubs.get(i)?.tokens ?? 0)
    if (tokens + extra <= room) {
      full.add(i)
      tokens += extra
    }
  }
  const plan: PlanItem[] = [{ index: unit.start }]
  for (let i = unit.start + 1; i < unit.end; i++) {
    const stub = stubs.get(i)
    plan.push(
      full.has(i) || !stub ? { index: i } : { index: i, message: stub.message, reason: 'stubbed' },
    )
  }
  return { plan, tokens }
}

function chronological(
  view: View,
  keep: Uint8Array,
  partials: Map<number, PlanItem[]>,
): PlanItem[] {
  const out: PlanItem[] = []
  for (let u = 0; u < view.unitCount; u++) {
    const p = partials.get(u)
    if (p) out.push(...p)
    else if (keep[u]) view.items(u, u + 1, out)
  }
  return out
}

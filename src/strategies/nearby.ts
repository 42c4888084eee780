/**
 * Spreading a scorer's scores to the turns around each hit: the answer after a question, the
 * turns either side, by a decay over a reach.
 */
import { InvalidOptionError } from '../errors.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import { type AsyncScorer, type Scorer, whenReady } from './scorers.js'

export interface NearbyOptions {
  /** Share of a unit's score given to the unit right after it: the reply to what matched. */
  next?: number
  /** Share of a unit's score given to each unit within `reach` on either side, times `decay` per step. */
  weight?: number
  /** How many units away a score still reaches. */
  reach?: number
  /** Factor per step away (1: flat within `reach`). */
  decay?: number
}

/** What `nearby` spreads by default: measured on LoCoMo with leave-one-conversation-out (README, "Relevance"). */
export const NEARBY_DEFAULTS: Required<NearbyOptions> = {
  next: 0.5,
  weight: 0.2,
  reach: 10,
  decay: 0.8,
}

/**
 * Lends part of each unit's score to the units around it: the turn after a match often
 * holds the answer to what matched, and a topic spans several turns. The newest user
 * message, the newest unit and the system preamble (always sent; the first is usually the
 * query itself) lend nothing.
 */
export function nearby(scorer: Scorer, options?: NearbyOptions): Scorer
export function nearby(scorer: AsyncScorer, options?: NearbyOptions): AsyncScorer
export function nearby(scorer: AsyncScorer, options: NearbyOptions = {}): AsyncScorer {
  requireArgument(typeof scorer === 'function', 'nearby', 'scorer', 'a scorer function', scorer)
  checkNearby(options)
  return (view) =>
    whenReady(scorer(view), (scores) => {
      const n = view.unitCount
      const silent = new Set<number>([n - 1])
      if (n > 0 && view.kind(0) === 'system') silent.add(0)
      const newestUser = view.newestUser()
      if (newestUser >= 0) silent.add(newestUser)
      return spreadScores(scores, options, silent)
    })
}

function checkNearby(options: NearbyOptions): void {
  requireOptions(options, 'nearby', ['next', 'weight', 'reach', 'decay'])
  for (const key of ['next', 'weight', 'reach', 'decay'] as const) {
    const v = options[key]
    if (v === undefined) continue
    const ok =
      typeof v === 'number' &&
      Number.isFinite(v) &&
      v >= 0 &&
      (key !== 'decay' || v <= 1) &&
      (key !== 'reach' || (Number.isInteger(v) && v <= 1000))
    if (!ok) {
      const want =
        key === 'decay'
          ? 'a number in [0, 1]'
          : key === 'reach'
            ? 'an integer in [0, 1000]'
            : 'a finite number >= 0'
      throw new InvalidOptionError(`nearby.${key}`, `expected ${want}, got ${describeValue(v)}`)
    }
  }
}

/**
 * `scores` with part of each one added to its neighbours (see `NearbyOptions`); units in
 * `silent` keep their own score but lend none. Linear in `scores.length × reach`.
 */
export function spreadScores(
  scores: readonly number[],
  options: NearbyOptions = {},
  silent: ReadonlySet<number> = new Set(),
): number[] {
  requireArgument(
    (Array.isArray(scores) && scores.every((v) => typeof v === 'number')) ||
      ArrayBuffer.isView(scores),
    'spreadScores',
    'scores',
    'a list of scores',
    scores,
  )
  requireArgument(
    typeof (silent as ReadonlySet<number> | null)?.has === 'function',
    'spreadScores',
    'silent',
    'a set of unit indices',
    silent,
  )
  checkNearby(options)
  const next = options.next ?? NEARBY_DEFAULTS.next
  const weight = options.weight ?? NEARBY_DEFAULTS.weight
  const reach = options.reach ?? NEARBY_DEFAULTS.reach
  const decay = options.decay ?? NEARBY_DEFAULTS.decay
  const n = scores.length
  const out = scores.slice()
  const steps: number[] = []
  for (let d = 1, f = weight * decay; d <= reach; d++, f *= decay) steps.push(f)
  for (let u = 0; u < n; u++) {
    const s = scores[u] ?? 0
    if (!(s > 0) || silent.has(u)) continue
    if (u + 1 < n) out[u + 1] = (out[u + 1] ?? 0) + next * s
    steps.forEach((step, k) => {
      const d = k + 1
      const f = step * s
      if (u - d >= 0) out[u - d] = (out[u - d] ?? 0) + f
      if (u + d < n) out[u + d] = (out[u + d] ?? 0) + f
    })
  }
  return out
}

import { requireArgument } from '../options-check.js'
import type { View } from './types.js'

/**
 * Where a cache-friendly view starts, with a low-water mark: the view grows by appending
 * until the next unit would overflow `room`; then the start moves forward once, far enough
 * that what is left fills at most `lowWater` of `room`, and the view grows again from there.
 *
 * The answer depends only on the token counts of the units (`prefix`, running sums), never
 * on when the caller asked, so every call over the same history picks the same start and
 * a start never moves while the view still fits: the sent prefix stays byte-identical
 * between cuts and the provider's prompt cache keeps hitting.
 *
 * Pure: the same counts give the same start. Cuts already made are remembered per `prefix`
 * array (a `ChatContext` grows one array), so a call costs the cuts since the last call, a
 * binary search each, not a replay of the whole history; a remembered cut is checked
 * against the counts before it is reused.
 *
 * @param prefix `prefix[k]` = tokens of units `0..k-1` (non-decreasing), or a view, whose
 *   `rangeTokens(0, k)` is that sum
 * @param first the first unit that may be cut (after the system preamble)
 * @param end units `[first, end)` exist
 * @param room tokens the units from the start to `end` may take
 * @param lowWater fill after a cut, a fraction of `room` in (0, 1]
 * @returns the start unit, in `[first, end]`
 */
export function stableCut(
  prefix: PrefixSums,
  first: number,
  end: number,
  room: number,
  lowWater: number,
): number {
  requireArgument(
    typeof prefix === 'object' &&
      prefix !== null &&
      (isArray(prefix) ||
        (typeof prefix.rangeTokens === 'function' && Array.isArray(prefix.messages))),
    'stableCut',
    'prefix',
    'running sums or a view',
    prefix,
  )
  for (const [name, v] of [
    ['first', first],
    ['end', end],
    ['room', room],
    ['lowWater', lowWater],
  ] as const)
    requireArgument(typeof v === 'number' && !Number.isNaN(v), 'stableCut', name, 'a number', v)
  const sums = prefix
  const at = isArray(sums)
    ? (k: number) => sums[k] ?? Number.NaN
    : (k: number) => sums.rangeTokens(0, k)
  // A view is remembered by its messages: the index behind it keeps one array as it grows.
  const key = isArray(sums) ? sums : sums.messages
  const low = Math.max(0, Math.floor(room * lowWater))
  let m = memo.get(key)
  if (!m || m.first !== first || m.room !== room || m.low !== low) {
    m = { first, room, low, cuts: [] }
    memo.set(key, m)
  }
  const { cuts } = m
  // Resume after the newest remembered cut that lies before `end` and whose counts still hold.
  let k = cuts.length
  while (k > 0 && (cuts[k - 1] as Cut).over >= end) k--
  // A count rewritten in place (not appended) makes the remembered cuts void.
  for (let j = 0; j < k; j++) {
    const c = cuts[j] as Cut
    if (at(c.over) !== c.total || at(c.start) !== c.startTotal) {
      k = 0
      break
    }
  }
  cuts.length = k
  let start = cuts[k - 1]?.start ?? first
  for (;;) {
    if (at(end) - at(start) <= room) return start
    // The first unit end at which the view from `start` overflows.
    let lo = start + 1
    let hi = end
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (at(mid) - at(start) > room) hi = mid
      else lo = mid + 1
    }
    const over = lo
    // Cut once: the earliest start from which units up to `over` fill at most the low-water mark.
    lo = start + 1
    hi = over
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (at(over) - at(mid) <= low) hi = mid
      else lo = mid + 1
    }
    start = lo
    // Only a cut whose counts are final is remembered (the newest unit may still grow).
    if (over < end) cuts.push({ over, start, total: at(over), startTotal: at(start) })
  }
}

/** Running sums over units: an array or typed array (`prefix[k]` = tokens of units `0..k-1`) or a view. */
export type PrefixSums = ArrayLike<number> | Pick<View, 'messages' | 'rangeTokens'>

const isArray = (p: PrefixSums): p is ArrayLike<number> => Array.isArray(p) || ArrayBuffer.isView(p)

/** A cut made when the view overflowed at unit end `over`, with the counts it was made on. */
interface Cut {
  over: number
  start: number
  total: number
  startTotal: number
}

const memo = new WeakMap<object, { first: number; room: number; low: number; cuts: Cut[] }>()

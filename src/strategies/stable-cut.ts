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
 * Pure and linear in the number of cuts (a binary search each), never in the messages.
 *
 * @param prefix `prefix[k]` = tokens of units `0..k-1` (non-decreasing)
 * @param first the first unit that may be cut (after the system preamble)
 * @param end units `[first, end)` exist
 * @param room tokens the units from the start to `end` may take
 * @param lowWater fill after a cut, a fraction of `room` in (0, 1]
 * @returns the start unit, in `[first, end]`
 */
export function stableCut(
  prefix: readonly number[],
  first: number,
  end: number,
  room: number,
  lowWater: number,
): number {
  const at = (k: number) => prefix[k] as number
  const low = Math.max(0, Math.floor(room * lowWater))
  let start = first
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
  }
}

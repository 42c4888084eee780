import { InvalidOptionError } from '../../errors.js'

/**
 * Reported usage below this share of what was counted is not a measurement of the same
 * request (a provider that reports only uncached input, a usage object from another call).
 */
export const MIN_RATIO = 0.5
/** Above this many provider tokens per counted token, the report is not believed either. */
export const MAX_RATIO = 4

/** The band the factor is held in: from the target up to 2 × HOLD above it (a share of the room). */
export const HOLD = 0.02

export interface Calibration {
  /** Smoothed provider tokens per counted token, or undefined before a plausible report. */
  ratio: number | undefined
  /** What the room a view may fill is divided by: never below 1, so a view never holds more counted tokens than its budget. */
  factor: number
}

/**
 * The next calibration after a usage report: an implausible report (not a positive finite
 * count, or a ratio outside [MIN_RATIO, MAX_RATIO]) leaves it as it was; a plausible one is
 * smoothed in. The target factor is the ratio plus half the margin, clamped to [1, MAX_RATIO];
 * the factor held so far stays while it covers the ratio and is at most 2 × HOLD above the
 * target, else it rises to HOLD above the target or falls to it.
 */
export function calibrate(
  previous: Calibration,
  promptTokens: unknown,
  counted: number,
  margin: unknown = 0.02,
): Calibration {
  if (typeof margin !== 'number' || !Number.isFinite(margin) || margin < 0 || margin > 1)
    throw new InvalidOptionError('margin', `expected a number from 0 to 1, got ${String(margin)}`)
  if (typeof promptTokens !== 'number' || !Number.isFinite(promptTokens) || promptTokens <= 0)
    return previous
  if (!(counted > 0)) return previous
  const measured = promptTokens / counted
  if (measured < MIN_RATIO || measured > MAX_RATIO) return previous
  const ratio = previous.ratio === undefined ? measured : 0.5 * previous.ratio + 0.5 * measured
  // Half the margin above the smoothed ratio: under by at most the margin when the next request is noisier.
  const target = clampFactor(ratio * (1 + margin / 2))
  // The factor sizes every view: one that moved on every report would move a stable view's
  // cut on every call, and the provider's prompt cache would miss. It is held while it still
  // covers the smoothed ratio and wastes at most 2 × HOLD of the room. When it must rise it
  // goes HOLD above the target, the middle of that band, so the next noisy report finds it
  // still inside; when it falls, it falls to the target.
  const held = previous.factor
  if (previous.ratio !== undefined && held >= ratio && held <= target * (1 + 2 * HOLD))
    return { ratio, factor: held }
  const factor = held < target ? clampFactor(target * (1 + HOLD)) : target
  return { ratio, factor }
}

function clampFactor(f: number): number {
  return Math.min(MAX_RATIO, Math.max(1, f))
}

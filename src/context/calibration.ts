import { InvalidOptionError } from '../errors.js'

/**
 * Reported usage below this share of what was counted is not a measurement of the same
 * request (a provider that reports only uncached input, a usage object from another call).
 */
export const MIN_RATIO = 0.5
/** Above this many provider tokens per counted token, the report is not believed either. */
export const MAX_RATIO = 4

export interface Calibration {
  /** Smoothed provider tokens per counted token, or undefined before a plausible report. */
  ratio: number | undefined
  /** What the room a view may fill is divided by: never below 1, so a view never holds more counted tokens than its budget. */
  factor: number
}

/**
 * The next calibration after a usage report: an implausible report (not a positive finite
 * count, or a ratio outside [MIN_RATIO, MAX_RATIO]) leaves it as it was; a plausible one is
 * smoothed in, and the factor is the ratio plus half the margin, clamped to [1, MAX_RATIO].
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
  const factor = Math.min(MAX_RATIO, Math.max(1, ratio * (1 + margin / 2)))
  return { ratio, factor }
}

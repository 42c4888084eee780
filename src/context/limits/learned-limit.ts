import { ContextOverflowError } from '../../errors.js'
import { requireOptions } from '../../options-check.js'
import { tokenFigure } from '../../providers/figures.js'
import { PROVIDER_REPLIES } from '../../providers/replies.js'
import type { FitOptions, FitResult } from '../fit.js'
import { calibrate, MAX_RATIO, MIN_RATIO } from './calibration.js'
import { type OverflowReport, parseOverflowError } from './overflow-error.js'

/**
 * What a provider says about its window, remembered. A rejection ("maximum context length
 * is N", "prompt is too long: M > N") gives the window N; it already includes the room for
 * the reply, so the reserve is taken from it once, by the fit, never again here.
 */

/** The largest window any figure from outside may claim (a guard, not a model table). */
const MAX_WINDOW = 100_000_000

/** A reported limit, or undefined when it is not a plausible count. */
export function checkedLimit(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) return undefined
  return value >= 1 && value <= MAX_WINDOW ? value : undefined
}

/**
 * A resolved setup fitted to a learned window: the budget no larger than it, and a reserve
 * that was defaulted from the model (not given) no more than a quarter of it, as the
 * default is for the model's own window. A reserve that was given keeps at most half the
 * learned window: the provider said the whole request was too long, so the room kept for
 * the reply shrinks with it rather than leave no room for the newest turn.
 */
export function limitSetup<S extends { budget: number; reserve: number }>(
  setup: S,
  learned: number | undefined,
  reserveOption: number | undefined,
): S {
  if (learned === undefined || learned >= setup.budget) return setup
  const cap = Math.floor(learned / (reserveOption !== undefined ? 2 : 4))
  const reserve = Math.min(setup.reserve, cap)
  return { ...setup, budget: learned, reserve }
}

/** `a` and `b` together: the smaller window wins (a later, larger figure needs `forget`). */
export function mergeLimits(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return Math.min(a, b)
}

/**
 * The window to remember after a rejection, given our count of the rejected prompt (`sent`,
 * `FitResult.tokens.total`: the reply's reserve not included) and the reserve. When the
 * provider says how many prompt tokens it counted and that is more than ours, the window is
 * scaled by how much we under-counted, so the next view fits as the provider counts.
 *
 * A rejection without numbers (the Responses API's "Your input exceeds the context window of
 * this model") says only that the request was too long: the next prompt gets at most 90% of
 * the room the rejected one used, whatever the reserve. The reserve kept in the window is at
 * most a third of that room, so a reserve defaulted from the model (its output limit, often
 * larger than the whole deployment) cannot make the window useless, and a fit that shrinks a
 * defaulted reserve to a quarter of the window never widens the prompt's room past it. A
 * second such rejection shrinks the room by 90% again: the window searches down toward the
 * real one, from below what was sent.
 */
export function windowAfterRejection(
  report: OverflowReport,
  sent: number | undefined,
  reserve = 0,
): number | undefined {
  const limit = checkedLimit(report.limit)
  const prompt = checkedLimit(report.prompt)
  if (limit === undefined) {
    if (sent === undefined || !(sent > 1)) return undefined
    const room = Math.max(1, Math.floor(sent * 0.9))
    return room + Math.min(reserve, Math.floor(room * 0.3))
  }
  if (prompt !== undefined && sent !== undefined && sent > 0 && prompt > sent) {
    // Never below half the limit: an absurd figure must not empty the window.
    return Math.max(Math.ceil(limit / 2), Math.floor((limit * sent) / prompt))
  }
  return limit
}

/**
 * Fits with `fitAt(budget)` at the learned budget; if only the provider's unscaled limit lets
 * the mandatory part in, fits at that instead (a request the provider may still accept beats
 * an error we are sure of).
 */
export function fitWithin<T>(
  fitAt: (budget: number) => T,
  budget: number,
  limit: number | undefined,
): T {
  const fallback = (error: unknown): T => {
    if (!(error instanceof ContextOverflowError) || limit === undefined || limit <= budget)
      throw error
    return fitAt(limit)
  }
  try {
    const result = fitAt(budget)
    return result instanceof Promise ? (result.catch(fallback) as T) : result
  } catch (error) {
    return fallback(error)
  }
}

export interface UsageFigure {
  /** Prompt (input) tokens the provider billed for the request, cached ones included. */
  promptTokens: number
}

/**
 * The prompt tokens a provider reported, from any SDK's response or usage object, cached
 * tokens included. Each provider API reads its own usage fields (`promptTokens` in its folder
 * under `src/providers/`: OpenAI chat `prompt_tokens`, Responses `input_tokens`, Anthropic
 * `input_tokens` plus cache reads and writes, Gemini `usageMetadata.promptTokenCount`); the AI
 * SDK's `inputTokens` (a number, or `{ total }` in the provider interface) and `promptTokens`
 * are read here. Undefined when none is found.
 */
export function promptTokensOf(response: unknown): number | undefined {
  if (!response || typeof response !== 'object') return undefined
  const r = response as Record<string, unknown>
  for (const api of Object.values(PROVIDER_REPLIES)) {
    const n = api.promptTokens(r)
    if (n !== undefined) return n
  }
  const usage = (r.usage && typeof r.usage === 'object' ? r.usage : r) as Record<string, unknown>
  if ('inputTokens' in usage) {
    const v = usage.inputTokens
    if (v && typeof v === 'object') return tokenFigure((v as { total?: unknown }).total)
    return tokenFigure(v)
  }
  if ('promptTokens' in usage) return tokenFigure(usage.promptTokens)
  return undefined
}

/** Our count of one request: its `FitResult` (or just its `tokens`). */
export type SentCounts = Pick<FitResult, 'tokens'>

function countsOf(sent: SentCounts): { total: number; reserve: number } {
  return { total: sent.tokens.total, reserve: sent.tokens.reserve }
}

export interface ProviderFeedbackState {
  limit?: number
  ratio?: number
}

/**
 * What the provider told the adapters, kept between calls: the window it rejected at, and
 * how its counts compare with ours. Give one to an adapter (`feedback` option); save it with
 * `toJSON` and restore with `ProviderFeedback.from`.
 */
export class ProviderFeedback {
  private learned: number | undefined
  private ratio: number | undefined
  private factor = 1
  /** The request last noted with `sent`: only for `learn` and `recordUsage` given no counts. */
  private noted: { total: number; reserve: number } | undefined

  constructor(state: ProviderFeedbackState = {}) {
    requireOptions(state, 'ProviderFeedback', ['limit', 'ratio'], { name: 'state' })
    this.learned = checkedLimit(state.limit)
    if (typeof state.ratio === 'number') this.setRatio(state.ratio)
  }

  static from(state: unknown): ProviderFeedback {
    if (!state || typeof state !== 'object') return new ProviderFeedback()
    const { limit, ratio } = state as ProviderFeedbackState
    return new ProviderFeedback({ limit, ratio })
  }

  /** The window learnt from a rejection, until `forget`. */
  get limit(): number | undefined {
    return this.learned
  }

  /** Provider tokens per counted token applied to budgets (1 until usage says otherwise). */
  get usageFactor(): number {
    return this.factor
  }

  /** Remembers a window directly (a deployment's known limit). */
  learnLimit(window: number): void {
    const w = checkedLimit(window)
    if (w !== undefined) this.learned = mergeLimits(this.learned, w)
  }

  /**
   * If `error` is a provider's "too long" rejection, remembers the window it gives and
   * returns the report; otherwise returns undefined and remembers nothing. `sent` is our
   * count of the rejected request (its `FitResult`): an adapter shared by concurrent calls
   * passes the rejected call's own, as the figures are scaled by it. Without it, the request
   * last noted by hand with `sent` is taken, which is right only for one call at a time; the
   * adapters never note one, so after theirs a window the error states is learnt as stated
   * and a rejection without numbers teaches nothing.
   */
  learn(error: unknown, sent?: SentCounts): OverflowReport | undefined {
    const report = parseOverflowError(error)
    if (!report) return undefined
    const counts = sent ? countsOf(sent) : this.noted
    const w = windowAfterRejection(report, counts?.total, counts?.reserve)
    if (w !== undefined) this.learned = mergeLimits(this.learned, w)
    return report
  }

  /** Forgets the learnt window (the deployment changed). */
  forget(): void {
    this.learned = undefined
  }

  /**
   * Fit options for the next request: the budget no larger than the learnt window, and the
   * room for messages scaled by the usage factor. The reserve stays as resolved, once.
   */
  apply(options: FitOptions, resolved: { budget: number; reserve: number }): FitOptions {
    const limited = limitSetup(resolved, this.learned, options.reserve)
    let budget = limited.budget
    if (!Number.isFinite(budget)) return options
    if (this.factor !== 1) {
      const room = Math.max(0, budget - limited.reserve)
      budget = limited.reserve + Math.floor(room / this.factor)
    }
    if (budget === resolved.budget && limited === resolved) return options
    return { ...options, budget: Math.max(1, budget), reserve: limited.reserve }
  }

  /**
   * Notes what was just sent (our count of the prompt, and the reserve), for a `learn` or
   * `recordUsage` given no counts of its own: for a caller that makes one request at a time.
   * The adapters that see their own replies and errors pass each request's counts instead.
   */
  sent(result: SentCounts): void {
    this.noted = countsOf(result)
  }

  /**
   * Called by the adapters with our count of each request they fit, as it goes out. It keeps
   * nothing: each request's counts stay with that request, so `learn` and `recordUsage` given
   * no counts never read a request the adapters made. Override it to watch what is sent.
   */
  fitted(_result: FitResult): void {}

  /**
   * What the provider billed for a request: `options.sent` is our count of it (its
   * `FitResult`), else the request last noted with `sent`. Figures more than 4× or less than
   * half our count are ignored, and the factor stays in [1, 4]: a figure can shrink the room
   * (our count was low) but never push a view over its budget.
   */
  recordUsage(
    usage: UsageFigure,
    options: { margin?: number; sent?: SentCounts } = {},
  ): { ratio: number; factor: number; accepted: boolean } {
    const counted = (options.sent ? countsOf(options.sent) : this.noted)?.total
    const billed = tokenFigure(usage.promptTokens)
    // The bounds ChatContext.recordUsage uses: a figure can shrink the room, never widen it.
    const previous = { ratio: this.ratio, factor: this.factor }
    const next = calibrate(previous, billed, counted ?? 0, options.margin ?? 0.02)
    // calibrate hands back the previous state itself when it does not believe the figure.
    const accepted = next !== previous
    this.ratio = next.ratio
    this.factor = next.factor
    return { ratio: this.ratio ?? 1, factor: this.factor, accepted }
  }

  /** A saved ratio, believed within the same bounds as a usage report. */
  private setRatio(ratio: number): void {
    if (!Number.isFinite(ratio) || ratio < MIN_RATIO || ratio > MAX_RATIO) return
    this.ratio = ratio
    this.factor = calibrate({ ratio: undefined, factor: 1 }, ratio, 1).factor
  }

  /** `recordUsage` from a whole SDK response (see `promptTokensOf`), for the request counted as `sent`. */
  observe(response: unknown, sent?: SentCounts): void {
    const promptTokens = promptTokensOf(response)
    if (promptTokens !== undefined) this.recordUsage({ promptTokens }, sent ? { sent } : {})
  }

  toJSON(): ProviderFeedbackState {
    return {
      ...(this.learned !== undefined && { limit: this.learned }),
      ...(this.ratio !== undefined && { ratio: this.ratio }),
    }
  }
}

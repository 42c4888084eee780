import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { describeValue } from '../options-check.js'
import { calibrate } from './calibration.js'
import { checkedLimit, limitSetup, mergeLimits } from './learned-limit.js'
import { resolveSetup, type Setup } from './options.js'

/**
 * What a context's views are sized by: its setup as configured, fitted to a window the
 * provider's rejection taught, and the factor learnt from the usage the provider reported
 * for what was sent last.
 */
export class ContextSizing {
  private fitted: Setup
  private window: number | undefined
  /** Provider tokens per counted token, learnt from reported usage (1 until told otherwise). */
  private factor = 1
  private ratio: number | undefined
  private lastSent: { messages: number; overhead: number } | undefined

  /**
   * `options` are the context's, read when a window is learnt: a `reserve` given there keeps
   * more of a learnt window than one defaulted from the model (see `limitSetup`).
   */
  constructor(
    private readonly base: Setup,
    private readonly options: { readonly reserve?: number | undefined },
  ) {
    this.fitted = base
  }

  /** The setup, fitted to the learnt window when there is one. */
  get setup(): Setup {
    return this.fitted
  }

  get learned(): number | undefined {
    return this.window
  }

  /** The factor applied to counts after `recordUsage` (1 before). */
  get calibration(): number {
    return this.factor
  }

  setLimit(window: number | undefined): void {
    const learned = checkedLimit(window)
    if (learned === this.window) return
    this.window = learned
    this.fitted = limitSetup(this.base, this.window, this.options.reserve)
  }

  /** Takes a window the provider gave; a smaller one replaces a larger. Returns the one kept. */
  learn(window: number): number | undefined {
    const w = checkedLimit(window)
    if (w === undefined)
      throw new InvalidOptionError(
        'window',
        `expected a whole number of tokens >= 1, got ${describeValue(window)}`,
      )
    this.setLimit(mergeLimits(this.window, w))
    return this.window
  }

  /** The setup, or one with another budget for this call. */
  setupFor(options: { budget?: number }): Setup {
    if (options.budget === undefined) return this.fitted
    const budget = resolveSetup({ budget: options.budget }).budget
    // A window the provider taught caps every view, one asked with its own budget too.
    return limitSetup({ ...this.fitted, budget }, this.window, this.options.reserve)
  }

  /** See `ChatContext.recordUsage`. */
  recordUsage(
    usage: { promptTokens: number },
    options: { margin?: number } = {},
  ): { ratio: number; factor: number } {
    const counted = this.lastSent ? this.lastSent.messages + this.lastSent.overhead : 0
    const next = calibrate(
      { ratio: this.ratio, factor: this.factor },
      usage?.promptTokens,
      counted,
      options.margin,
    )
    this.ratio = next.ratio
    this.factor = next.factor
    return { ratio: this.ratio ?? 1, factor: this.factor }
  }

  /** Remembers what was sent, so reported usage can be compared with it. */
  sent(r: { messages: Message[]; tokens: number }): Message[] {
    this.lastSent = {
      messages: r.tokens,
      overhead: this.fitted.toolTokens + this.fitted.counter.replyPriming,
    }
    return r.messages
  }
}

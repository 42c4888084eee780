import { InvalidOptionError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { describeValue } from '../../options-check.js'
import { calibrate } from '../limits/calibration.js'
import { checkedLimit, limitSetup, mergeLimits } from '../limits/learned-limit.js'
import { resolveSetup, type Setup } from '../options/options.js'

/**
 * What a context's views are sized by: its setup as configured, fitted to a window the
 * provider's rejection taught, and the factor learnt from the usage the provider reported
 * for what was sent last.
 */
export class ContextSizing {
  private readonly base: Setup
  private fitted: Setup
  /** The default strategy as a budget makes it (`trimming`), made once: it keeps its cuts. */
  private bounded: Setup | undefined
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
    private readonly resolve: (budget?: number) => Setup,
    private readonly options: { readonly reserve?: number | undefined },
  ) {
    this.base = resolve()
    this.fitted = this.base
  }

  /**
   * The setup that trims to a window: the configured one, but for a context with the default
   * strategy and no budget, whose strategy sends everything (\`unbounded\`): a window learnt
   * or asked for then gets the default strategy as \`fit\` makes it with a budget (tokenLimited,
   * its ledger), as a context made with that budget has it.
   */
  private trimming(budget: number): Setup {
    if (!this.base.defaultStrategy || Number.isFinite(this.base.budget)) return this.base
    this.bounded ??= this.resolve(budget)
    // Its budget is set by the caller (\`limitSetup\`, \`setupFor\`), as the configured one's is.
    return { ...this.bounded, budget: this.base.budget }
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
    const base = learned === undefined ? this.base : this.trimming(learned)
    this.fitted = limitSetup(base, this.window, this.options.reserve)
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
    const setup = this.window === undefined ? this.trimming(budget) : this.fitted
    // A window the provider taught caps every view, one asked with its own budget too.
    return limitSetup({ ...setup, budget }, this.window, this.options.reserve)
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

import { type FitOptions, type FitResult, fit, resolveSetup } from '../context/fit.js'
import type { ProviderFeedback } from '../context/learned-limit.js'
import type { Message } from '../messages/message.js'
import type { Provider } from '../messages/validate.js'
import { findModel } from '../tokens/models.js'

/** Options every framework adapter takes: the fit's own, and what the provider taught. */
export interface AdapterOptions extends FitOptions {
  /**
   * Kept between calls: the window a rejection taught and the usage calibration. The adapters
   * that see the model's reply or error feed it themselves; share one across calls.
   */
  feedback?: ProviderFeedback
}

/** Fits with what `feedback` learnt, and notes what was sent so usage can be compared with it. */
export function fitWithFeedback(messages: readonly Message[], options: AdapterOptions): FitResult {
  const { feedback, ...fitOptions } = options
  if (!feedback) return fit(messages, fitOptions)
  const setup = resolveSetup(fitOptions)
  const result = fit(messages, feedback.apply(fitOptions, setup))
  feedback.sent(result)
  return result
}

/**
 * Whose rules a model follows, from a framework's provider or model id (`anthropic.messages`,
 * `ChatAnthropic`, `claude-sonnet-4-5`): Anthropic's for Anthropic and Claude, else OpenAI's.
 */
export function providerFromId(...ids: (string | undefined)[]): Provider {
  return ids.some((id) => id && /anthropic|claude/i.test(id)) ? 'anthropic' : 'openai'
}

/** The model id when the model table knows it (its window and counter are then used). */
export function knownModel(id: string | undefined): string | undefined {
  return id && findModel(id) ? id : undefined
}

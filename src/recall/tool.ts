import { fit } from '../context/fit.js'
import { type FitOptions, resolveSetup } from '../context/options.js'
import type { FitResult } from '../context/result.js'
import type { Message } from '../messages/message.js'
import type { TokenCounter } from '../tokens/counter.js'
import { checkRecallOptions, type RecallOptions } from './definition.js'
import { readRecallRequest, recallFrom } from './recall.js'

/**
 * Runs a recall tool call the model made: `args` as the model sent them (JSON text or an
 * object), over the request `fit` makes of `history` with `options` (or the `result` given,
 * when the caller has it). Never throws for the model's arguments: what is wrong with them is
 * the result, so the loop goes on.
 */
export function executeRecall(
  history: readonly Message[],
  args: unknown,
  options: FitOptions = {},
  result?: FitResult,
): string {
  const given = options.recall === undefined || options.recall === false ? true : options.recall
  const fitOptions = { ...options, recall: given } as FitOptions
  const { counter } = resolveSetup(fitOptions)
  return recallText(history, result ?? (() => fit(history, fitOptions)), args, counter, given)
}

/** The tool result for `args` over a fit made (or to be made, when the arguments are good). */
export function recallText(
  history: readonly Message[],
  result: FitResult | (() => FitResult),
  args: unknown,
  counter: TokenCounter,
  options: RecallOptions | true = true,
): string {
  const settings = checkRecallOptions(options)
  const request = readRecallRequest(args)
  if (typeof request === 'string') return `recall: ${request}`
  const fitted = typeof result === 'function' ? result() : result
  return recallFrom(history, fitted, request, counter, settings).text
}

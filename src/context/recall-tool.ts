import { asyncStrategyFromOptions } from '../compress/index.js'
import type { Message } from '../messages/message.js'
import { checkRecallOptions, type RecallOptions, recallRun } from '../recall/definition.js'
import type { TokenCounter } from '../tokens/counter.js'
import { type FitOptions, resolveSetup } from './options/options.js'
import { invalidIn, type RecallResult, readRecallRequest, recallFrom, requestOf } from './recall.js'
import type { FitResult } from './result.js'

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
  const given = recallRun(options.recall)
  const fitOptions = { ...options, recall: given } as FitOptions
  const { counter, provider } = resolveSetup(fitOptions, [], asyncStrategyFromOptions)
  if (result) return recallText(history, result, args, counter, given)
  // The fit made here: what its repair took out is read from its index, not its account.
  let invalid: number[] | undefined
  const made = () => {
    const r = requestOf(history, fitOptions)
    invalid = invalidIn(history, counter, provider)
    return r
  }
  return recallText(history, made, args, counter, given, () => invalid)
}

/**
 * The tool result for `args` over a fit made (or to be made, when the arguments are good).
 * `invalid`: the positions the provider's repair took out, when the caller knows them
 * (else they are read from the result's `fates`).
 */
export function recallText(
  history: readonly Message[],
  result: FitResult | (() => FitResult | undefined),
  args: unknown,
  counter: TokenCounter,
  options: RecallOptions | true = true,
  invalid?: readonly number[] | (() => readonly number[] | undefined),
): string {
  return recallAnswer(history, result, args, counter, options, invalid).text
}

/**
 * `recallText` as the whole result (`recall()`'s shape): arguments with no plain meaning are
 * not thrown but answered, `error` saying why and `text` the tool result `recall: <reason>`.
 */
export function recallAnswer(
  history: readonly Message[],
  result: FitResult | (() => FitResult | undefined),
  args: unknown,
  counter: TokenCounter,
  options: RecallOptions | true = true,
  invalid?: readonly number[] | (() => readonly number[] | undefined),
): RecallResult {
  const settings = checkRecallOptions(options)
  const request = readRecallRequest(args)
  if (typeof request === 'string') {
    const text = `recall: ${request}`
    return { text, messages: [], tokens: counter.countText(text), more: [], error: request }
  }
  const fitted = typeof result === 'function' ? result() : result
  const repaired = typeof invalid === 'function' ? invalid() : invalid
  return recallFrom(history, fitted, request, counter, settings, repaired)
}

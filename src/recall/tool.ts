import { fit } from '../context/fit.js'
import { type FitOptions, resolveSetup } from '../context/options.js'
import type { FitResult } from '../context/result.js'
import type { Message } from '../messages/message.js'
import type { TokenCounter } from '../tokens/counter.js'
import { checkRecallOptions, type RecallOptions, readRecallRequest, recallFrom } from './recall.js'

export const RECALL_TOOL_NAME = 'recall'

export const RECALL_DESCRIPTION =
  'Get back earlier messages of this conversation that were left out to fit the context window. ' +
  'Ask by the message numbers the ledger names, or search by words, an identifier, or the name ' +
  'and argument names of the tool you are about to call. Returns the matching messages as quoted data.'

/** The arguments' JSON Schema (the subset every provider accepts). */
export const RECALL_PARAMETERS = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      description: 'Words, an identifier, or a tool name and its argument names to look for.',
    },
    messages: {
      type: 'array',
      items: { type: 'integer' },
      description: 'Message numbers named by the ledger.',
    },
  },
} as const

export type RecallToolFormat = 'openai' | 'openai-responses' | 'anthropic' | 'gemini'

/**
 * The recall tool's definition in the function-tool JSON a provider's API takes: an entry of
 * `tools` (for Gemini, a function declaration for `tools[].functionDeclarations`).
 */
export function recallTool(format: RecallToolFormat): Record<string, unknown> {
  const parameters = structuredClone(RECALL_PARAMETERS) as Record<string, unknown>
  switch (format) {
    case 'openai':
      return {
        type: 'function',
        function: { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, parameters },
      }
    case 'openai-responses':
      return {
        type: 'function',
        name: RECALL_TOOL_NAME,
        description: RECALL_DESCRIPTION,
        parameters,
      }
    case 'anthropic':
      return { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, input_schema: parameters }
    case 'gemini':
      return { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, parameters }
    default:
      throw new TypeError(`recallTool: unknown format ${JSON.stringify(format)}`)
  }
}

/**
 * Runs a recall tool call the model made: `args` as the model sent them (JSON text or an
 * object), over the request `fit` makes of `history` with `options` (or the `result` given,
 * when the caller has it). Never throws for the model's arguments: what is wrong with them is
 * the result, so the loop goes on.
 */
export function executeRecall(
  history: readonly Message[],
  args: unknown,
  options: FitOptions & { recall?: RecallOptions | true } = {},
  result?: FitResult,
): string {
  const { recall: given, ...fitOptions } = options
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

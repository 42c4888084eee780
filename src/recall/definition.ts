import { InvalidOptionError } from '../errors.js'
import type { ToolSchema } from '../messages/message.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import { PROVIDER_APIS } from '../providers/index.js'
import { PROVIDERS, type Provider } from '../providers/provider.js'
import type { TokenCounter } from '../tokens/counter.js'

export interface RecallOptions {
  /** Tokens a recall returns at most (at least 128). Default 3,000. */
  maxTokens?: number
  /** Messages a search returns at most. Default 16. */
  maxMessages?: number
}

/** Chosen on τ-bench (`npm run eval:recall`): the least that meets 98% of calls there. */
export const RECALL_DEFAULTS = { maxTokens: 3000, maxMessages: 16 } as const

/** The recall a caller runs: its own options when given, else the defaults (`true`), whatever the fit said. */
export function recallRun(recall: RecallOptions | boolean | undefined): RecallOptions | true {
  return recall === undefined || recall === false ? true : recall
}
export function checkRecallOptions(options: RecallOptions | true): Required<RecallOptions> {
  if (options === true) return { ...RECALL_DEFAULTS }
  requireOptions(options, 'recall', ['maxTokens', 'maxMessages'], {
    name: 'recall',
    required: true,
  })
  const { maxTokens = RECALL_DEFAULTS.maxTokens, maxMessages = RECALL_DEFAULTS.maxMessages } =
    options
  requireArgument(
    Number.isInteger(maxTokens) && maxTokens >= 128,
    'recall',
    'recall.maxTokens',
    'a token count >= 128',
    maxTokens,
  )
  requireArgument(
    Number.isInteger(maxMessages) && maxMessages > 0,
    'recall',
    'recall.maxMessages',
    'a whole number > 0',
    maxMessages,
  )
  return { maxTokens, maxMessages }
}

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

/** The recall tool as the request's tools list holds it (a copy of its arguments' schema). */
export function recallToolSchema(): ToolSchema {
  return {
    name: RECALL_TOOL_NAME,
    description: RECALL_DESCRIPTION,
    parameters: structuredClone(RECALL_PARAMETERS) as Record<string, unknown>,
  }
}

/** What the recall tool's definition costs alone, by `counter`. */
export function recallToolTokens(counter: TokenCounter): number {
  return counter.countTools([recallToolSchema()])
}

/** The provider API whose function-tool JSON the definition is written in. */
export type RecallToolFormat = Provider

/**
 * The recall tool's definition in the function-tool JSON a provider's API takes: an entry of
 * `tools` (for Gemini, a function declaration for `tools[].functionDeclarations`).
 */
const NAMED = `${PROVIDERS.slice(0, -1)
  .map((p) => JSON.stringify(p))
  .join(', ')} or ${JSON.stringify(PROVIDERS.at(-1))}`

export function recallTool(format: RecallToolFormat): Record<string, unknown> {
  if (typeof format !== 'string' || !Object.hasOwn(PROVIDER_APIS, format))
    throw new InvalidOptionError(
      'format',
      `recallTool expects ${NAMED}, got ${describeValue(format)}`,
    )
  return PROVIDER_APIS[format].defineTool({
    name: RECALL_TOOL_NAME,
    description: RECALL_DESCRIPTION,
    parameters: structuredClone(RECALL_PARAMETERS) as Record<string, unknown>,
  })
}

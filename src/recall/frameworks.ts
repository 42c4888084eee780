// The recall tool for the agent frameworks, without their packages: each shape is what the
// framework's own tool factory takes (or, for the AI SDK, is a tool as it is), so the library
// adds no dependency. The executor reads the conversation the caller gives, in any format the
// library reads, fits it with the caller's options, and returns the tool's result text.

import { asyncStrategyFromOptions } from '../compress/index.js'
import { fitAsync } from '../context/fit.js'
import { type FitOptions, resolveSetup } from '../context/options.js'
import type { Format } from '../formats/detect.js'
import { decode } from '../formats/detect.js'
import { requireArgument, requireOptions } from '../options-check.js'
import { RECALL_DESCRIPTION, RECALL_PARAMETERS, RECALL_TOOL_NAME, recallRun } from './definition.js'
import { readRecallRequest } from './recall.js'
import { executeRecall } from './tool.js'

export type RecallToolOptions = FitOptions & {
  /** The whole conversation as the agent holds it now (any format the library reads). */
  history: () => readonly unknown[] | Promise<readonly unknown[]>
  /** The history's format. Default: detected. */
  format?: Format | 'auto'
}

/** The executor: the model's arguments in, the tool's result text out. */
function executor(given: RecallToolOptions, where: string) {
  requireOptions(given, where, undefined, { required: true })
  const { history, format = 'auto', ...options } = given
  requireArgument(typeof history === 'function', where, 'history', 'a function', history)
  return async (args: unknown): Promise<string> => {
    const { messages } = decode(await history(), format)
    // An asynchronous strategy (summarizing): the request made again as `fitAsync` makes it
    // (a summary already written for this conversation is read again, not written anew).
    const fitOptions = { ...options, recall: recallRun(options.recall) } as FitOptions
    const { strategy } = resolveSetup(fitOptions, [], asyncStrategyFromOptions)
    const result =
      strategy.async && messages.length > 0 ? await fitAsync(messages, fitOptions) : undefined
    return executeRecall(messages, args, options, result)
  }
}

/**
 * The tool's arguments as a Standard Schema with its JSON Schema (the vendor-neutral form the
 * AI SDK and other frameworks read): checked by the library's own reading of them.
 */
export function recallArgumentsSchema() {
  const schema = () => structuredClone(RECALL_PARAMETERS) as Record<string, unknown>
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'context-window',
      validate: (value: unknown) => {
        const read = readRecallRequest(value)
        return typeof read === 'string'
          ? { issues: [{ message: read }] }
          : { value: read as { query?: string; messages?: number[] } }
      },
      jsonSchema: { input: schema, output: schema },
    },
  }
}

/** The recall tool as an AI SDK tool (put it in `tools: { recall: ... }`). */
export function recallToolForAISDK(options: RecallToolOptions) {
  const execute = executor(options, 'recallToolForAISDK')
  return {
    description: RECALL_DESCRIPTION,
    inputSchema: recallArgumentsSchema(),
    execute: (input: unknown) => execute(input),
  }
}

/** What LangChain's `tool(func, fields)` takes: `tool(t.func, t)`. */
export function recallToolForLangChain(options: RecallToolOptions) {
  const execute = executor(options, 'recallToolForLangChain')
  return {
    name: RECALL_TOOL_NAME,
    description: RECALL_DESCRIPTION,
    schema: structuredClone(RECALL_PARAMETERS),
    func: (input: unknown) => execute(input),
  }
}

/** What the OpenAI Agents SDK's `tool(options)` takes (a JSON Schema, not strict: both arguments optional). */
export function recallToolForOpenAIAgents(options: RecallToolOptions) {
  const execute = executor(options, 'recallToolForOpenAIAgents')
  return {
    name: RECALL_TOOL_NAME,
    description: RECALL_DESCRIPTION,
    parameters: {
      ...structuredClone(RECALL_PARAMETERS),
      required: [] as ('query' | 'messages')[],
      additionalProperties: true as const,
    },
    strict: false as const,
    execute: (input: unknown) => execute(input),
  }
}

/**
 * The recall tool for a Mastra agent's `tools`: a tool in the AI SDK's shape (Mastra takes
 * those as they are), its arguments in the JSON Schema form the AI SDK's `jsonSchema()` makes,
 * which Mastra sends unchanged.
 */
export function recallToolForMastra(options: RecallToolOptions) {
  const execute = executor(options, 'recallToolForMastra')
  return {
    description: RECALL_DESCRIPTION,
    parameters: {
      [Symbol.for('vercel.ai.schema')]: true,
      _type: undefined,
      jsonSchema: structuredClone(RECALL_PARAMETERS),
      validate: (value: unknown) => {
        const read = readRecallRequest(value)
        return typeof read === 'string'
          ? { success: false as const, error: new TypeError(read) }
          : { success: true as const, value: read }
      },
    },
    execute: (input: unknown) => execute(input),
  }
}

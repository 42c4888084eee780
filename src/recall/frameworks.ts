// The recall tool for the agent frameworks, without their packages: each shape is what the
// framework's own tool factory takes (or, for the AI SDK, is a tool as it is), so the library
// adds no dependency. The executor reads the conversation the caller gives, in any format the
// library reads, fits it with the caller's options, and returns the tool's result text.

import { asyncStrategyFromOptions } from '../compress/index.js'
import { fitAsync } from '../context/fit.js'
import { type FitOptions, resolveSetup } from '../context/options/options.js'
import { readRecallRequest } from '../context/recall.js'
import { executeRecall } from '../context/recall-tool.js'
import type { Format } from '../formats/detect.js'
import { decode, detectFormat } from '../formats/detect.js'
import { itemPlaces } from '../integrations/agents-items.js'
import { readModelHistory } from '../integrations/ai-sdk.js'
import { isMastraHistory, readMastraHistory } from '../integrations/mastra.js'
import { decodeItemsWithCodec } from '../integrations/responses-items.js'
import type { Message } from '../messages/message.js'
import { requireArgument, requireOptions } from '../options-check.js'
import { RECALL_DESCRIPTION, RECALL_PARAMETERS, RECALL_TOOL_NAME, recallRun } from './definition.js'
import { numberAs } from './numbering.js'

export type RecallToolOptions = FitOptions & {
  /** The whole conversation as the agent holds it now (any format the library reads). */
  history: () => readonly unknown[] | Promise<readonly unknown[]>
  /** The history's format. Default: detected. */
  format?: Format | 'auto'
  /**
   * The system prompt the framework sends apart from the history (the AI SDK's `system`,
   * LangChain's `systemPrompt`, an agent's `instructions`): counted as the adapter counts it,
   * never numbered (message 0 is the history's first, as the ledger names it).
   */
  system?: string
}

/** `recallToolForAISDK`'s options: without `history`, the messages the AI SDK hands the tool. */
export type AISDKRecallToolOptions = Omit<RecallToolOptions, 'history'> & {
  /**
   * The whole conversation as the agent holds it now. Default: the messages the AI SDK hands
   * the tool's `execute` (the step's, the system prompt apart), which are the messages the
   * adapters number.
   */
  history?: RecallToolOptions['history']
}

/** A history read as messages, with the caller's number of each (the index of its entry). */
interface Read {
  messages: Message[]
  places: readonly number[]
}

type Reader = (entries: unknown, format: Format | 'auto') => Read

/**
 * Any format the library reads: one message an entry keeps the entries' numbers; a format
 * whose entries read as several messages (an Anthropic user turn of tool results) is read
 * entry by entry for their numbers.
 */
function readAny(entries: unknown, format: Format | 'auto'): Read {
  const read = decode(entries, format)
  const messages = read.messages
  const identity = () => messages.map((_, i) => i)
  if (!Array.isArray(entries) || messages.length === entries.length)
    return { messages, places: identity() }
  const places: number[] = []
  for (let j = 0; j < entries.length; j++) {
    const count = messagesAlone(entries[j], read.format)
    // An entry that is read only beside the others: numbered as the messages read.
    if (count < 0) return { messages, places: identity() }
    for (let k = 0; k < count; k++) places.push(j)
  }
  return { messages, places: places.length === messages.length ? places : identity() }
}

/**
 * How many messages an entry reads as alone, by format (-1 when it is not read alone): kept
 * per entry object, so a history read call after call decodes only its new entries twice.
 * An entry edited in place is read as it was (pass a new object), as recall reads messages.
 */
const aloneCounts = new WeakMap<object, Map<Format, number>>()

function messagesAlone(entry: unknown, format: Format): number {
  const keyed = typeof entry === 'object' && entry !== null
  const known = keyed ? aloneCounts.get(entry)?.get(format) : undefined
  if (known !== undefined) return known
  let count: number
  try {
    count = decode([entry], format).messages.length
  } catch {
    count = -1
  }
  if (keyed) {
    const byFormat = aloneCounts.get(entry) ?? new Map<Format, number>()
    byFormat.set(format, count)
    aloneCounts.set(entry, byFormat)
  }
  return count
}

/** AI SDK messages as the AI SDK adapters read them; another format as any. */
function readAISDK(entries: unknown, format: Format | 'auto'): Read {
  const own =
    format === 'ai-sdk' || (format === 'auto' && Array.isArray(entries) && isAISDK(entries))
  return own ? readModelHistory(entries as unknown[]) : readAny(entries, format)
}

function isAISDK(entries: readonly unknown[]): boolean {
  try {
    return detectFormat(entries) === 'ai-sdk'
  } catch {
    return false
  }
}

/** An Agents SDK item or a Responses API item (not a chat message). */
const ITEM_TYPE =
  /^(message|reasoning|compaction|hosted_tool_call|function_call|function_call_result|function_call_output|[a-z_]+_call|[a-z_]+_call_(output|result))$/

function isItems(entries: readonly unknown[]): boolean {
  return entries.some((e) => {
    const item = e as Record<string, unknown> | null
    if (!item || typeof item !== 'object') return false
    if (typeof item.type === 'string' && ITEM_TYPE.test(item.type)) return true
    return typeof item.callId === 'string' || typeof item.call_id === 'string'
  })
}

/**
 * The Agents SDK's items (`function_call` with `callId`, `function_call_result`, `message`
 * items, reasoning, hosted calls) and the Responses API's, as the Agents SDK adapters read
 * them, numbered by item (a model turn by its first); another format as any.
 */
function readItems(entries: unknown, format: Format | 'auto'): Read {
  // Items are read as items, whatever `format` says (the chat formats have none).
  if (!Array.isArray(entries) || !isItems(entries)) return readAny(entries, format)
  const { messages, sources, owner } = decodeItemsWithCodec(entries)
  return { messages, places: itemPlaces(sources, owner) }
}

/** Mastra's stored messages as its processor reads them; another format as any. */
function readMastra(entries: unknown, format: Format | 'auto'): Read {
  return format === 'auto' && Array.isArray(entries) && isMastraHistory(entries)
    ? readMastraHistory(entries)
    : readAny(entries, format)
}

/**
 * The executor: the model's arguments in, the tool's result text out. The history is read
 * as the framework's adapter reads it, behind the system prompt given apart, and numbered as
 * the adapter numbers it (the index in the caller's history), so what the ledger names is
 * what recall returns.
 */
function executor(
  given: AISDKRecallToolOptions,
  where: string,
  read: Reader,
  historyRequired = true,
) {
  requireOptions(given, where, undefined, { required: true })
  const { history, format = 'auto', system, ...options } = given
  requireArgument(
    typeof history === 'function' || (!historyRequired && history === undefined),
    where,
    'history',
    'a function',
    history,
  )
  requireArgument(
    system === undefined || typeof system === 'string',
    where,
    'system',
    'a string',
    system,
  )
  // One system message for the tool's life: the recall index behind it is found again call
  // after call (a new object each call would be a new first message to read).
  const head: Message | undefined =
    system === undefined ? undefined : { role: 'system', content: system }
  // The messages the last call read: a message decoded again equal to the one at its place is
  // that object, so the recall index (and what it holds per message) is extended, not rebuilt.
  let previous: readonly Message[] = []
  return async (args: unknown, handed?: unknown): Promise<string> => {
    const entries = history ? await history() : handed
    if (entries === undefined)
      return 'recall: no history (give the tool `history`, or run it where the framework hands it the messages)'
    const { messages: decoded, places } = read(entries, format)
    const messages = sameAsBefore(decoded, previous)
    previous = messages
    const input: Message[] = head === undefined ? messages : [head, ...messages]
    numberAs(input, system === undefined ? places : [-1, ...places])
    // An asynchronous strategy (summarizing): the request made again as `fitAsync` makes it
    // (a summary already written for this conversation is read again, not written anew).
    const fitOptions = { ...options, recall: recallRun(options.recall) } as FitOptions
    const { strategy } = resolveSetup(fitOptions, [], asyncStrategyFromOptions)
    const result =
      strategy.async && input.length > 0 ? await fitAsync(input, fitOptions) : undefined
    return executeRecall(input, args, options as FitOptions, result)
  }
}

/**
 * `decoded` (copied) with each message equal to the one at its place in `before` replaced by
 * that object (the formats decode into new objects on every call).
 */
function sameAsBefore(decoded: readonly Message[], before: readonly Message[]): Message[] {
  // A new array: a reader may keep the one it returned.
  const out = decoded.slice()
  const n = Math.min(decoded.length, before.length)
  for (let i = 0; i < n; i++) {
    const was = before[i] as Message
    if (sameData(was, decoded[i], 0)) out[i] = was
  }
  return out
}

/** Whether two decoded values (plain data: strings, numbers, lists, records) are equal. */
function sameData(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (depth > 64 || Array.isArray(a) !== Array.isArray(b)) return false
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  if (Array.isArray(a)) {
    const y = b as unknown[]
    if (a.length !== y.length) return false
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], y[i], depth + 1)) return false
    return true
  }
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  const keys = Object.keys(x)
  if (keys.length !== Object.keys(y).length) return false
  for (const k of keys) if (!Object.hasOwn(y, k) || !sameData(x[k], y[k], depth + 1)) return false
  return true
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

/**
 * The recall tool as an AI SDK tool (put it in `tools: { recall: ... }`). Without `history`,
 * it reads the messages the AI SDK hands its `execute` (the step's).
 */
export function recallToolForAISDK(options: AISDKRecallToolOptions) {
  const execute = executor(options, 'recallToolForAISDK', readAISDK, false)
  return {
    description: RECALL_DESCRIPTION,
    inputSchema: recallArgumentsSchema(),
    execute: (input: unknown, call?: { messages?: readonly unknown[] }) =>
      execute(input, call?.messages),
  }
}

/** What LangChain's `tool(func, fields)` takes: `tool(t.func, t)`. */
export function recallToolForLangChain(options: RecallToolOptions) {
  const execute = executor(options, 'recallToolForLangChain', readAny)
  return {
    name: RECALL_TOOL_NAME,
    description: RECALL_DESCRIPTION,
    schema: structuredClone(RECALL_PARAMETERS),
    func: (input: unknown) => execute(input),
  }
}

/**
 * What the OpenAI Agents SDK's `tool(options)` takes (a JSON Schema, not strict: both
 * arguments optional). `history` may give the Agents SDK's own items (`result.history`, a
 * session's `getItems()`), numbered by item as the Agents SDK adapters number them.
 */
export function recallToolForOpenAIAgents(options: RecallToolOptions) {
  const execute = executor(options, 'recallToolForOpenAIAgents', readItems)
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
  const execute = executor(options, 'recallToolForMastra', readMastra)
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

/** The flags every command reads: the input file and format, the provider, the model, the tools. */
import { InvalidOptionError, UnknownModelError } from '../errors.js'
import { type Format, providerOfFormat } from '../formats/detect.js'
import { fieldsOf } from '../providers/codec-kit.js'
import { providerApi } from '../providers/index.js'
import { type ToolInput, toolSchemas } from '../providers/tool-shapes.js'
import { PROVIDERS, type Provider } from '../providers/validate.js'
import type { TokenCounter } from '../tokens/counter.js'
import { exactCounter } from '../tokens/counters.js'
import { findModel } from '../tokens/models.js'
import { EXAMPLE_FILE, parseJson, readText, UsageError } from './io.js'

export type Values = Record<string, string | boolean | undefined>

export interface Output {
  out: (text: string) => void
  err: (text: string) => void
  color: boolean
  /** Standard error is a terminal: progress redraws one line. */
  errTTY?: boolean
  /** Writes to standard error without a newline. */
  errRaw?: (text: string) => void
}

/** Parses a whole-number option, naming the option when it is not one. */
export function intOption(values: Values, name: string, min = 1): number | undefined {
  const raw = values[name]
  if (raw === undefined) return undefined
  const n = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(n) || n < min) {
    throw new UsageError(
      `expected a whole number >= ${min}, got ${JSON.stringify(raw)}`,
      undefined,
      `option --${name}: `,
    )
  }
  return n
}

export function providerOption(values: Values): Provider | undefined {
  const p = values.provider
  if (p === undefined) return undefined
  const provider = PROVIDERS.find((q) => q === p)
  if (provider === undefined) {
    throw new UsageError(
      `option --provider: expected ${PROVIDERS.join(', ')}, got ${JSON.stringify(p)}`,
    )
  }
  return provider
}

/** The provider whose rules a file's own format implies (OpenAI chat for the frameworks' formats). */
export function providerOf(format: Format): Provider {
  return providerOfFormat(format) ?? 'openai'
}

export function formatOption(values: Values): Format | 'auto' {
  return typeof values.format === 'string' ? (values.format as Format) : 'auto'
}

export function file(positionals: string[], command: string, values: Values = {}): string {
  if (values.example) {
    if (positionals.length) throw new UsageError(`${command}: give a file or --example, not both`)
    return EXAMPLE_FILE
  }
  const [f, ...extra] = positionals
  if (!f) throw new UsageError(`${command}: give a file, - for standard input, or --example`)
  if (extra.length)
    throw new UsageError(`${command}: one file at a time (got ${positionals.length})`)
  return f
}

/** What `--model`, `--window` and `--max-output` say about the model. */
interface ModelChoice {
  /** The id, when the model table knows it (its counter and notes then come from the table). */
  model?: string
  /** The window: the table's, or `--window`. */
  contextWindow?: number
  /** The output limit: the table's, `--max-output`, or a quarter of `--window`. */
  maxOutput?: number
  /** The counter of a model the table does not know: its provider's rule. */
  counter?: TokenCounter
}

/**
 * `--model M`, with `--window N` and `--max-output N` for a model the table does not know
 * (or a deployment whose limits are smaller than the table's). A model the table does not
 * know, given alone, is refused naming those flags.
 */
export function modelChoice(values: Values, provider: Provider): ModelChoice {
  const model = typeof values.model === 'string' ? values.model : undefined
  const window = intOption(values, 'window')
  const maxOutput = intOption(values, 'max-output')
  if (!model) {
    if (window !== undefined || maxOutput !== undefined)
      throw new UsageError(
        `option --${window !== undefined ? 'window' : 'max-output'} describes the model: give --model M with it (or fit to --budget N)`,
      )
    return {}
  }
  const info = findModel(model)
  const contextWindow = window ?? info?.contextWindow
  if (contextWindow === undefined) throw new UnknownModelError(model)
  const output = maxOutput ?? info?.maxOutputTokens ?? Math.floor(contextWindow / 4)
  if (maxOutput !== undefined && maxOutput >= contextWindow)
    throw new UsageError(
      `option --max-output: ${maxOutput} leaves no room in a window of ${contextWindow}`,
    )
  return {
    ...(info ? { model } : { counter: providerApi(provider)?.counter() ?? exactCounter() }),
    contextWindow,
    maxOutput: output,
  }
}

/** `--tools FILE`: tool definitions in any SDK's shape, as a list or a request holding `tools`. */
export function toolsOption(values: Values): ToolInput[] | undefined {
  const path = values.tools
  if (typeof path !== 'string') return undefined
  let json: unknown
  try {
    json = parseJson(readText(path), path)
  } catch (e) {
    throw new UsageError(`option --tools: ${(e as Error).message}`)
  }
  const held = fieldsOf(json).tools
  const list = Array.isArray(json) ? json : Array.isArray(held) ? held : undefined
  if (!list)
    throw new UsageError(
      `option --tools: ${path}: expected a list of tool definitions, or an object with "tools"`,
    )
  try {
    toolSchemas(list as ToolInput[])
  } catch (e) {
    if (e instanceof InvalidOptionError)
      throw new UsageError(`option --tools: ${path}: ${e.message.replace(/^option /, '')}`)
    throw e
  }
  return list as ToolInput[]
}

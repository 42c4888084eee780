import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { type CompressionEvent, describeCompression } from '../compress/summarizing.js'
import { type FitOptions, type FitResult, fit, fitAsync } from '../context/fit.js'
import { ContextOverflowError, InvalidOptionError, UnknownModelError } from '../errors.js'
import { type Format, providerOfFormat } from '../formats/detect.js'
import type { Message } from '../messages/message.js'
import {
  type ContextManagementPlan,
  type ContextPolicy,
  contextManagement,
  withContextManagement,
} from '../native/context-management.js'
import { PROVIDER_APIS, providerApi } from '../providers/index.js'
import { type ToolInput, toolSchemas } from '../providers/tool-shapes.js'
import { PROVIDERS, type Provider, validate } from '../providers/validate.js'
import { type ReportSettings, renderReport } from '../report/html.js'
import type { Transform } from '../strategies/types.js'
import type { TokenCounter } from '../tokens/counter.js'
import { counterFor, exactCounter } from '../tokens/counters.js'
import { findModel } from '../tokens/models.js'
import { clearThinking, type ThinkingKeep } from '../transforms/clear-thinking.js'
import { clearToolResults } from '../transforms/clear-tool-results.js'
import { truncateMessages } from '../transforms/truncate-messages.js'
import {
  EXAMPLE_FILE,
  type Input,
  parseJson,
  readInput,
  readText,
  UsageError,
  writeAtomic,
} from './io.js'
import { bar, type Colour, paint, preview, splitBar, table } from './render.js'

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
      `option --${name}: expected a whole number >= ${min}, got ${JSON.stringify(raw)}`,
    )
  }
  return n
}

function providerOption(values: Values): Provider | undefined {
  const p = values.provider
  if (p === undefined) return undefined
  if (!PROVIDERS.includes(p as Provider)) {
    throw new UsageError(
      `option --provider: expected ${PROVIDERS.join(', ')}, got ${JSON.stringify(p)}`,
    )
  }
  return p as Provider
}

/** The provider whose rules a file's own format implies (OpenAI chat for the frameworks' formats). */
function providerOf(format: Format): Provider {
  return providerOfFormat(format) ?? 'openai'
}

function formatOption(values: Values): Format | 'auto' {
  return typeof values.format === 'string' ? (values.format as Format) : 'auto'
}

function file(positionals: string[], command: string, values: Values = {}): string {
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
function modelChoice(values: Values, provider: Provider): ModelChoice {
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
  if (!info && window === undefined) throw new UnknownModelError(model)
  const contextWindow = window ?? (info?.contextWindow as number)
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
function toolsOption(values: Values): ToolInput[] | undefined {
  const path = values.tools
  if (typeof path !== 'string') return undefined
  let json: unknown
  try {
    json = parseJson(readText(path), path)
  } catch (e) {
    throw new UsageError(`option --tools: ${(e as Error).message}`)
  }
  const held = json && typeof json === 'object' ? (json as { tools?: unknown }).tools : undefined
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

/** `count`: tokens per message, the total, and the model's window. */
export function count(positionals: string[], values: Values, io: Output): number {
  const input = readInput(file(positionals, 'count', values), formatOption(values))
  const chosen = modelChoice(values, providerOf(input.format))
  // A Gemini file with no model is counted by Gemini's estimate, as fit counts it.
  const counter =
    chosen.counter ??
    (chosen.model
      ? counterFor(chosen.model)
      : (providerApi(providerOf(input.format))?.counter() ?? exactCounter()))
  const tokens = input.messages.map((m) => counter.countMessage(m))
  const tools = toolsOption(values)
  const toolTokens = tools ? counter.countTools(toolSchemas(tools)) : 0
  // As countMessages counts it, from the counts above: each message is counted once.
  const total = tokens.reduce((n, t) => n + t, counter.replyPriming + toolTokens)
  if (values.json) {
    io.out(
      JSON.stringify(
        {
          source: input.source,
          counter: counter.name,
          exact: counter.exact,
          // --quiet: the totals only.
          ...(!values.quiet && {
            messages: tokens.map((t, i) => ({
              index: i,
              role: input.messages[i]?.role,
              tokens: t,
            })),
          }),
          ...(tools && { tools: { count: tools.length, tokens: toolTokens } }),
          total,
          contextWindow: chosen.contextWindow ?? null,
        },
        null,
        2,
      ),
    )
    return 0
  }
  // --quiet: the total only, for files too long to list.
  if (!values.quiet) {
    const rows = [['#', 'role', 'tokens', 'text']]
    input.messages.forEach((m, i) => {
      rows.push([String(i), roleLabel(m, io.color), String(tokens[i]), preview(m)])
    })
    if (tools)
      rows.push([
        '',
        'tools',
        String(toolTokens),
        `${tools.length} definitions from ${values.tools}`,
      ])
    io.out(table(rows, new Set([0, 2])))
  }
  const window =
    chosen.contextWindow !== undefined
      ? ` of ${chosen.contextWindow} (${values.model}) ${bar(total, chosen.contextWindow, 30)}`
      : ''
  const withTools = tools ? ` and ${tools.length} tool definitions` : ''
  io.out(
    `${values.quiet ? '' : '\n'}${total} tokens in ${input.messages.length} messages${withTools}${window}, counted by ${counter.name}${counter.exact ? '' : ' (estimate)'}`,
  )
  return 0
}

/** `validate`: the provider's rules; exit 1 when a rule is broken. */
export function validateCommand(positionals: string[], values: Values, io: Output): number {
  const input = readInput(file(positionals, 'validate', values), formatOption(values))
  const provider = providerOption(values) ?? providerOf(input.format)
  const checked = validate(input.messages, { provider })
  const { errors, warnings, valid } = checked
  if (values.json) {
    // --quiet: the counts only.
    const lists = values.quiet
      ? { errors: errors.length, warnings: warnings.length }
      : { errors, warnings }
    io.out(JSON.stringify({ source: input.source, provider, valid, ...lists }, null, 2))
  } else {
    // --quiet: the count line only.
    for (const p of values.quiet ? [] : checked) {
      const tag = paint(p.severity, p.severity === 'error' ? 'red' : 'yellow', io.color)
      io.out(`${input.source}: message ${p.index}: ${tag} ${p.code}: ${p.message}`)
    }
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`
    io.out(
      valid
        ? `${input.source}: ${input.messages.length} messages, valid for ${provider}${warnings.length ? ` (${count(warnings.length, 'warning')}: changes ${provider} makes, not refusals)` : ''}`
        : `${input.source}: not valid for ${provider}: ${count(errors.length, 'error')}, ${count(warnings.length, 'warning')}`,
    )
  }
  return valid ? 0 : 1
}

const FATE_COLOUR: Record<string, Colour> = {
  kept: 'green',
  changed: 'yellow',
  dropped: 'dim',
  summarized: 'magenta',
  invalid: 'red',
}

/** Flags that belong to some strategies only: given with another, they are refused, not ignored. */
const STRATEGY_FLAGS: Record<string, readonly string[]> = {
  size: ['buffered'],
  head: ['headAndTail'],
  tail: ['headAndTail'],
  turns: ['userTurns'],
  'drop-from': ['tokenLimited'],
  query: ['scoreBased', 'mostRelevant'],
  summarizer: ['summarizing'],
  'base-url': ['summarizing'],
  'summary-model': ['summarizing'],
  'api-key-env': ['summarizing'],
  trigger: ['summarizing'],
  'leave-last': ['summarizing'],
}

/** Flags a strategy cannot run without, named as the flags they are. */
const REQUIRED_FLAGS: Record<string, readonly string[]> = {
  buffered: ['size'],
  headAndTail: ['head', 'tail'],
  userTurns: ['turns'],
}

/** Flags that only mean something beside another flag. */
const NEEDS_FLAG: Record<string, string> = {
  'compact-at': 'native',
  'provider-response': 'native',
}

function checkStrategyFlags(values: Values): void {
  const strategy = typeof values.strategy === 'string' ? values.strategy : 'tokenLimited'
  for (const [flag, strategies] of Object.entries(STRATEGY_FLAGS))
    if (values[flag] !== undefined && !strategies.includes(strategy))
      throw new UsageError(
        `option --${flag} applies to --strategy ${strategies.join(' or ')}, not ${strategy}`,
      )
  const missing = (REQUIRED_FLAGS[strategy] ?? []).filter((f) => values[f] === undefined)
  if (missing.length)
    throw new UsageError(
      `--strategy ${strategy} needs ${missing.map((f) => `--${f} N`).join(' and ')}`,
    )
  for (const [flag, needed] of Object.entries(NEEDS_FLAG))
    if (values[flag] !== undefined && values[needed] === undefined)
      throw new UsageError(`option --${flag} needs --${needed}`)
}

/** `fit`: the main job. */
/** Strategies that bound what they keep without a budget. */
const NEEDS_NO_BUDGET = ['buffered', 'headAndTail', 'userTurns', 'unbounded']

function fitOptions(values: Values, input: Input, io: Pick<Output, 'err'>): FitOptions {
  checkStrategyFlags(values)
  const provider = providerOption(values) ?? providerOf(input.format)
  const chosen = modelChoice(values, provider)
  const given = intOption(values, 'budget')
  const strategy = typeof values.strategy === 'string' ? values.strategy : undefined
  if (
    given === undefined &&
    values.model === undefined &&
    !NEEDS_NO_BUDGET.includes(strategy ?? '')
  )
    throw new UsageError(
      `fit: give --budget N or --model M (or a --strategy that needs neither: ${NEEDS_NO_BUDGET.join(', ')})`,
    )
  // A model described by --window / --max-output: its window is the budget and its output
  // limit (at most a quarter of the window) the reserve, as fit does for a model it knows.
  const described = values.window !== undefined || values['max-output'] !== undefined
  const budget = given ?? (described ? chosen.contextWindow : undefined)
  const reserve =
    values.reserve !== undefined
      ? intOption(values, 'reserve', 0)
      : described && given === undefined && chosen.contextWindow !== undefined
        ? Math.min(chosen.maxOutput ?? 0, Math.floor(chosen.contextWindow / 4))
        : undefined
  const tools = toolsOption(values)
  return {
    ...(strategy && { strategy }),
    ...(budget !== undefined && { budget }),
    ...(chosen.model && { model: chosen.model }),
    ...(chosen.counter && { counter: chosen.counter }),
    ...(reserve !== undefined && { reserve }),
    ...(tools && { tools }),
    ...(values.size !== undefined && { size: intOption(values, 'size') }),
    ...(values.head !== undefined && { head: intOption(values, 'head', 0) }),
    ...(values.tail !== undefined && { tail: intOption(values, 'tail', 0) }),
    ...(values.turns !== undefined && { maxTurns: intOption(values, 'turns') }),
    ...(values['drop-from'] !== undefined && {
      dropFrom: values['drop-from'] as 'oldest' | 'middle',
    }),
    ...(typeof values.query === 'string' && { query: values.query }),
    ...ledgerOption(values),
    ...pinOption(values, input),
    provider,
    ...transformOptions(values),
    ...(strategy === 'summarizing' && summarizerOptions(values, io)),
  } as FitOptions
}

/** `--pin 1,4` (or `--pin 1 --pin 4`): those messages, by the index the rows show, are pinned. */
function pinOption(values: Values, input: Input): Pick<FitOptions, 'pin'> {
  const raw = values.pin
  if (raw === undefined) return {}
  const n = input.messages.length
  const chosen = new Set<number>()
  for (const part of String(raw).split(',')) {
    const i = /^\s*\d+\s*$/.test(part) ? Number(part) : Number.NaN
    if (!(Number.isSafeInteger(i) && i < n))
      throw new UsageError(
        `option --pin: expected message indices 0 to ${n - 1}, comma-separated, got ${JSON.stringify(raw)}`,
      )
    chosen.add(i)
  }
  return { pin: (_, i) => chosen.has(i) }
}

/** `--ledger` / `--no-ledger`: both at once is a usage error. */
function ledgerOption(values: Values): { ledger?: boolean } {
  if (values.ledger && values['no-ledger'])
    throw new UsageError('options --ledger and --no-ledger: give one of them')
  if (values.ledger) return { ledger: true }
  if (values['no-ledger']) return { ledger: false }
  return {}
}

/** `--native TARGET`: the policy from the clearing and compaction flags, split between provider and client. */
function nativePlan(values: Values): ContextManagementPlan | undefined {
  const target = values.native
  if (target === undefined) return undefined
  // The APIs that run context management themselves, by the format name `--native` takes.
  const natives = Object.values(PROVIDER_APIS)
    .filter((api) => api.native !== undefined)
    .map((api) => api.format)
  if (typeof target !== 'string' || !natives.includes(target as (typeof natives)[number]))
    throw new UsageError(
      `option --native: expected ${natives.join(' or ')}, got ${JSON.stringify(target)}`,
    )
  const policy: ContextPolicy = {}
  if (values['clear-tool-results'] !== undefined)
    policy.clearToolResults = {
      keep:
        values['clear-tool-results'] === true
          ? 3
          : (intOption(values, 'clear-tool-results', 0) ?? 3),
    }
  const thinking = thinkingKeep(values)
  if (thinking) policy.clearThinking = { keep: thinking }
  const at = intOption(values, 'compact-at')
  if (at !== undefined) policy.compact = { trigger: at }
  return contextManagement(policy, { target: target as (typeof natives)[number] })
}

function thinkingKeep(values: Values): ThinkingKeep | undefined {
  const raw = values['clear-thinking']
  if (raw === undefined) return undefined
  if (raw === 'all') return 'all'
  return { type: 'thinking_turns', value: intOption(values, 'clear-thinking', 0) ?? 1 }
}

function transformOptions(values: Values): Pick<FitOptions, 'transforms'> {
  const transforms: Transform[] = []
  const plan = nativePlan(values)
  if (plan) transforms.push(...plan.transforms)
  const thinking = thinkingKeep(values)
  if (!plan && thinking) transforms.push(clearThinking({ keep: thinking }))
  if (!plan && values['clear-tool-results'] !== undefined) {
    const keep =
      values['clear-tool-results'] === true ? 3 : intOption(values, 'clear-tool-results', 0)
    transforms.push(clearToolResults({ keep: keep ?? 3 }))
  }
  const cap = intOption(values, 'max-tokens-per-message')
  if (cap !== undefined) transforms.push(truncateMessages({ maxTokensPerMessage: cap }))
  return transforms.length ? { transforms } : {}
}

function summarizerOptions(values: Values, io: Pick<Output, 'err'>): Record<string, unknown> {
  const kind = values.summarizer ?? 'extractive'
  // Compression events (a fallback above all) go where the command's messages go: a fit that
  // fell back says so.
  const out: Record<string, unknown> = {
    onEvent: (e: CompressionEvent) => io.err(`context-window: ${describeCompression(e)}`),
  }
  if (values.trigger !== undefined) {
    const t = Number(values.trigger)
    if (!(t > 0))
      throw new UsageError(
        `option --trigger: expected a fraction in (0, 1] or a token count, got ${JSON.stringify(values.trigger)}`,
      )
    out.trigger = t <= 1 ? t : { tokens: Math.floor(t) }
  }
  if (values['leave-last'] !== undefined) out.leaveLastN = intOption(values, 'leave-last', 0)
  if (kind === 'extractive') return out
  if (kind !== 'openai')
    throw new UsageError(
      `option --summarizer: expected extractive or openai, got ${JSON.stringify(kind)}`,
    )
  const baseURL = values['base-url']
  const model = values['summary-model']
  if (typeof baseURL !== 'string')
    throw new UsageError('option --summarizer openai needs --base-url URL')
  if (typeof model !== 'string')
    throw new UsageError('option --summarizer openai needs --summary-model M')
  const envName = typeof values['api-key-env'] === 'string' ? values['api-key-env'] : undefined
  const apiKey = envName ? process.env[envName] : undefined
  if (envName && !apiKey)
    throw new UsageError(`option --api-key-env: the environment variable ${envName} is not set`)
  return { ...out, summarizer: { baseURL, model, ...(apiKey && { apiKey }) } }
}

/** `fit DIR --out-dir OUT`: every JSON conversation in a folder; one bad file does not stop the rest. */
function fitBatch(dir: string, values: Values, io: Output): number | Promise<number> {
  const outDir = values['out-dir']
  if (typeof outDir !== 'string')
    throw new UsageError(`fit: ${dir} is a folder: give --out-dir OUT`)
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
  // Only regular files (or links to one) are read: a pipe or a device named *.json would
  // block the read forever, and a folder cannot be read; each is reported and skipped.
  const files = names.filter((f) => statSync(join(dir, f), { throwIfNoEntry: false })?.isFile())
  const skipped = names.filter((f) => !files.includes(f))
  makeOutDir(outDir)
  for (const name of skipped) io.err(`context-window: ${name}: not a regular file, skipped`)
  let done = 0
  let failed = skipped.length
  let saved = 0
  const progress = (last: boolean) => {
    // --quiet: the summary line only.
    if (values.quiet) return
    const line = `[${done + failed}/${names.length}] ${done} fitted, ${failed} failed, ${saved} tokens saved`
    if (io.errTTY) io.errRaw?.(`\r${line}${last ? '\n' : ''}`)
    else io.err(line)
  }
  const fitted = (name: string, input: Input, result: FitResult) => {
    writeAtomic(join(outDir, name), `${JSON.stringify(input.encode(result.messages), null, 2)}\n`)
    saved += result.fates.reduce((n, f) => n + f.tokens, 0) - result.tokens.messages
    done++
  }
  const failedOne = (name: string, e: unknown) => {
    failed++
    if (io.errTTY) io.errRaw?.('\n')
    io.err(`context-window: ${name}: ${e instanceof Error ? e.message : String(e)}`)
  }
  const summary = () => {
    io.out(
      `fitted ${done} of ${names.length} files into ${outDir}${failed ? `; ${failed} failed` : ''}; ${saved} tokens saved`,
    )
    return failed ? 1 : 0
  }
  // A summarizing strategy may call a server: the asynchronous path, one file after another.
  if (values.strategy === 'summarizing') {
    return (async () => {
      for (const name of files) {
        try {
          const input = readInput(join(dir, name), formatOption(values))
          fitted(name, input, await fitAsync(input.messages, fitOptions(values, input, io)))
        } catch (e) {
          failedOne(name, e)
        }
        progress(done + failed === files.length)
      }
      return summary()
    })()
  }
  for (const name of files) {
    try {
      const input = readInput(join(dir, name), formatOption(values))
      fitted(name, input, fit(input.messages, fitOptions(values, input, io)))
    } catch (e) {
      failedOne(name, e)
    }
    progress(done + failed === files.length)
  }
  return summary()
}

/** The folder `--out-dir` names, made when missing; anything else there is a usage error. */
function makeOutDir(outDir: string): void {
  if (existsSync(outDir) && !statSync(outDir).isDirectory())
    throw new UsageError(`option --out-dir: ${outDir} exists and is not a folder`)
  try {
    mkdirSync(outDir, { recursive: true })
  } catch (e) {
    throw new UsageError(
      `option --out-dir: cannot make ${outDir} (${(e as NodeJS.ErrnoException)?.code ?? String(e)})`,
    )
  }
}

/** Standard output carries one thing: the fitted JSON, the report, or the result. */
function stdoutOnce(values: Values): void {
  const claims = [
    values.out === '-' && '--out -',
    values.report === '-' && '--report -',
    values.json === true && '--json',
  ].filter(Boolean)
  if (claims.length > 1)
    throw new UsageError(`fit: ${claims.join(' and ')} both write to standard output`)
  if (values['out-dir'] === '-')
    throw new UsageError('fit: --out-dir takes a folder (standard output holds one file)')
  const { out, report } = values
  if (typeof out === 'string' && typeof report === 'string' && out !== '-' && sameFile(out, report))
    throw new UsageError(`fit: --out and --report both name ${report}: give each its own file`)
}

/** Whether two paths name one file: the same path once resolved, links followed where they exist. */
function sameFile(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p)
    } catch {
      // Not there yet: its folder's real path and its name.
      try {
        return join(realpathSync(dirname(resolve(p))), basename(p))
      } catch {
        return resolve(p)
      }
    }
  }
  return real(a) === real(b)
}

/** `fit`: the main job. */
export function fitCommand(
  positionals: string[],
  values: Values,
  io: Output,
): number | Promise<number> {
  const path = file(positionals, 'fit', values)
  stdoutOnce(values)
  if (path !== '-' && existsSync(path) && statSync(path).isDirectory())
    return fitBatch(path, values, io)
  if (values['out-dir'] !== undefined)
    throw new UsageError(
      `option --out-dir applies to a folder of files; ${path} is one file: use --out`,
    )
  const input = readInput(path, formatOption(values))
  const options = fitOptions(values, input, io)
  const failed = (e: unknown): number => {
    if (e instanceof ContextOverflowError) {
      io.err(`context-window: ${input.source}: ${e.message}`)
      return 3
    }
    if (e instanceof UnknownModelError) throw e
    if (e instanceof InvalidOptionError) throw new UsageError(e.message)
    throw e
  }
  // A summarizing strategy may call a server: the one asynchronous path.
  if (options.strategy === 'summarizing') {
    return fitAsync(input.messages, options).then(
      (r) => finishFit(input, options, r, values, io),
      failed,
    )
  }
  let result: ReturnType<typeof fit>
  try {
    result = fit(input.messages, options)
  } catch (e) {
    return failed(e)
  }
  return finishFit(input, options, result, values, io)
}

function finishFit(
  input: Input,
  options: FitOptions,
  raw: FitResult,
  values: Values,
  io: Output,
): number {
  let result = raw
  const plan = nativePlan(values)
  if (plan) {
    const path = values['provider-response']
    let response: unknown
    if (typeof path === 'string') {
      try {
        response = JSON.parse(readFileSync(path, 'utf8'))
      } catch (e) {
        throw new UsageError(`option --provider-response: ${path}: ${(e as Error).message}`)
      }
    }
    try {
      result = withContextManagement(result, plan, response)
    } catch (e) {
      throw new UsageError(`option --provider-response: ${path}: ${(e as Error).message}`)
    }
  }
  const fitted = () => JSON.stringify(input.encode(result.messages), null, 2)
  // `-` is standard output: the data goes there, and the summary to standard error.
  const toStdout = values.out === '-' || values.report === '-'
  if (typeof values.out === 'string') {
    if (values.out === '-') io.out(fitted())
    else writeAtomic(values.out, `${fitted()}\n`)
  }
  if (typeof values.report === 'string') {
    const settings: ReportSettings = {
      source: input.source,
      strategy: result.strategy,
      budget: result.budget,
      ...(typeof options.model === 'string' && { model: options.model }),
      ...(typeof options.query === 'string' && { query: options.query }),
      options: Object.fromEntries(
        Object.entries(options)
          .filter(([k]) => !['strategy', 'budget', 'model', 'query'].includes(k))
          // A report is a file people share: the summarizer's API key never goes in it.
          .map(([k, v]) => [k, k === 'summarizer' ? withoutKey(v) : v]),
      ),
    }
    const html = renderReport(input.messages, result, settings)
    if (values.report === '-') io.out(html)
    else writeAtomic(values.report, html)
  }
  if (values.json) {
    // --quiet: the summary's fields, without a list per message.
    const summary = values.quiet
      ? {
          strategy: result.strategy,
          budget: result.budget,
          tokens: result.tokens,
          kept: result.kept.length,
          dropped: result.dropped.length,
          inserted: result.inserted.length,
          changed: result.changed.length,
          ...(result.notes && { notes: result.notes }),
        }
      : result
    io.out(JSON.stringify({ source: input.source, ...summary }, null, 2))
    return 0
  }
  const rows = [['#', 'role', 'tokens', 'fate', 'text']]
  // A message the fit wrote (the ledger, a placeholder, a summary) is listed where it is
  // sent: right after the message sent just before it.
  const insertedAt = new Map(result.inserted.map((ins) => [ins.position, ins]))
  const listed = new Set<number>()
  const insertedAfter = (position: number) => {
    for (let p = position + 1; insertedAt.has(p); p++) {
      const ins = insertedAt.get(p) as FitResult['inserted'][number]
      listed.add(p)
      rows.push([
        '+',
        roleLabel(ins.message, io.color),
        String(counterTokens(result, ins.position)),
        paint(
          `inserted ${ins.reason} for ${ins.replaces.length}${spanOf(ins.replaces)}`,
          'magenta',
          io.color,
        ),
        preview(ins.message, 50),
      ])
    }
  }
  insertedAfter(-1)
  input.messages.forEach((m: Message, i) => {
    const f = result.fates[i]
    if (!f) return
    const label = f.reason && f.fate !== 'kept' ? `${f.fate} (${f.reason})` : f.fate
    rows.push([
      String(i),
      roleLabel(m, io.color),
      String(f.tokens),
      paint(label, FATE_COLOUR[f.fate] ?? 'dim', io.color),
      preview(m, 50),
    ])
    if (f.position !== undefined) insertedAfter(f.position)
  })
  // Any not placed above (none, when every position is accounted for) close the list.
  for (const p of [...insertedAt.keys()].sort((a, b) => a - b))
    if (!listed.has(p)) insertedAfter(p - 1)
  // With standard output taken by the data, only the summary line goes to standard error.
  const say = toStdout ? io.err : io.out
  if (!toStdout && !values.quiet) say(table(rows, new Set([0, 2])))
  const { tokens } = result
  let system = 0
  for (const f of result.fates)
    if (f.position !== undefined && result.messages[f.position]?.role === 'system')
      system += f.tokens
  const parts = [
    { n: system, ch: 'S' },
    { n: tokens.total - system, ch: '#' },
    { n: tokens.reserve, ch: 'r' },
  ]
  const of =
    result.budget === null
      ? 'no budget'
      : `of ${result.budget} ${splitBar(parts, result.budget, 30)} (S system, # messages and tools, r reserve, . free)`
  say(
    `${toStdout || values.quiet ? '' : '\n'}${result.strategy}: kept ${result.kept.length}, dropped ${result.dropped.length}` +
      (result.inserted.length ? `, inserted ${result.inserted.length}` : '') +
      (result.changed.length ? `, changed ${result.changed.length}` : '') +
      `; ${tokens.total} tokens sent${tokens.tools ? ` (${tokens.tools} of them tools)` : ''}${tokens.reserve ? ` + ${tokens.reserve} reserved` : ''} ${of}` +
      (typeof values.out === 'string' && values.out !== '-' ? `; written to ${values.out}` : ''),
  )
  for (const note of result.notes ?? []) say(`note: ${note}`)
  for (const ins of result.inserted) {
    const f = ins.facts
    if (!f) continue
    const shown = f.reinserted.slice(0, 12).map((x) => x.value)
    say(
      `facts of summary #${ins.position}: ${f.kept + f.reinserted.length} of ${f.total} sent (${(100 * f.rate).toFixed(1)}%), ${f.reinserted.length} re-inserted${shown.length ? `: ${shown.join(', ')}${f.reinserted.length > shown.length ? `, … (${f.reinserted.length - shown.length} more)` : ''}` : ''}${f.lost.length ? `; ${f.lost.length} lost for want of room` : ''}`,
    )
  }
  const cm = result.contextManagement
  if (cm) {
    const runs = Object.entries(cm.where)
      .map(([k, v]) => `${k} by the ${v}`)
      .join(', ')
    say(`\n${cm.target}: ${runs || 'nothing to run'}`)
    if (Object.keys(cm.request).length) say(`request fields: ${JSON.stringify(cm.request)}`)
    for (const [k, v] of Object.entries(cm.headers)) say(`header ${k}: ${v}`)
    for (const e of cm.provider?.applied ?? [])
      say(
        `provider applied ${e.type}: ${[
          e.clearedToolUses !== undefined && `${e.clearedToolUses} tool uses`,
          e.clearedThinkingTurns !== undefined && `${e.clearedThinkingTurns} thinking turns`,
          e.clearedInputTokens !== undefined && `${e.clearedInputTokens} tokens`,
        ]
          .filter(Boolean)
          .join(', ')} cleared`,
      )
    for (const c of cm.provider?.compactions ?? [])
      say(
        `provider compacted${c.id ? ` (${c.id})` : ''}: ${c.summary ?? (c.encrypted ? 'encrypted' : 'no summary')}`,
      )
  }
  return 0
}

function withoutKey(spec: unknown): unknown {
  if (!spec || typeof spec !== 'object') return spec
  const { apiKey: _key, ...rest } = spec as Record<string, unknown>
  return rest
}

function counterTokens(result: ReturnType<typeof fit>, position: number): number {
  const m = result.messages[position]
  return m ? exactCounter().countMessage(m) : 0
}

function roleLabel(m: Message, color: boolean): string {
  const colour: Colour =
    m.role === 'system'
      ? 'cyan'
      : m.role === 'user'
        ? 'blue'
        : m.role === 'tool'
          ? 'yellow'
          : 'green'
  const label =
    m.role === 'assistant' && m.toolCalls?.length
      ? `assistant→${m.toolCalls.length} call${m.toolCalls.length > 1 ? 's' : ''}`
      : m.role
  return paint(label, colour, color)
}

/** ` (messages 3 to 9)` when the indices run without a gap, else nothing: the numbers `kept` and `fates` use. */
function spanOf(indices: readonly number[]): string {
  const first = indices[0]
  const last = indices[indices.length - 1]
  if (first === undefined || last === undefined || last - first + 1 !== indices.length) return ''
  return ` (messages ${first} to ${last})`
}

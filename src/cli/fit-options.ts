/** `fit`'s flags read into `fit`'s options: the strategy and its flags, the ledger, pins, transforms, the summarizer, native context management. */
import { type CompressionEvent, describeCompression } from '../compress/summarizing-options.js'
import type { FitOptions } from '../context/fit.js'
import {
  type ContextManagementPlan,
  type ContextPolicy,
  contextManagement,
} from '../native/context-management.js'
import { PROVIDER_APIS } from '../providers/index.js'
import type { Transform } from '../strategies/types.js'
import { clearThinking, type ThinkingKeep } from '../transforms/clear-thinking.js'
import { clearToolResults } from '../transforms/clear-tool-results.js'
import { truncateMessages } from '../transforms/truncate-messages.js'
import { NEEDS_FLAG, requiredFlags, STRATEGY_FLAGS } from './flag-table.js'
import {
  intOption,
  modelChoice,
  type Output,
  providerOf,
  providerOption,
  toolsOption,
  type Values,
} from './flags.js'
import { type Input, UsageError } from './io.js'

function checkStrategyFlags(values: Values): void {
  const strategy = typeof values.strategy === 'string' ? values.strategy : 'tokenLimited'
  for (const { flag, strategies } of STRATEGY_FLAGS)
    if (values[flag] !== undefined && !strategies.includes(strategy))
      throw new UsageError(
        `applies to --strategy ${strategies.join(' or ')}, not ${strategy}`,
        undefined,
        `option --${flag} `,
      )
  const missing = requiredFlags(strategy).filter((f) => values[f] === undefined)
  if (missing.length)
    throw new UsageError(
      `--strategy ${strategy} needs ${missing.map((f) => `--${f} N`).join(' and ')}`,
    )
  for (const { flag, needs } of NEEDS_FLAG)
    if (values[flag] !== undefined && values[needs] === undefined)
      throw new UsageError(`needs --${needs}`, undefined, `option --${flag} `)
}

/** `fit`: the main job. */
/** Strategies that bound what they keep without a budget. */
const NEEDS_NO_BUDGET = ['buffered', 'headAndTail', 'userTurns', 'unbounded']

export function fitOptions(values: Values, input: Input, io: Pick<Output, 'err'>): FitOptions {
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
        `expected message indices 0 to ${n - 1}, comma-separated, got ${JSON.stringify(raw)}`,
        undefined,
        // The flag's name as written: `--pin` would pass for a credential's flag to the filter.
        'option --pin: ',
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
export function nativePlan(values: Values): ContextManagementPlan | undefined {
  const target = values.native
  if (target === undefined) return undefined
  // The APIs that run context management themselves, by the format name `--native` takes.
  const natives = Object.values(PROVIDER_APIS)
    .filter((api) => api.native !== undefined)
    .map((api) => api.format)
  const native = natives.find((n) => n === target)
  if (native === undefined)
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
  return contextManagement(policy, { target: native })
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

import type { Summarizer } from '../compress/summarizer.js'
import { type SummarizingStrategy, summarizing } from '../compress/summarizing.js'
import type { ContextManagementReport, ContextTarget, FitResult, Where } from '../context/result.js'
import { InvalidInputError, InvalidOptionError } from '../errors.js'
import { checkKeys, describeValue, requireArgument } from '../options-check.js'
import { PROVIDER_REPLIES, providerRepliesOfFormat } from '../providers/replies.js'
import type { NativeParts, ProviderContextReport } from '../providers/types.js'
import type { Transform } from '../strategies/types.js'
import { clearThinking, type ThinkingKeep } from '../transforms/clear-thinking.js'
import { clearToolResults } from '../transforms/clear-tool-results.js'

/**
 * One context-management policy, run by the provider where it can and by this library
 * where it cannot. Token figures are input tokens; defaults are Anthropic's, on both sides.
 */
export interface ContextPolicy {
  /** Anthropic `clear_tool_uses_20250919`; client: `clearToolResults`. */
  clearToolResults?: {
    /** Start once the input passes this many tokens. Default 100,000. */
    trigger?: number
    /** Tool uses kept (Anthropic); tool exchanges kept (client). Default 3. */
    keep?: number
    /** Clear at least this many tokens, or nothing. */
    clearAtLeast?: number
    /** Tools whose results are never cleared. */
    excludeTools?: string[]
    /** Also clear the call arguments: all, or of the tools named. */
    clearInputs?: boolean | string[]
  }
  /** Anthropic `clear_thinking_20251015`; client: `clearThinking`. */
  clearThinking?: { keep?: ThinkingKeep }
  /** Anthropic `compact_20260112`, OpenAI Responses `compaction`; client: `summarizing`. */
  compact?: {
    /** Compact once the input passes this many tokens. Default 150,000. */
    trigger?: number
    /** Anthropic: extra instructions for its summary. */
    instructions?: string
    /** Anthropic: stop after compacting and return the compaction block. */
    pauseAfterCompaction?: boolean
    /** Client side: who summarizes. Default the offline extractive summarizer. */
    summarizer?: Summarizer
  }
}

const COMPACT_KEYS = ['trigger', 'instructions', 'pauseAfterCompaction', 'summarizer'] as const

export interface ContextManagementPlan {
  target: ContextTarget
  /** Fields to merge into the request body (`context_management`), empty when nothing runs natively. */
  body: Record<string, unknown>
  /** Beta flags the request needs (Anthropic), also as `headers['anthropic-beta']`. */
  betas: string[]
  headers: Record<string, string>
  /** What runs on the client before the request: pass to `fit` / `ChatContext`. */
  transforms: Transform[]
  /** Client-side compaction, when the provider does not compact. */
  strategy?: SummarizingStrategy
  /** Where each part of the policy runs. */
  where: ContextManagementReport['where']
}

export {
  ANTHROPIC_COMPACT_BETA,
  ANTHROPIC_CONTEXT_BETA,
} from '../providers/anthropic-messages/limits.js'

const TOOL_TRIGGER = 100_000
const COMPACT_TRIGGER = 150_000

function count(field: string, v: unknown, min = 0): number | undefined {
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min)
    throw new InvalidOptionError(
      field,
      `expected a whole number >= ${min}, got ${describeValue(v)}`,
    )
  return v
}

function names(field: string, v: unknown): string[] | undefined {
  if (v === undefined) return undefined
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
    throw new InvalidOptionError(field, `expected a list of tool names, got ${describeValue(v)}`)
  return v as string[]
}

/**
 * The request fields and client-side pieces that carry out `policy` for `target`:
 * `context_management.edits` for Anthropic (clear thinking first, as it requires), a
 * `context_management` compaction entry for OpenAI Responses, and the equivalent
 * transforms and summarizing strategy for whatever the provider does not do.
 * `native: false` runs everything on the client.
 */
export function contextManagement(
  policy: ContextPolicy,
  options: { target: ContextTarget; native?: boolean },
): ContextManagementPlan {
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy))
    throw new InvalidOptionError('policy', `expected an object, got ${describeValue(policy)}`)
  if (options === null || typeof options !== 'object')
    throw new InvalidOptionError('options', `expected { target }, got ${describeValue(options)}`)
  // A misspelt policy key would be ignored, and what it asked for never done.
  checkKeys(policy, ['clearToolResults', 'clearThinking', 'compact'], 'contextManagement policy')
  checkKeys(options, ['target', 'native'], 'contextManagement')
  for (const [key, known] of [
    ['clearToolResults', ['trigger', 'keep', 'clearAtLeast', 'excludeTools', 'clearInputs']],
    ['clearThinking', ['keep']],
    ['compact', COMPACT_KEYS],
  ] as const) {
    const value = (policy as Record<string, unknown>)[key]
    if (value === undefined) continue
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new InvalidOptionError(key, `expected an object, got ${describeValue(value)}`)
    checkKeys(value, known, `contextManagement policy ${key}`)
  }
  const { target } = options
  if (!['anthropic', 'openai-responses', 'openai-chat', 'gemini', 'client'].includes(target))
    throw new InvalidOptionError(
      'target',
      `expected anthropic, openai-responses, openai-chat, gemini or client, got ${describeValue(target)}`,
    )
  // What the target's API runs itself comes from its folder under src/providers/.
  const api = options.native === false ? undefined : providerRepliesOfFormat(target)?.native
  const runs = (part: keyof NativeParts) => api?.runs.includes(part) === true
  const plan: ContextManagementPlan = {
    target,
    body: {},
    betas: [],
    headers: {},
    transforms: [],
    where: {},
  }
  const parts: NativeParts = {}

  const thinking = policy.clearThinking
  if (thinking) {
    const transform = clearThinking(thinking.keep === undefined ? {} : { keep: thinking.keep })
    if (runs('clearThinking')) {
      parts.clearThinking = { keep: transform.options.keep }
      plan.where.clearThinking = 'provider'
    } else {
      plan.transforms.push(transform)
      plan.where.clearThinking = 'client'
    }
  }

  const tools = policy.clearToolResults
  if (tools) {
    const trigger = count('clearToolResults.trigger', tools.trigger) ?? TOOL_TRIGGER
    const keep = count('clearToolResults.keep', tools.keep) ?? 3
    const clearAtLeast = count('clearToolResults.clearAtLeast', tools.clearAtLeast)
    const excludeTools = names('clearToolResults.excludeTools', tools.excludeTools)
    const clearInputs =
      typeof tools.clearInputs === 'boolean'
        ? tools.clearInputs
        : names('clearToolResults.clearInputs', tools.clearInputs)
    const checked = {
      trigger,
      keep,
      ...(clearAtLeast !== undefined && { clearAtLeast }),
      ...(excludeTools && { excludeTools }),
      ...(clearInputs !== undefined && { clearInputs }),
    }
    if (runs('clearToolResults')) {
      parts.clearToolResults = checked
      plan.where.clearToolResults = 'provider'
    } else {
      plan.transforms.push(clearToolResults(checked))
      plan.where.clearToolResults = 'client'
    }
  }

  const compact = policy.compact
  if (compact) {
    const trigger = count('compact.trigger', compact.trigger, 1) ?? COMPACT_TRIGGER
    if (compact.instructions !== undefined && typeof compact.instructions !== 'string')
      throw new InvalidOptionError('compact.instructions', 'expected a string')
    // Passed into the request as it is: anything but a boolean would be the API's 400.
    if (
      compact.pauseAfterCompaction !== undefined &&
      typeof compact.pauseAfterCompaction !== 'boolean'
    )
      throw new InvalidOptionError(
        'compact.pauseAfterCompaction',
        `expected true or false, got ${describeValue(compact.pauseAfterCompaction)}`,
      )
    if (runs('compact')) {
      parts.compact = {
        trigger,
        ...(compact.instructions !== undefined && { instructions: compact.instructions }),
        ...(compact.pauseAfterCompaction !== undefined && {
          pauseAfterCompaction: compact.pauseAfterCompaction,
        }),
      }
      plan.where.compact = 'provider'
    } else {
      plan.strategy = summarizing({
        trigger: { tokens: trigger },
        ...(compact.summarizer && { summarizer: compact.summarizer }),
      })
      plan.where.compact = 'client'
    }
  }

  if (api) {
    const { body, betas } = api.request(parts)
    plan.body = body
    plan.betas = betas
    if (betas.length) plan.headers['anthropic-beta'] = betas.join(',')
  }
  return plan
}

/** One edit a provider says it applied. */
export type AppliedEdit = ProviderContextReport['applied'][number]

/** A compaction the provider made: Anthropic's summary text, or OpenAI's opaque item. */
export type Compaction = ProviderContextReport['compactions'][number]

export type { ContextManagementReport, ContextTarget, ProviderContextReport, Where }

/**
 * What the provider did, from its response: each API with context management of its own
 * reads its response (`native.read` in its folder under `src/providers/`): Anthropic's
 * `context_management.applied_edits` and `compaction` content blocks, OpenAI's `compaction`
 * output items (Responses API, `/responses/compact`). A response with none reports nothing
 * done. A malformed one is refused with `InvalidInputError` naming the field.
 */
export function readContextManagement(response: unknown): ProviderContextReport {
  if (!response || typeof response !== 'object' || Array.isArray(response))
    throw new InvalidInputError('expected a provider response object', { field: 'response' })
  const body = response as Record<string, unknown>
  for (const api of Object.values(PROVIDER_REPLIES)) {
    const report = api.native?.read(body)
    if (report) return report
  }
  throw new InvalidInputError('expected a provider response object', { field: 'response' })
}

/** The account a result and a report carry: where each part ran and what the provider said it did. */
export function contextManagementReport(
  plan: ContextManagementPlan,
  response?: unknown,
): ContextManagementReport {
  requireArgument(
    typeof plan === 'object' && plan !== null && typeof plan.target === 'string',
    'contextManagementReport',
    'plan',
    'the plan contextManagement returned',
    plan,
  )
  return {
    target: plan.target,
    where: plan.where,
    request: plan.body,
    headers: plan.headers,
    ...(response !== undefined && { provider: readContextManagement(response) }),
  }
}

/** The result with the account attached (a copy: the result passed in is not changed). */
export function withContextManagement(
  result: FitResult,
  plan: ContextManagementPlan,
  response?: unknown,
): FitResult {
  requireArgument(
    typeof result === 'object' && result !== null && Array.isArray(result.messages),
    'withContextManagement',
    'result',
    'a fit result',
    result,
  )
  return { ...result, contextManagement: contextManagementReport(plan, response) }
}

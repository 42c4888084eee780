import type { Summarizer } from '../compress/summarizer.js'
import { type SummarizingStrategy, summarizing } from '../compress/summarizing.js'
import type { FitResult } from '../context/fit.js'
import { InvalidInputError, InvalidOptionError } from '../errors.js'
import { checkKeys, describeValue, requireArgument } from '../options-check.js'
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

/**
 * Where requests go. `anthropic`: the Messages API (all three natively, beta);
 * `openai-responses`: compaction natively, the rest on the client; `openai-chat`,
 * `gemini`, `client`: everything on the client.
 */
export type ContextTarget = 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini' | 'client'

export type Where = 'provider' | 'client'

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
  where: { clearToolResults?: Where; clearThinking?: Where; compact?: Where }
}

export const ANTHROPIC_CONTEXT_BETA = 'context-management-2025-06-27'
export const ANTHROPIC_COMPACT_BETA = 'compact-2026-01-12'
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
  const native = options.native !== false
  const anthropic = native && target === 'anthropic'
  const responses = native && target === 'openai-responses'
  const plan: ContextManagementPlan = {
    target,
    body: {},
    betas: [],
    headers: {},
    transforms: [],
    where: {},
  }
  const edits: Record<string, unknown>[] = []

  const thinking = policy.clearThinking
  if (thinking) {
    const transform = clearThinking(thinking.keep === undefined ? {} : { keep: thinking.keep })
    if (anthropic) {
      edits.push({ type: 'clear_thinking_20251015', keep: transform.options.keep })
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
    if (anthropic) {
      edits.push({
        type: 'clear_tool_uses_20250919',
        trigger: { type: 'input_tokens', value: trigger },
        keep: { type: 'tool_uses', value: keep },
        ...(clearAtLeast !== undefined && {
          clear_at_least: { type: 'input_tokens', value: clearAtLeast },
        }),
        ...(excludeTools && { exclude_tools: excludeTools }),
        ...(clearInputs !== undefined && { clear_tool_inputs: clearInputs }),
      })
      plan.where.clearToolResults = 'provider'
    } else {
      plan.transforms.push(
        clearToolResults({
          trigger,
          keep,
          ...(clearAtLeast !== undefined && { clearAtLeast }),
          ...(excludeTools && { excludeTools }),
          ...(clearInputs !== undefined && { clearInputs }),
        }),
      )
      plan.where.clearToolResults = 'client'
    }
  }

  const compact = policy.compact
  if (compact) {
    const trigger = count('compact.trigger', compact.trigger, 1) ?? COMPACT_TRIGGER
    if (compact.instructions !== undefined && typeof compact.instructions !== 'string')
      throw new InvalidOptionError('compact.instructions', 'expected a string')
    if (anthropic) {
      edits.push({
        type: 'compact_20260112',
        trigger: { type: 'input_tokens', value: trigger },
        ...(compact.instructions !== undefined && { instructions: compact.instructions }),
        ...(compact.pauseAfterCompaction !== undefined && {
          pause_after_compaction: compact.pauseAfterCompaction,
        }),
      })
      plan.where.compact = 'provider'
    } else if (responses) {
      plan.body.context_management = [{ type: 'compaction', compact_threshold: trigger }]
      plan.where.compact = 'provider'
    } else {
      plan.strategy = summarizing({
        trigger: { tokens: trigger },
        ...(compact.summarizer && { summarizer: compact.summarizer }),
      })
      plan.where.compact = 'client'
    }
  }

  if (edits.length) {
    plan.body.context_management = { edits }
    if (edits.some((e) => e.type !== 'compact_20260112')) plan.betas.push(ANTHROPIC_CONTEXT_BETA)
    if (edits.some((e) => e.type === 'compact_20260112')) plan.betas.push(ANTHROPIC_COMPACT_BETA)
    plan.headers['anthropic-beta'] = plan.betas.join(',')
  }
  return plan
}

/** One edit a provider says it applied. */
export interface AppliedEdit {
  type: string
  clearedInputTokens?: number
  clearedToolUses?: number
  clearedThinkingTurns?: number
}

/** A compaction the provider made: Anthropic's summary text, or OpenAI's opaque item. */
export interface Compaction {
  id?: string
  /** Anthropic's summary (null when its compaction failed); absent for OpenAI's encrypted items. */
  summary?: string | null
  encrypted: boolean
}

/** What the provider did to the context, read from its response. */
export interface ProviderContextReport {
  provider: 'anthropic' | 'openai'
  applied: AppliedEdit[]
  compactions: Compaction[]
}

/** The plan and what the provider reported: attach to a `FitResult` as `contextManagement`. */
export interface ContextManagementReport {
  target: ContextTarget
  where: ContextManagementPlan['where']
  /** The body fields and headers the request carried. */
  request: Record<string, unknown>
  headers: Record<string, string>
  provider?: ProviderContextReport
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v)

function tokenField(edit: Record<string, unknown>, k: number, field: string): number | undefined {
  const v = edit[field]
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new InvalidInputError(`expected a count >= 0, got ${describeValue(v)}`, {
      field: `context_management.applied_edits.${k}.${field}`,
    })
  return v
}

/**
 * What the provider did, from its response: Anthropic's `context_management.applied_edits`
 * and `compaction` content blocks (Messages API), OpenAI's `compaction` output items
 * (Responses API, `/responses/compact`). A response with neither reports nothing done.
 * A malformed one is refused with `InvalidInputError` naming the field.
 */
export function readContextManagement(response: unknown): ProviderContextReport {
  if (!isObject(response))
    throw new InvalidInputError('expected a provider response object', { field: 'response' })
  if (Array.isArray(response.output)) {
    const compactions: Compaction[] = []
    response.output.forEach((item, k) => {
      if (!isObject(item) || item.type !== 'compaction') return
      if (typeof item.encrypted_content !== 'string')
        throw new InvalidInputError('a compaction item has no encrypted_content', {
          field: `output.${k}.encrypted_content`,
        })
      compactions.push({ ...(typeof item.id === 'string' && { id: item.id }), encrypted: true })
    })
    return { provider: 'openai', applied: [], compactions }
  }
  const applied: AppliedEdit[] = []
  const cm = response.context_management
  if (cm !== undefined && cm !== null) {
    if (!isObject(cm) || !Array.isArray(cm.applied_edits))
      throw new InvalidInputError('expected { applied_edits: [...] }', {
        field: 'context_management',
      })
    cm.applied_edits.forEach((edit, k) => {
      if (!isObject(edit) || typeof edit.type !== 'string')
        throw new InvalidInputError('an applied edit has no type', {
          field: `context_management.applied_edits.${k}.type`,
        })
      const out: AppliedEdit = { type: edit.type }
      const tokens = tokenField(edit, k, 'cleared_input_tokens')
      const uses = tokenField(edit, k, 'cleared_tool_uses')
      const turns = tokenField(edit, k, 'cleared_thinking_turns')
      if (tokens !== undefined) out.clearedInputTokens = tokens
      if (uses !== undefined) out.clearedToolUses = uses
      if (turns !== undefined) out.clearedThinkingTurns = turns
      applied.push(out)
    })
  }
  const compactions: Compaction[] = []
  if (Array.isArray(response.content)) {
    response.content.forEach((block, k) => {
      if (!isObject(block) || block.type !== 'compaction') return
      if (block.content !== null && typeof block.content !== 'string')
        throw new InvalidInputError('a compaction block has no text content', {
          field: `content.${k}.content`,
        })
      compactions.push({
        summary: block.content as string | null,
        encrypted: typeof block.encrypted_content === 'string',
      })
    })
  }
  return { provider: 'anthropic', applied, compactions }
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

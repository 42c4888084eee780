import { InvalidInputError } from '../../errors.js'
import { describeValue } from '../../options-check.js'
import { tokenFigure, usageObject } from '../figures.js'
import type {
  FunctionTool,
  NativeContext,
  OverflowRule,
  ProviderContextReport,
  RequestLimits,
  ToolRules,
} from '../types.js'

/**
 * Anthropic's vision guide: up to 100 images in one API request (600 on models with a
 * 1M-token window; 100 is what every model takes), and 32 MB for a whole Messages request
 * on the standard endpoints, which base64 images and PDFs reach first. PDFs: 100 pages per
 * request (Anthropic's PDF support guide, "Maximum pages per request"; Amazon Bedrock's
 * "API restrictions" page says the same of Claude), counted in the PDFs sent inline.
 */
export const requestLimits: RequestLimits = {
  images: 100,
  inlineBytes: 32 * 1000 * 1000,
  pdfPages: 100,
}

/** "prompt is too long: M tokens > N maximum"; "input length and `max_tokens` exceed context limit: M + C > N". */
export const overflow: OverflowRule = {
  read(text) {
    const prompt = /prompt is too long:\s*(\d+) tokens\s*>\s*(\d+)/i.exec(text)
    if (prompt)
      return { actual: Number(prompt[1]), limit: Number(prompt[2]), prompt: Number(prompt[1]) }
    const withReply = /exceed context limit:\s*(\d+)\s*\+\s*(\d+)\s*>\s*(\d+)/i.exec(text)
    if (withReply)
      return {
        actual: Number(withReply[1]) + Number(withReply[2]),
        limit: Number(withReply[3]),
        prompt: Number(withReply[1]),
      }
    return undefined
  },
}

/** `usage.input_tokens` is the uncached part: cache reads and writes are added. */
export function promptTokens(response: Record<string, unknown>): number | undefined {
  const usage = usageObject(response)
  if (!('input_tokens' in usage)) return undefined
  const base = tokenFigure(usage.input_tokens)
  if (base === undefined) return undefined
  const read = tokenFigure(usage.cache_read_input_tokens) ?? 0
  const write = tokenFigure(usage.cache_creation_input_tokens) ?? 0
  return base + read + write
}

/**
 * Tokens Anthropic adds for its own tools beyond their JSON, as it publishes them: the bash
 * tool 245, the text editor 700, computer use 735 per definition plus up to 499 of system prompt.
 */
export const tools: ToolRules = {
  overhead: { bash: 245, text_editor: 700, computer: 735 + 499 },
}

export const ANTHROPIC_CONTEXT_BETA = 'context-management-2025-06-27'
export const ANTHROPIC_COMPACT_BETA = 'compact-2026-01-12'

/** `context_management.edits` (beta): clear thinking first, as it requires, then tool uses, then compaction. */
export const native: NativeContext = {
  runs: ['clearThinking', 'clearToolResults', 'compact'],
  request(parts) {
    const edits: Record<string, unknown>[] = []
    if (parts.clearThinking)
      edits.push({ type: 'clear_thinking_20251015', keep: parts.clearThinking.keep })
    const t = parts.clearToolResults
    if (t)
      edits.push({
        type: 'clear_tool_uses_20250919',
        trigger: { type: 'input_tokens', value: t.trigger },
        keep: { type: 'tool_uses', value: t.keep },
        ...(t.clearAtLeast !== undefined && {
          clear_at_least: { type: 'input_tokens', value: t.clearAtLeast },
        }),
        ...(t.excludeTools && { exclude_tools: t.excludeTools }),
        ...(t.clearInputs !== undefined && { clear_tool_inputs: t.clearInputs }),
      })
    const c = parts.compact
    if (c)
      edits.push({
        type: 'compact_20260112',
        trigger: { type: 'input_tokens', value: c.trigger },
        ...(c.instructions !== undefined && { instructions: c.instructions }),
        ...(c.pauseAfterCompaction !== undefined && {
          pause_after_compaction: c.pauseAfterCompaction,
        }),
      })
    if (edits.length === 0) return { body: {}, betas: [] }
    const betas: string[] = []
    if (parts.clearThinking || parts.clearToolResults) betas.push(ANTHROPIC_CONTEXT_BETA)
    if (parts.compact) betas.push(ANTHROPIC_COMPACT_BETA)
    return { body: { context_management: { edits } }, betas }
  },
  read(response) {
    // A Messages response has no `output` list (that is a Responses body).
    if (Array.isArray(response.output)) return undefined
    const applied: ProviderContextReport['applied'] = []
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
        const out: ProviderContextReport['applied'][number] = { type: edit.type }
        const tokens = tokenField(edit, k, 'cleared_input_tokens')
        const uses = tokenField(edit, k, 'cleared_tool_uses')
        const turns = tokenField(edit, k, 'cleared_thinking_turns')
        if (tokens !== undefined) out.clearedInputTokens = tokens
        if (uses !== undefined) out.clearedToolUses = uses
        if (turns !== undefined) out.clearedThinkingTurns = turns
        applied.push(out)
      })
    }
    const compactions: ProviderContextReport['compactions'] = []
    if (Array.isArray(response.content)) {
      response.content.forEach((block, k) => {
        if (!isObject(block) || block.type !== 'compaction') return
        if (block.content !== null && typeof block.content !== 'string')
          throw new InvalidInputError('a compaction block has no text content', {
            field: `content.${k}.content`,
          })
        compactions.push({
          summary: block.content,
          encrypted: typeof block.encrypted_content === 'string',
        })
      })
    }
    return { provider: 'anthropic', applied, compactions }
  },
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

/** A function tool as the Messages API takes it: its parameters as `input_schema`. */
export function defineTool({
  name,
  description,
  parameters,
}: FunctionTool): Record<string, unknown> {
  return { name, description, input_schema: parameters }
}

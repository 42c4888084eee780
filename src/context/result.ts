import type { FactReport } from '../messages/fact.js'
import type { Message } from '../messages/message.js'
import type { ProblemCode } from '../providers/problems.js'
import type { AllListed, WireFormat } from '../providers/provider.js'
import type { ProviderContextReport } from '../providers/types.js'
import type { ChangeReason } from '../strategies/types.js'

export type Fate = 'kept' | 'changed' | 'dropped' | 'summarized' | 'invalid'

export interface MessageFate {
  fate: Fate
  /** Tokens of the input message (as counted before any change). */
  tokens: number
  /** Where it is in the output, when it is there. */
  position?: number
  /** Why it changed or went: a repair problem, a change reason, `budget`, `strategy`. */
  reason?: ProblemCode | ChangeReason | 'budget' | 'strategy' | 'placeholder' | 'summary' | 'ledger'
}

export interface FitResult {
  /** What to send: fresh objects, safe to modify. */
  messages: Message[]
  /** Input indices present in the output (as is or changed), ascending. */
  kept: number[]
  /** Input indices absent from the output, ascending (computed when first read). */
  dropped: number[]
  /** Messages the strategy wrote, with the input indices each stands for. */
  inserted: {
    position: number
    message: Message
    replaces: number[]
    reason: 'placeholder' | 'summary' | 'ledger'
    /** For a summary: the facts of the replaced messages it keeps, and those it had to re-insert. */
    facts?: FactReport
  }[]
  /** Input messages sent in a changed form. */
  changed: { index: number; position: number; reason: ChangeReason | ProblemCode }[]
  tokens: { messages: number; tools: number; priming: number; reserve: number; total: number }
  /** The budget the request was fitted to, or null when unbounded. */
  budget: number | null
  strategy: string
  /** One entry per input message: what happened to it and why (computed when first read). */
  fates: MessageFate[]
  /** What the fit assumed and the caller should know (a model not in the table, fitted by its provider's most conservative figures). */
  notes?: string[]
  /** Set by `withContextManagement`: which parts of a policy the provider ran, and what it reported. */
  contextManagement?: ContextManagementReport
}

/**
 * Where requests go. `anthropic`: the Messages API (all three natively, beta);
 * `openai-responses`: compaction natively, the rest on the client; `openai-chat`,
 * `gemini`, `client`: everything on the client.
 */
export type ContextTarget = 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini' | 'client'
/** Each provider API's wire format is a target (`contextManagement` checks the same list). */
export type ContextTargetsListed = AllListed<WireFormat, ContextTarget>

export type Where = 'provider' | 'client'

/** The plan and what the provider reported: attach to a `FitResult` as `contextManagement`. */
export interface ContextManagementReport {
  target: ContextTarget
  /** Where each part of the policy runs. */
  where: { clearToolResults?: Where; clearThinking?: Where; compact?: Where }
  /** The body fields and headers the request carried. */
  request: Record<string, unknown>
  headers: Record<string, string>
  provider?: ProviderContextReport
}

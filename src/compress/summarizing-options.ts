/** What `summarizing` takes (its options, checked) and what it reports (its events, in words). */

import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { describeValue, requireOptions } from '../options-check.js'
import { isJson } from '../providers/codec-kit.js'
import { extractiveSummarizer } from './extractive.js'
import type { Summarizer } from './summarizer.js'

export type CompressionEvent =
  | {
      type: 'compressed'
      /** Tokens of the messages served before this compression. */
      before: number
      /** Tokens of the messages served after it. */
      after: number
      /** How many history messages the summary stands for. */
      replaced: number
      /** Positions `[from, to)` it stands for. */
      range: [number, number]
      /** It folded in an earlier summary (a running summary). */
      running: boolean
      /** The fact ledger's account: facts found, kept by the summarizer, re-inserted, lost. */
      facts?: { total: number; kept: number; reinserted: number; lost: number }
    }
  | { type: 'fallback'; reason: string }
  | { type: 'terminated'; tokens: number; trigger: number }

export interface SummarizingOptions {
  /** Default: the offline extractive summarizer. */
  summarizer?: Summarizer
  /** A fraction (0, 1] of the budget (the model's window), or `{ tokens }`. Below it nothing happens. Default 0.8. */
  trigger?: number | { tokens: number }
  /** The newest units never summarized. Default 2. The first message is never summarized either. */
  leaveLastN?: number
  /**
   * `compress` summarizes; `terminate` trims nothing and reports a `terminated` event (the
   * full view while it fits the budget); `custom` hands the old messages to `compress`.
   */
  mode?: 'compress' | 'terminate' | 'custom'
  /** For `custom`: replacement messages for the old ones, or `ok: false` to fall back. */
  compress?: (
    messages: Message[],
  ) => { ok: boolean; messages: Message[] } | Promise<{ ok: boolean; messages: Message[] }>
  /** Serve a valid view at once and swap the summary in when it is ready. */
  background?: boolean
  /** Role of the summary message. Default `user` (several providers refuse a system message mid-list). */
  role?: 'user' | 'system' | 'assistant'
  /** Tokens the summary may take. Default: a quarter of what the messages may use. */
  maxSummaryTokens?: number
  /**
   * The fact ledger (default on): identifiers, emails, links, paths, dates, amounts and tool
   * outcomes of the replaced messages that the summary lost are appended to it, in a facts
   * section, as far as the budget allows. `false` sends the summarizer's text alone.
   */
  facts?: boolean
  /** Cancels summarizer calls (a shutting-down agent). */
  signal?: AbortSignal
  onEvent?: (event: CompressionEvent) => void
  /** Log events to stderr. */
  verbose?: boolean
}

/** Every option `summarizing` reads. */
export const SUMMARIZING_OPTIONS = [
  'summarizer',
  'trigger',
  'leaveLastN',
  'mode',
  'compress',
  'background',
  'role',
  'maxSummaryTokens',
  'facts',
  'signal',
  'onEvent',
  'verbose',
] as const

/** Options a summarizing strategy takes, checked when it is made (a wrong one is an `InvalidOptionError`). */
function checkSummarizingOptions(options: SummarizingOptions): void {
  const o = options as Record<string, unknown>
  const fn = (key: string) => {
    if (o[key] !== undefined && typeof o[key] !== 'function')
      throw new InvalidOptionError(key, `expected a function, got ${describeValue(o[key])}`)
  }
  const flag = (key: string) => {
    if (o[key] !== undefined && typeof o[key] !== 'boolean')
      throw new InvalidOptionError(key, `expected true or false, got ${describeValue(o[key])}`)
  }
  const s = o.summarizer
  if (s !== undefined && (!isJson(s) || typeof s.summarize !== 'function'))
    throw new InvalidOptionError(
      'summarizer',
      `expected a summarizer (an object with summarize(), such as extractiveSummarizer()), got ${describeValue(s)}`,
    )
  fn('onEvent')
  fn('compress')
  flag('background')
  flag('verbose')
  flag('facts')
  const max = o.maxSummaryTokens
  if (max !== undefined && !(typeof max === 'number' && Number.isFinite(max) && max >= 1))
    throw new InvalidOptionError(
      'maxSummaryTokens',
      `expected a number >= 1, got ${describeValue(max)}`,
    )
  const signal = o.signal
  if (signal !== undefined && (!isJson(signal) || typeof signal.aborted !== 'boolean'))
    throw new InvalidOptionError('signal', 'expected an AbortSignal')
}

/** One line saying what a compression event did (what `verbose` prints). */
export function describeCompression(e: CompressionEvent): string {
  switch (e.type) {
    case 'compressed':
      return `compressed ${e.replaced} messages (${e.range[0]}-${e.range[1] - 1})${e.running ? ' into the running summary' : ''}: ${e.before} -> ${e.after} tokens${e.facts ? `; facts: ${e.facts.kept + e.facts.reinserted} of ${e.facts.total} kept (${e.facts.reinserted} re-inserted, ${e.facts.lost} lost)` : ''}`
    case 'fallback':
      return `compression fell back to the token-limited view: ${e.reason}`
    case 'terminated':
      return `context full: ${e.tokens} tokens over the trigger of ${e.trigger}`
  }
}

/**
 * `summarizing`'s options checked (a wrong one is an `InvalidOptionError`) and settled, each
 * default given: what the strategy reads of them.
 */
export function summarizingSettings(options: SummarizingOptions) {
  requireOptions(options, 'summarizing', SUMMARIZING_OPTIONS)
  const {
    summarizer = extractiveSummarizer(),
    trigger = 0.8,
    leaveLastN = 2,
    mode = 'compress',
    background = false,
    role = 'user',
  } = options
  if (typeof trigger === 'number' ? !(trigger > 0 && trigger <= 1) : !(trigger?.tokens > 0)) {
    throw new InvalidOptionError(
      'trigger',
      'expected a fraction in (0, 1] or { tokens: N } with N > 0',
    )
  }
  if (!Number.isInteger(leaveLastN) || leaveLastN < 0) {
    throw new InvalidOptionError(
      'leaveLastN',
      `expected a whole number >= 0, got ${describeValue(leaveLastN)}`,
    )
  }
  if (mode !== 'compress' && mode !== 'terminate' && mode !== 'custom') {
    throw new InvalidOptionError(
      'mode',
      `expected compress, terminate or custom, got ${describeValue(mode)}`,
    )
  }
  if (mode === 'custom' && typeof options.compress !== 'function') {
    throw new InvalidOptionError('compress', "mode 'custom' needs a compress function")
  }
  if (!['user', 'system', 'assistant'].includes(role)) {
    throw new InvalidOptionError('role', `expected user, system or assistant, got ${role}`)
  }
  checkSummarizingOptions(options)
  return { summarizer, trigger, leaveLastN, mode, background, role }
}

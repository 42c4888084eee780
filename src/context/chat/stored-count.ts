import { supersede } from '../../compress/summary-ledger.js'
import { messageIssue } from '../../messages/check.js'
import type { Message } from '../../messages/message.js'
import type { SummaryEntry } from '../../strategies/types.js'
import type { TokenCounter } from '../../tokens/counter.js'
import { frozenCopy } from '../copy.js'

/**
 * Below this many tokens per 6 characters of text a stored count is not believed: prose
 * and code count 3-5 characters a token, so only text of long repeated runs is recounted
 * for nothing, and a count written wrong (0, negative, a fraction of the truth) is never used.
 */
const MAX_CHARS_PER_TOKEN = 6
/** Above this (4 tokens a character, plus room for images and files), a count is not believed either. */
const MAX_TOKENS_PER_CHAR = 4
const MAX_TOKENS_PER_PART = 20_000

/**
 * A count another process stored for `message`, when it is by this counter and plausible
 * for the message's size; otherwise undefined, and the message is counted again here.
 */
export function storedCount(
  entry: { message: Message; tokens?: unknown; counter?: unknown },
  counter: TokenCounter,
): number | undefined {
  const t = entry.tokens
  if (entry.counter !== counter.name || typeof t !== 'number' || !Number.isSafeInteger(t))
    return undefined
  const { chars, parts } = size(entry.message)
  const least = Math.max(1, Math.ceil(chars / MAX_CHARS_PER_TOKEN))
  const most = MAX_TOKENS_PER_CHAR * chars + MAX_TOKENS_PER_PART * (parts + 1)
  return t >= least && t <= most ? t : undefined
}

/** A stored summary with its tokens counted here: a few messages, so never trusted from outside. */
export function recountSummary(entry: SummaryEntry, counter: TokenCounter): SummaryEntry {
  return { ...entry, tokens: counter.countMessage(entry.message) }
}

/** Summaries read back from a store or a saved state that may be served, recounted and frozen. */
export function servedSummaries(
  entries: readonly SummaryEntry[],
  counter: TokenCounter,
): SummaryEntry[] {
  return supersede(
    [],
    entries
      .filter((e) => servableSummary(e.message))
      .map((e) => frozenCopy(recountSummary(e, counter))),
  )
}

/**
 * A summary read back from a saved state or a store is served only if it is what a summary
 * is: a valid message of plain content, with no tool call (which would need its result) and
 * not a tool result (which would need its call). Anything else is left out, and the history
 * it stood for is fitted as if it had never been summarized.
 */
function servableSummary(m: unknown): boolean {
  if (messageIssue(m) !== undefined) return false
  const message = m as Message
  if (message.role === 'tool') return false
  return !(message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0)
}

function size(m: Message): { chars: number; parts: number } {
  let chars = m.role.length + (m.name?.length ?? 0)
  let parts = 0
  if (typeof m.content === 'string') chars += m.content.length
  else
    for (const p of m.content ?? []) {
      if (p.type === 'text') chars += p.text.length
      else parts++
    }
  if (m.role === 'assistant') {
    chars += (m.thought?.length ?? 0) + (m.refusal?.length ?? 0)
    for (const c of m.toolCalls ?? []) chars += c.name.length + c.arguments.length
  }
  if (m.role === 'tool') chars += m.toolName?.length ?? 0
  return { chars, parts }
}

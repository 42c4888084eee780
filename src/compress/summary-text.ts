/** A summary's text: its header's notes, the facts it carries, what is sent beside it, a custom compressor's output checked. */
import { messageIssue } from '../messages/check.js'
import type { Fact } from '../messages/fact.js'
import { factsOfText, mergeFacts } from '../messages/facts.js'
import { contentText, type Message, messageText } from '../messages/message.js'
import type { SummaryEntry, View } from '../strategies/types.js'

/** Tokens of the summary's header line and message framing, kept out of the summarizer's share. */
export const HEADER_TOKENS = 32
/** Slack for the few tokens joining the facts section to the summary may add. */
export const FACTS_MARGIN = 4

/** The facts a summary stands for: as recorded when it was made, else read from its text. */
export function carriedFacts(entries: readonly SummaryEntry[]): Fact[] {
  let out: Fact[] = []
  for (const e of entries)
    out = mergeFacts(out, e.facts?.all ?? factsOfText(contentText(e.message.content)))
  return out
}

/** What is sent beside a summary that cuts before unit `cut`: the first unit and the newest units. */
export function sentBeside(view: View, cut: number): string {
  const parts: string[] = []
  const { messages } = view
  for (let i = view.start(0); i < view.end(0); i++) parts.push(messageText(view.message(i)))
  const from = cut < view.unitCount ? view.start(cut) : messages.length
  for (let i = from; i < messages.length; i++) parts.push(messageText(view.message(i)))
  return parts.join('\n')
}

/** The text of a summary, without the header saying what it stands for. */
export function summaryText(entries: readonly SummaryEntry[]): string {
  return entries
    .map((e) => contentText(e.message.content).replace(/^\[Summary of messages [^\n]*\]\n/, ''))
    .join('\n')
}

/** What a custom compressor returned, checked like any input: a clear error names the problem. */
export function checkCustom(messages: unknown): Message[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new Error('the custom compressor returned no messages (expected a non-empty list)')
  }
  messages.forEach((m, k) => {
    const issue = messageIssue(m)
    if (issue) {
      throw new Error(
        `the custom compressor returned an invalid message ${k}${issue.path.length ? ` (field ${issue.path.join('.')})` : ''}: ${issue.message}`,
      )
    }
  })
  return structuredClone(messages as Message[])
}

/** `; message 5 sent as it is` for the pinned messages of a summary's range (at most eight named). */
export function pinnedNote(numbers: readonly number[]): string {
  if (numbers.length === 0) return ''
  const named = numbers.slice(0, 8).join(', ')
  const more = numbers.length > 8 ? ` and ${numbers.length - 8} more` : ''
  return numbers.length === 1
    ? `; message ${named} sent as it is`
    : `; messages ${named}${more} sent as they are`
}

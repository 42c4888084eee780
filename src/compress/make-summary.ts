/** Making one summary: the summarizer (or a custom compressor) asked, its facts kept, the result checked. */
import { redactCredentials } from '../messages/credentials.js'
import type { Fact, FactReport } from '../messages/fact.js'
import { checkFacts, fitFacts, renderFacts } from '../messages/fact-list.js'
import { mergeFacts } from '../messages/facts.js'
import type { Message } from '../messages/message.js'
import { quotableFactsOf, withoutCredentials } from '../messages/quoted-facts.js'
import { errorsOf, validate } from '../providers/validate.js'
import { rangeNote } from '../recall/notes.js'
import { pinnedSet } from '../strategies/pins.js'
import type { SummaryEntry, SummaryLedger, View } from '../strategies/types.js'
import { errorText, type Summarizer } from './summarizer.js'
import type { CompressionEvent, SummarizingOptions } from './summarizing-options.js'
import {
  carriedFacts,
  checkCustom,
  FACTS_MARGIN,
  HEADER_TOKENS,
  pinnedNote,
  sentBeside,
  summaryText,
} from './summary-text.js'
import { anchorOf, type Current, messagesOf, served } from './summary-view.js'

/** What making a summary reads of its strategy: its options, as settled, and where its events go. */
export interface SummaryMaker {
  options: SummarizingOptions
  mode: 'compress' | 'terminate' | 'custom'
  summarizer: Summarizer
  role: 'user' | 'system' | 'assistant'
  emit: (e: CompressionEvent) => void
}

/** Summarizes `[first unit end, to)`: the previous summary plus the messages after it. */
export async function makeSummary(
  maker: SummaryMaker,
  view: View,
  ledger: SummaryLedger,
  current: Current | undefined,
  cut: number,
): Promise<Current | undefined> {
  const { options, mode, summarizer, role, emit } = maker
  const { counter } = view
  const from = view.end(0)
  const to = view.end(cut - 1)
  const start = current ? current.to : from
  // Pinned messages are sent as they are beside the summary (strategies/pins.ts): not in it.
  const pinned = pinnedSet(view)
  const fresh = view.messages.slice(start, to).filter((_, k) => !pinned.has(start + k))
  // The pinned messages of the whole range (the previous summary's part included): sent apart.
  const pinnedIn = [...pinned].filter((i) => i >= from && i < to).sort((a, b) => a - b)
  const standsFor = to - from - pinnedIn.length
  const replacedTokens = view.rangeTokens(1, cut)
  // Room for the summary message: what the first unit and the newest units leave of the budget.
  const room = view.available - view.unitSize(0) - view.rangeTokens(cut, view.unitCount)
  const ledgerOn = options.facts !== false && mode !== 'custom'
  const facts = ledgerOn
    ? mergeFacts(current ? carriedFacts(current.entries) : [], quotableFactsOf(fresh))
    : []
  // Part of the room is kept for the facts the summary may lose (at most half of it).
  const reserve = facts.length
    ? Math.min(counter.countText(renderFacts(facts)), Math.floor(room / 2))
    : 0
  const cap = options.maxSummaryTokens ?? Math.max(64, Math.floor(view.available / 4))
  const maxTokens = Math.max(16, Math.min(cap, replacedTokens - 32, room - HEADER_TOKENS - reserve))
  let messages: Message[]
  let factLedger: { all: Fact[]; report: FactReport } | undefined
  try {
    if (mode === 'custom') {
      const input = [...(current?.entries.map((e) => e.message) ?? []), ...fresh]
      const out = await options.compress?.(structuredClone(input))
      if (!out?.ok) throw new Error('the custom compressor declined')
      messages = checkCustom(out.messages)
    } else {
      const text = (
        await summarizer.summarize({
          // The summarizer reads no credential, so its summary cannot repeat one (a summary
          // cut a credential's context away from it before it could be recognised).
          messages: withoutCredentials(fresh),
          previousSummary: current ? summaryText(current.entries) : undefined,
          maxTokens,
          signal: options.signal,
        })
      ).trim()
      if (!text) throw new Error(`the summarizer ${summarizer.name} returned an empty summary`)
      // Messages named by their index in the caller's history, as `kept` and `fates` name them.
      const place = (i: number) => view.origin?.[i] ?? i
      // It counts only what it stands for: a pinned message of its range is sent as it is,
      // and named so. With recall offered, it says those can be asked back by number.
      const header = `[Summary of messages ${place(from)} to ${place(to - 1)} of the conversation (${standsFor} messages${pinnedNote(pinnedIn.map(place))}), standing in for them${rangeNote(view)}]`
      // The summarizer may repeat a credential it read: derived text never carries one.
      let content = `${header}\n${redactCredentials(text)}`
      if (facts.length) {
        const { present, missing } = checkFacts(facts, `${content}\n${sentBeside(view, cut)}`)
        const used = counter.countMessage({ role, content })
        // Within the budget, and the summary stays shorter than what it replaces.
        const left = Math.min(room, replacedTokens - 1) - used - FACTS_MARGIN
        const section = fitFacts(missing, left, counter)
        if (section.text) content += `\n\n${section.text}`
        factLedger = {
          all: facts,
          report: {
            total: facts.length,
            kept: present.length,
            reinserted: section.included,
            lost: section.left,
            rate: (present.length + section.included.length) / facts.length,
          },
        }
      }
      messages = [{ role, content }]
    }
  } catch (e) {
    // A summarizer's error may quote its key or a URL with a password (a 401's body): the
    // reason, shown in logs and by the CLI, never carries one.
    emit({ type: 'fallback', reason: redactCredentials(errorText(e)) })
    return undefined
  }
  const anchor = anchorOf(view.message(to - 1))
  const entries: SummaryEntry[] = messages.map((message) => ({
    replaces: [from, to],
    message,
    tokens: counter.countMessage(message),
    anchor,
    ...(factLedger && { facts: factLedger }),
  }))
  const made: Current = {
    from,
    to,
    unit: cut,
    entries,
    tokens: entries.reduce((n, e) => n + (e.tokens ?? 0), 0),
  }
  if (made.tokens >= replacedTokens) {
    emit({
      type: 'fallback',
      reason: `the summary (${made.tokens} tokens) is not shorter than what it replaces (${replacedTokens})`,
    })
    return undefined
  }
  const problems = errorsOf(validate(messagesOf(view, made), { provider: view.provider }))
  if (problems.length) {
    emit({
      type: 'fallback',
      reason: `the compressed list is invalid for ${view.provider}: ${problems[0]?.message}`,
    })
    return undefined
  }
  ledger.add(entries)
  const before = current ? served(view, current) : view.rangeTokens(0, view.unitCount)
  emit({
    type: 'compressed',
    before,
    after: served(view, made),
    replaced: standsFor,
    range: [from, to],
    running: current !== undefined,
    ...(factLedger && {
      facts: {
        total: factLedger.report.total,
        kept: factLedger.report.kept,
        reinserted: factLedger.report.reinserted.length,
        lost: factLedger.report.lost.length,
      },
    }),
  })
  return made
}

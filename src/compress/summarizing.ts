import { InvalidOptionError } from '../errors.js'
import { redactCredentials } from '../messages/credentials.js'
import type { Fact, FactReport } from '../messages/fact.js'
import { checkFacts, fitFacts, mergeFacts, renderFacts } from '../messages/facts.js'
import type { Message } from '../messages/message.js'
import { quotableFactsOf, withoutCredentials } from '../messages/quoted-facts.js'
import { describeValue, requireOptions } from '../options-check.js'
import { errorsOf, validate } from '../providers/validate.js'
import { rangeNote } from '../recall/notes.js'
import { pinnedSet } from '../strategies/pins.js'
import { tokenLimited } from '../strategies/token-limited.js'
import {
  type PlanItem,
  type Strategy,
  type SummaryEntry,
  type SummaryLedger,
  unitItems,
  type View,
} from '../strategies/types.js'
import { extractiveSummarizer } from './extractive.js'
import { errorText } from './summarizer.js'
import {
  type CompressionEvent,
  checkSummarizingOptions,
  describeCompression,
  SUMMARIZING_OPTIONS,
  type SummarizingOptions,
} from './summarizing-options.js'
import { summaryLedger } from './summary-ledger.js'
import {
  carriedFacts,
  checkCustom,
  FACTS_MARGIN,
  HEADER_TOKENS,
  pinnedNote,
  sentBeside,
  summaryText,
} from './summary-text.js'
import { anchorOf, type Current, latest, messagesOf, planOf, served } from './summary-view.js'

export {
  type CompressionEvent,
  describeCompression,
  SUMMARIZING_OPTIONS,
  type SummarizingOptions,
} from './summarizing-options.js'
export { summaryLedger, supersede } from './summary-ledger.js'
export { anchorOf } from './summary-view.js'

/** The summarizing strategy, plus a way to wait for a background compression. */
export interface SummarizingStrategy extends Strategy<'summarizing', SummarizingOptions> {
  /** Resolves when no compression is running (background mode, or calls still in flight). */
  settled(): Promise<void>
}

/**
 * Summarizes old history once it passes a trigger (AutoGen CompressibleAgent), without its
 * defects: tool calls stay paired, the caller's history is never rewritten (summaries are
 * kept beside it, in the view's ledger), and a failed summary falls back to the
 * token-limited view with an event instead of failing silently. The trigger is measured
 * on what would be sent with the current summary, so a summary is made again only when
 * the compressed conversation grows past it; that later summary folds the previous one
 * in with the newer messages (a running summary) instead of reading the whole history.
 */
export function summarizing(options: SummarizingOptions = {}): SummarizingStrategy {
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
  const emit = (e: CompressionEvent) => {
    if (options.verbose) console.error(`context-window: ${describeCompression(e)}`)
    options.onEvent?.(e)
  }
  /** Summaries of views that come without a ledger, one ledger per history (never shared). */
  const owned = new WeakMap<object, SummaryLedger>()
  const ledgerOf = (view: View): SummaryLedger => {
    if (view.summaries) return view.summaries
    let ledger = owned.get(view.messages)
    if (!ledger) {
      ledger = summaryLedger()
      owned.set(view.messages, ledger)
    }
    return ledger
  }
  /** One compression per ledger (per conversation) at a time. */
  const jobs = new WeakMap<SummaryLedger, { to: number; done: Promise<Current | undefined> }>()
  const running = new Set<Promise<unknown>>()
  const fallback = tokenLimited()

  /** Summarizes `[first unit end, to)`: the previous summary plus the messages after it. */
  async function compress(
    view: View,
    ledger: SummaryLedger,
    current: Current | undefined,
    cut: number,
  ): Promise<Current | undefined> {
    const { counter } = view
    const from = view.end(0)
    const to = view.end(cut - 1)
    const start = current ? current.to : from
    // Pinned messages are sent as they are beside the summary (strategies/pins.ts): not in it.
    const pinned = pinnedSet(view)
    const fresh = (view.messages.slice(start, to) as Message[]).filter(
      (_, k) => !pinned.has(start + k),
    )
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
    const maxTokens = Math.max(
      16,
      Math.min(cap, replacedTokens - 32, room - HEADER_TOKENS - reserve),
    )
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
          const used = counter.countMessage({ role, content } as Message)
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
        messages = [{ role, content } as Message]
      }
    } catch (e) {
      // A summarizer's error may quote its key or a URL with a password (a 401's body): the
      // reason, shown in logs and by the CLI, never carries one.
      emit({ type: 'fallback', reason: redactCredentials(errorText(e)) })
      return undefined
    }
    const anchor = anchorOf(view.message(to - 1))
    const entries: SummaryEntry[] = messages.map((message) => ({
      replaces: [from, to] as [number, number],
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

  function start(
    view: View,
    ledger: SummaryLedger,
    current: Current | undefined,
    cut: number,
  ): Promise<Current | undefined> {
    const to = view.end(cut - 1)
    const done = compress(view, ledger, current, cut).finally(() => {
      if (jobs.get(ledger)?.done === done) jobs.delete(ledger)
      running.delete(done)
    })
    jobs.set(ledger, { to, done })
    running.add(done)
    return done
  }

  /** The summary (if any) plus the newest units, when that fits; else the token-limited view. */
  function serve(view: View, current: Current | undefined): PlanItem[] | Promise<PlanItem[]> {
    if (!current) {
      const total = view.rangeTokens(0, view.unitCount)
      return total <= view.available ? unitItems(view, 0, view.unitCount) : fallback.select(view)
    }
    if (served(view, current) <= view.available) return planOf(view, current)
    return fallback.select(view)
  }

  return {
    name: 'summarizing',
    options,
    budgetAware: true,
    async: true,
    keepsSummaries: true,
    settled: async () => {
      while (running.size) await Promise.allSettled([...running])
    },
    select,
  }

  async function select(view: View): Promise<PlanItem[]> {
    const n = view.unitCount
    if (n === 0) return []
    const ledger = ledgerOf(view)
    const current = latest(view, ledger)
    const tokens = current ? served(view, current) : view.rangeTokens(0, n)
    const { tools, priming, reserve } = view.overhead
    const sent = tokens + tools + priming + reserve
    const limit = typeof trigger === 'number' ? Math.floor(trigger * view.budget) : trigger.tokens
    if (sent <= limit && tokens <= view.available) return serve(view, current)
    if (mode === 'terminate') {
      emit({ type: 'terminated', tokens: sent, trigger: limit })
      return serve(view, current)
    }
    // Never summarized: the first unit (system preamble or first prompt) and the newest leaveLastN.
    const cut = Math.max(1, n - leaveLastN)
    const to = view.end(cut - 1)
    if (to <= (current?.to ?? view.end(0))) {
      if (tokens > view.available)
        emit({ type: 'fallback', reason: 'nothing old enough to summarize' })
      return serve(view, current)
    }
    // Summarize again only when it gains room: the messages a new summary would fold in
    // hold at least a tenth of the room. Less, and the summary would be made again on every
    // call (facts that fill the room stay in it); the current one is served meanwhile.
    if (current && view.rangeTokens(current.unit, cut) < Math.ceil(view.available * MIN_GAIN))
      return serve(view, current)
    const job = jobs.get(ledger)
    if (background) {
      if (!job) start(view, ledger, current, cut)
      return serve(view, current)
    }
    if (job) {
      // Another call is summarizing this conversation: wait for it instead of doing it twice,
      // then decide again (its summary may be enough, or another call may have started one).
      const made = await job.done
      if (job.to === to) return serve(view, made ?? current)
      return select(view)
    }
    const made = await start(view, ledger, current, cut)
    if (made && served(view, made) > view.available) {
      emit({
        type: 'fallback',
        reason: `the summary and the newest ${leaveLastN} units need ${served(view, made)} tokens, more than the ${view.available} available`,
      })
    }
    return serve(view, made ?? current)
  }
}

/** A new summary is made only when what it would fold in holds this share of the room. */
const MIN_GAIN = 0.1

import { InvalidOptionError } from '../errors.js'
import { messageIssue } from '../messages/check.js'
import { redactCredentials } from '../messages/credentials.js'
import type { Fact, FactReport } from '../messages/fact.js'
import { checkFacts, factsOfText, fitFacts, mergeFacts, renderFacts } from '../messages/facts.js'
import { contentText, type Message, messageText } from '../messages/message.js'
import { quotableFactsOf, withoutCredentials } from '../messages/quoted-facts.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
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
import { errorText, type Summarizer } from './summarizer.js'

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

/** The summarizing strategy, plus a way to wait for a background compression. */
export interface SummarizingStrategy extends Strategy<'summarizing', SummarizingOptions> {
  /** Resolves when no compression is running (background mode, or calls still in flight). */
  settled(): Promise<void>
}

/** The newest summary that applies to a view. */
interface Current {
  from: number
  to: number
  /** Index of the first unit after the summarized range (`units.length` when none). */
  unit: number
  entries: SummaryEntry[]
  tokens: number
}

/**
 * Summaries kept in memory, for one conversation: `fitAsync` keeps one per history it is
 * given; pass your own (`summaries: summaryLedger()`) to keep them across calls that rebuild
 * the history from scratch. A new summary supersedes the older ones it folds in, so the
 * ledger holds one summary (with its facts) however long the conversation.
 */
export function summaryLedger(initial: readonly SummaryEntry[] = []): SummaryLedger {
  requireArgument(
    Array.isArray(initial) && initial.every(isSummaryEntry),
    'summaryLedger',
    'initial',
    'a list of summaries { replaces: [from, to), message }',
    initial,
  )
  let entries = supersede([], initial)
  return {
    list: () => entries,
    add: (more) => {
      entries = supersede(entries, more)
    },
  }
}

function isSummaryEntry(e: unknown): boolean {
  const r = (e as SummaryEntry | null)?.replaces
  return (
    typeof e === 'object' &&
    e !== null &&
    Array.isArray(r) &&
    typeof r[0] === 'number' &&
    typeof r[1] === 'number' &&
    messageIssue((e as SummaryEntry).message) === undefined
  )
}

/**
 * `entries` with `more` added and every older summary they supersede taken out: a later
 * summary of the same conversation folds in the one before (a running summary), so one that
 * ends at or before the newest one's end is never served again.
 */
export function supersede(
  entries: readonly SummaryEntry[],
  more: readonly SummaryEntry[],
): SummaryEntry[] {
  if (more.length === 0) return [...entries]
  const end = Math.max(...more.map((e) => e.replaces[1]))
  return [...entries.filter((e) => e.replaces[1] > end), ...more]
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

/** The newest summary in the ledger that applies to this view, or undefined. */
function latest(view: View, ledger: SummaryLedger): Current | undefined {
  const all = ledger.list()
  const last = all[all.length - 1]
  if (!last) return undefined
  const [from, to] = last.replaces
  const { messages } = view
  const n = view.unitCount
  if (n === 0 || from !== view.end(0) || to <= from || to > messages.length) return undefined
  if (last.anchor !== undefined && last.anchor !== anchorOf(view.message(to - 1))) return undefined
  // The summarized range must end on a unit boundary.
  let lo = 1
  let hi = n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (view.start(mid) < to) lo = mid + 1
    else hi = mid
  }
  if (lo < n ? view.start(lo) !== to : to !== messages.length) return undefined
  const entries: SummaryEntry[] = []
  for (let k = all.length - 1; k >= 0; k--) {
    const e = all[k] as SummaryEntry
    if (e.replaces[0] !== from || e.replaces[1] !== to) break
    entries.unshift(e)
  }
  const tokens = entries.reduce((n, e) => n + (e.tokens ?? view.counter.countMessage(e.message)), 0)
  return { from, to, unit: lo, entries, tokens }
}

/** Tokens of the messages sent with this summary: first unit, summary, the rest. */
function served(view: View, c: Current): number {
  const n = view.unitCount
  return view.unitSize(0) + c.tokens + view.rangeTokens(c.unit, n)
}

function planOf(view: View, c: Current): PlanItem[] {
  const replaces = Array.from({ length: c.to - c.from }, (_, k) => c.from + k)
  const plan = unitItems(view, 0, 1)
  for (const e of c.entries)
    plan.push({
      synthetic: e.message,
      replaces,
      reason: 'summary',
      ...(e.facts && { facts: e.facts.report }),
    })
  return unitItems(view, c.unit, view.unitCount, plan)
}

function messagesOf(view: View, c: Current): Message[] {
  return planOf(view, c).map((item) =>
    'synthetic' in item ? item.synthetic : view.message(item.index),
  )
}

/** A new summary is made only when what it would fold in holds this share of the room. */
const MIN_GAIN = 0.1

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
  const s = o.summarizer as { summarize?: unknown; name?: unknown } | undefined
  if (s !== undefined && (s === null || typeof s !== 'object' || typeof s.summarize !== 'function'))
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
  const signal = o.signal as { aborted?: unknown } | undefined
  if (
    signal !== undefined &&
    (signal === null || typeof signal !== 'object' || typeof signal.aborted !== 'boolean')
  )
    throw new InvalidOptionError('signal', 'expected an AbortSignal')
}

/** Tokens of the summary's header line and message framing, kept out of the summarizer's share. */
const HEADER_TOKENS = 32
/** Slack for the few tokens joining the facts section to the summary may add. */
const FACTS_MARGIN = 4

/** The facts a summary stands for: as recorded when it was made, else read from its text. */
function carriedFacts(entries: readonly SummaryEntry[]): Fact[] {
  let out: Fact[] = []
  for (const e of entries)
    out = mergeFacts(out, e.facts?.all ?? factsOfText(contentText(e.message.content)))
  return out
}

/** What is sent beside a summary that cuts before unit `cut`: the first unit and the newest units. */
function sentBeside(view: View, cut: number): string {
  const parts: string[] = []
  const { messages } = view
  for (let i = view.start(0); i < view.end(0); i++) parts.push(messageText(view.message(i)))
  const from = cut < view.unitCount ? view.start(cut) : messages.length
  for (let i = from; i < messages.length; i++) parts.push(messageText(view.message(i)))
  return parts.join('\n')
}

/** The text of a summary, without the header saying what it stands for. */
function summaryText(entries: readonly SummaryEntry[]): string {
  return entries
    .map((e) => contentText(e.message.content).replace(/^\[Summary of messages [^\n]*\]\n/, ''))
    .join('\n')
}

/** What a custom compressor returned, checked like any input: a clear error names the problem. */
function checkCustom(messages: unknown): Message[] {
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

/** Identifies a message well enough to tell histories apart, and survives transforms that clear content. */
export function anchorOf(m: Message): string {
  if (m.role === 'tool') return `tool:${m.toolCallId}`
  if (m.role === 'assistant' && m.toolCalls?.length)
    return `calls:${m.toolCalls.map((c) => c.id).join(',')}`
  return `${m.role}:${m.name ?? ''}:${contentText(m.content).slice(0, 48)}`
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

/** `; message 5 sent as it is` for the pinned messages of a summary's range (at most eight named). */
function pinnedNote(numbers: readonly number[]): string {
  if (numbers.length === 0) return ''
  const named = numbers.slice(0, 8).join(', ')
  const more = numbers.length > 8 ? ` and ${numbers.length - 8} more` : ''
  return numbers.length === 1
    ? `; message ${named} sent as it is`
    : `; messages ${named}${more} sent as they are`
}

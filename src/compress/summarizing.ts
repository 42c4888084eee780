import { tokenLimited } from '../strategies/token-limited.js'
import {
  type PlanItem,
  type Strategy,
  type SummaryLedger,
  unitItems,
  type View,
} from '../strategies/types.js'
import { makeSummary, type SummaryMaker } from './make-summary.js'
import {
  type CompressionEvent,
  describeCompression,
  type SummarizingOptions,
  summarizingSettings,
} from './summarizing-options.js'
import { summaryLedger } from './summary-ledger.js'
import { type Current, latest, planOf, served } from './summary-view.js'

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
  const { summarizer, trigger, leaveLastN, mode, background, role } = summarizingSettings(options)
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

  const maker: SummaryMaker = { options, mode, summarizer, role, emit }

  function start(
    view: View,
    ledger: SummaryLedger,
    current: Current | undefined,
    cut: number,
  ): Promise<Current | undefined> {
    const to = view.end(cut - 1)
    const done = makeSummary(maker, view, ledger, current, cut).finally(() => {
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

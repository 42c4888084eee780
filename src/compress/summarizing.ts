import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import type { Unit } from '../messages/units.js'
import { errorsOf, validate } from '../messages/validate.js'
import { tokenLimited } from '../strategies/token-limited.js'
import { type PlanItem, type Strategy, unitItems, type View } from '../strategies/types.js'
import { extractiveSummarizer } from './extractive.js'
import type { Summarizer } from './summarizer.js'

export type CompressionEvent =
  | { type: 'compressed'; before: number; after: number; replaced: number; range: [number, number] }
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
   * `compress` summarizes; `terminate` trims nothing and reports (an event, and the full
   * view while it fits the budget); `custom` hands the old messages to `compress`.
   */
  mode?: 'compress' | 'terminate' | 'custom'
  /** For `custom`: returns replacement messages for the old ones, or `ok: false` to fall back. */
  compress?: (
    messages: Message[],
  ) => { ok: boolean; messages: Message[] } | Promise<{ ok: boolean; messages: Message[] }>
  /** Serve the plain token-limited view at once and swap the summary in when it is ready. */
  background?: boolean
  /** Role of the summary message. Default `user` (several providers refuse a system message mid-list). */
  role?: 'user' | 'system' | 'assistant'
  /** Tokens the summary may take. Default: a quarter of what the messages may use. */
  maxSummaryTokens?: number
  onEvent?: (event: CompressionEvent) => void
  /** Log events to stderr. */
  verbose?: boolean
}

interface Summary {
  /** The history message the summary runs up to (exclusive end), checked by identity. */
  end: number
  lastMessage: Message
  /** Replacement messages (one summary, or what a custom compressor returned). */
  messages: Message[]
  text: string
}

/**
 * Summarizes old history once it passes a trigger (AutoGen CompressibleAgent), without its
 * defects: tool calls stay paired, the caller's history is never rewritten, and a failed
 * summary falls back to the token-limited view with an event instead of failing silently.
 * A later compression summarizes the previous summary plus the newer messages.
 */
export function summarizing(
  options: SummarizingOptions = {},
): Strategy<'summarizing', SummarizingOptions> {
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
      `expected a whole number >= 0, got ${JSON.stringify(leaveLastN)}`,
    )
  }
  if (mode === 'custom' && typeof options.compress !== 'function') {
    throw new InvalidOptionError('compress', "mode 'custom' needs a compress function")
  }
  const emit = (e: CompressionEvent) => {
    if (options.verbose) process.stderr.write(`context-window: ${describe(e)}\n`)
    options.onEvent?.(e)
  }
  let current: Summary | undefined
  const inFlight = new Map<number, Promise<void>>()
  const fallback = tokenLimited()

  async function compressRange(
    view: View,
    from: number,
    to: number,
    maxTokens: number,
  ): Promise<Summary | undefined> {
    const previous =
      current && current.end <= to && view.messages[current.end - 1] === current.lastMessage
        ? current
        : undefined
    const start = previous ? previous.end : from
    const messages = view.messages.slice(start, to) as Message[]
    try {
      if (mode === 'custom') {
        const out = await options.compress?.(messages.slice())
        if (!out?.ok) {
          emit({ type: 'fallback', reason: 'the custom compressor declined' })
          return undefined
        }
        return {
          end: to,
          lastMessage: view.messages[to - 1] as Message,
          messages: out.messages,
          text: '',
        }
      }
      const text = await summarizer.summarize({
        messages,
        previousSummary: previous?.text,
        maxTokens,
      })
      const content = `[Summary of messages ${from + 1}-${to} of the conversation (${to - from} messages), standing in for them]\n${text}`
      const message = { role, content } as Message
      return { end: to, lastMessage: view.messages[to - 1] as Message, messages: [message], text }
    } catch (e) {
      emit({ type: 'fallback', reason: (e as Error).message })
      return undefined
    }
  }

  return {
    name: 'summarizing',
    options,
    budgetAware: true,
    async select(view) {
      const { units, unitPrefix } = view
      const n = units.length
      const messageTokens = unitPrefix[n] as number
      const sent =
        messageTokens + view.overhead.tools + view.overhead.priming + view.overhead.reserve
      const limit = typeof trigger === 'number' ? Math.floor(trigger * view.budget) : trigger.tokens
      if (sent <= limit && messageTokens <= view.available) return unitItems(view, 0, n)
      if (mode === 'terminate') {
        emit({ type: 'terminated', tokens: sent, trigger: limit })
        if (messageTokens <= view.available) return unitItems(view, 0, n)
        return fallback.select(view)
      }
      // Never summarized: the first unit (system preamble or first prompt) and the newest leaveLastN.
      const first = 1
      const cut = Math.max(first, n - leaveLastN)
      if (cut <= first) {
        emit({ type: 'fallback', reason: 'nothing old enough to summarize' })
        return fallback.select(view)
      }
      const from = (units[first] as Unit).start
      const to = (units[cut - 1] as Unit).end
      const maxTokens = options.maxSummaryTokens ?? Math.max(64, Math.floor(view.available / 4))

      const ready =
        current && current.end === to && view.messages[to - 1] === current.lastMessage
          ? current
          : undefined
      let summary = ready
      if (!summary) {
        if (background) {
          if (!inFlight.has(to)) {
            const job = compressRange(view, from, to, maxTokens).then((s) => {
              if (s) current = s
              inFlight.delete(to)
            })
            inFlight.set(to, job)
          }
          return fallback.select(view)
        }
        summary = await compressRange(view, from, to, maxTokens)
        if (!summary) return fallback.select(view)
        current = summary
      }
      return planWith(view, summary, from, to, cut, messageTokens, emit) ?? fallback.select(view)
    },
  }
}

function planWith(
  view: View,
  summary: Summary,
  from: number,
  to: number,
  cut: number,
  before: number,
  emit: (e: CompressionEvent) => void,
): PlanItem[] | undefined {
  const replaces = Array.from({ length: to - from }, (_, k) => from + k)
  const plan = unitItems(view, 0, 1)
  for (const m of summary.messages) plan.push({ synthetic: m, replaces, reason: 'summary' })
  unitItems(view, cut, view.units.length, plan)
  let after = 0
  for (const item of plan) {
    after +=
      'synthetic' in item
        ? view.counter.countMessage(item.synthetic)
        : (view.tokens[item.index] as number)
  }
  const replacedTokens = (view.unitPrefix[cut] as number) - (view.unitPrefix[1] as number)
  const summaryTokens = summary.messages.reduce((n, m) => n + view.counter.countMessage(m), 0)
  if (summaryTokens >= replacedTokens) {
    emit({
      type: 'fallback',
      reason: `the summary (${summaryTokens} tokens) is not shorter than what it replaces (${replacedTokens})`,
    })
    return undefined
  }
  if (after > view.available) {
    emit({
      type: 'fallback',
      reason: `summary and newest messages need ${after} tokens, more than the ${view.available} available`,
    })
    return undefined
  }
  const check = plan.map((item) =>
    'synthetic' in item ? item.synthetic : (view.messages[item.index] as Message),
  )
  const problems = errorsOf(validate(check, { provider: view.provider }))
  if (problems.length) {
    emit({ type: 'fallback', reason: `the compressed list is invalid: ${problems[0]?.message}` })
    return undefined
  }
  emit({ type: 'compressed', before, after, replaced: to - from, range: [from, to] })
  return plan
}

function describe(e: CompressionEvent): string {
  switch (e.type) {
    case 'compressed':
      return `compressed ${e.replaced} messages (${e.range[0]}-${e.range[1] - 1}): ${e.before} -> ${e.after} tokens`
    case 'fallback':
      return `compression fell back to the token-limited view: ${e.reason}`
    case 'terminated':
      return `context full: ${e.tokens} tokens over the trigger of ${e.trigger}`
  }
}

import { asyncStrategyFromOptions } from '../compress/index.js'
import { summaryLedger } from '../compress/summary-ledger.js'
import type { Message } from '../messages/message.js'
import { requireUserTurn } from '../providers/repair-writes.js'
import type { ProviderRules } from '../providers/types.js'
import { pinsBase } from '../strategies/pins.js'
import type { SummaryLedger } from '../strategies/types.js'
import type { TokenCounter } from '../tokens/counter.js'
import { assemble } from './assemble.js'
import { checkHistory, checkList } from './check.js'
import { planNow, planView } from './context-plan.js'
import { HistoryIndex } from './history-index.js'
import { requireBudget } from './options/budget-rule.js'
import { type FitOptions, resolveSetup, type Setup } from './options/options.js'
import type { Prepared } from './prepare.js'
import type { FitResult } from './result.js'

export { type FitOptions, resolveSetup, type Setup } from './options/options.js'
export type { Fate, FitResult, MessageFate } from './result.js'

/**
 * Indexes of arrays seen before: by the array itself (an agent loop that pushes to one
 * array), else by its first message (a new array each call built from the same message
 * objects, as the AI SDK's `prepareStep` does). Either way only the new messages are taken.
 */
const byArray = new WeakMap<object, HistoryIndex[]>()
const byHead = new WeakMap<object, HistoryIndex[]>()
/** Indexes kept per key: conversations that share a first message (one system prompt object). */
const PER_KEY = 4

function reusable(
  list: readonly HistoryIndex[] | undefined,
  messages: readonly Message[],
  counter: TokenCounter,
  provider: ProviderRules,
): HistoryIndex | undefined {
  if (!list) return undefined
  for (const x of list)
    if (x.counter === counter && x.provider === provider && x.isPrefixOf(messages)) return x
  return undefined
}

function remember(map: WeakMap<object, HistoryIndex[]>, key: object, index: HistoryIndex): void {
  const list = map.get(key) ?? []
  if (list.includes(index)) return
  // An index that this one extends, or that extends it, is the same conversation: replace it.
  const same = list.findIndex(
    (x) =>
      x.counter === index.counter &&
      x.provider === index.provider &&
      (x.isPrefixOf(index.input) || index.isPrefixOf(x.input)),
  )
  if (same >= 0) list[same] = index
  else {
    if (list.length >= PER_KEY) list.shift()
    list.push(index)
  }
  map.set(key, list)
}

/**
 * The index of `messages`: one seen before when its messages are the same objects (then only
 * what was appended since is taken), else a new one. Messages are read as they are now: an
 * object edited in place after a fit is not seen again (pass a new object instead).
 */
export function indexOf(
  messages: readonly Message[],
  counter: TokenCounter,
  provider: ProviderRules,
): HistoryIndex {
  checkList(messages)
  const head = messages[0]
  const keyed = head !== null && typeof head === 'object'
  let index =
    reusable(byArray.get(messages), messages, counter, provider) ??
    (keyed ? reusable(byHead.get(head), messages, counter, provider) : undefined)
  index ??= new HistoryIndex(counter, provider)
  // A bad message leaves the index holding the good ones before it: the next call resumes there.
  index.pushAll(messages, index.length)
  if (keyed) {
    remember(byArray, messages, index)
    remember(byHead, head, index)
  }
  return index
}

/**
 * What `fit` says at compile time when given messages in a provider's shape (an SDK's
 * message type is no `Message`): a one-line hint, where the mismatch would print the
 * expanded types of every role.
 */
export type FitInput<T> = T extends readonly Message[]
  ? unknown
  : "fit takes the library's messages: convert first, e.g. fit(fromOpenAIChat(messages))"

/**
 * Fits a history to a budget: the messages to send and an account of every input message.
 * The input is never modified and the output shares no object with it.
 */
export function fit<T extends readonly Message[] | readonly object[]>(
  messages: T & FitInput<T>,
  options?: FitOptions,
): FitResult
export function fit(messages: readonly Message[], options: FitOptions = {}): FitResult {
  checkHistory(messages)
  return fitSetup(messages, resolveSetup(options), true)
}

/**
 * `fit` taking an empty list too (an empty result), and no budget: for the framework
 * adapters, where a session with nothing in it yet is an ordinary state the framework reads,
 * not bad input, and the window may be learnt from the provider.
 */
export function fitAny(messages: readonly Message[], options: FitOptions = {}): FitResult {
  return fitSetup(messages, resolveSetup(options))
}

function fitSetup(messages: readonly Message[], setup: Setup, bounded = false): FitResult {
  const index = indexOf(messages, setup.counter, setup.provider)
  const before = bounded ? (prepared: Prepared) => refuseUnbounded(prepared, setup) : undefined
  const { prepared, plan } = planNow(index, setup, 1, 'fitAsync', before)
  return assemble(prepared, plan, setup)
}

/** `fit` for strategies that call out (summarizers): same result, awaited. */
export async function fitAsync<T extends readonly Message[] | readonly object[]>(
  messages: T & FitInput<T>,
  options?: FitOptions,
): Promise<FitResult>
export async function fitAsync(
  messages: readonly Message[],
  options: FitOptions = {},
): Promise<FitResult> {
  checkHistory(messages)
  const resolved = resolveSetup(options, [], asyncStrategyFromOptions)
  const index = indexOf(messages, resolved.counter, resolved.provider)
  // Summaries belong to the conversation: without a ledger given, each history keeps its own
  // (released with it), so a strategy shared by many conversations never serves one's
  // summary in another's request.
  const setup =
    resolved.summaries === undefined && resolved.strategy.keepsSummaries
      ? { ...resolved, summaries: ledgerOf(index, pinsBase(resolved.strategy)) }
      : resolved
  // A strategy that may await sees a copy: another call may extend the index meanwhile.
  const { prepared, plan } = await planView(index, setup, 1, (p) => refuseUnbounded(p, setup))
  const result = assemble(prepared, plan, setup)
  lastAsync.set(messages, result)
  return result
}

/**
 * The last `fitAsync` result of each history array: the request a recall tool call answers
 * when the strategy is asynchronous and the caller does not hand the result over.
 */
const lastAsync = new WeakMap<readonly Message[], FitResult>()

/** The result of the last `fitAsync` over `messages` (this very array, at its length now). */
export function lastAsyncFit(messages: readonly Message[]): FitResult | undefined {
  const r = lastAsync.get(messages)
  return r && r.fates.length === messages.length ? r : undefined
}

/**
 * `requireBudget` once the messages are read and repaired: what is wrong with them (a bad
 * field, no user turn for a provider that needs one) is named before a missing budget.
 */
function refuseUnbounded(prepared: Prepared, setup: Setup): void {
  if (Number.isFinite(setup.budget)) return
  requireUserTurn(prepared.view.messages, setup.provider, prepared.inputLength)
  requireBudget(setup)
}

/**
 * Summaries by conversation, then by the strategy that made them. A conversation is known by
 * its first user message object (the system prompt before it is shared by many), so an index
 * let go and made again for it (more conversations than the index cache keeps per system
 * prompt) finds its summaries again instead of writing new ones. A history with no user
 * message keeps them by its index.
 */
const ledgers = new WeakMap<object, WeakMap<object, SummaryLedger>>()
function ledgerOf(index: HistoryIndex, strategy: object): SummaryLedger {
  const key = firstUser(index.input) ?? index
  let byStrategy = ledgers.get(key)
  if (!byStrategy) {
    byStrategy = new WeakMap()
    ledgers.set(key, byStrategy)
  }
  let ledger = byStrategy.get(strategy)
  if (!ledger) {
    ledger = summaryLedger()
    byStrategy.set(strategy, ledger)
  }
  return ledger
}

/** The first user message, looked for among the first few (a conversation opens with one). */
function firstUser(messages: readonly Message[]): Message | undefined {
  const n = Math.min(messages.length, 8)
  for (let i = 0; i < n; i++) if (messages[i]?.role === 'user') return messages[i]
  return undefined
}

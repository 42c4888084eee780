import { ContextOverflowError, CountingEndpointError, InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import {
  type CountingClients,
  type CountingProvider,
  countRequestOf,
} from '../providers/counting.js'
import { type ToolInput, toolSchemas } from '../providers/tool-shapes.js'
import type { TokenCounter } from '../tokens/counter.js'
import { counterFor } from '../tokens/counters.js'
import { unchangedOf } from './assemble.js'
import { checkList, checkMessage } from './check.js'
import { type FitOptions, fitAsync } from './fit.js'
import type { FitResult } from './result.js'

export type {
  AnthropicCountingClient,
  GeminiCountingClient,
  OpenAICountingClient,
} from '../providers/counting.js'

export type CountingEndpointOptions = {
  /** The model the request goes to (the endpoint counts with its tokenizer). */
  model: string
  /** Tools exactly as the request sends them, in the provider's own shape: sent to the endpoint as they are. */
  tools?: readonly unknown[]
  /** The local count the endpoint corrects. Default: the model's counter. */
  counter?: TokenCounter
  /**
   * When a count is worth a call: `near` (default) only when the local estimate is within
   * `margin` of the room it must fit (or no room is given); `always`; `never` (the local estimate, calibrated by
   * what was measured before).
   */
  when?: 'near' | 'always' | 'never'
  /** Share of the room, each side, that counts as near. Default 0.15. */
  margin?: number
  /**
   * An endpoint error, or no answer within `timeoutMs`, throws `CountingEndpointError` instead
   * of falling back to the local estimate.
   */
  strict?: boolean
  /**
   * How long a count may take before the local estimate stands in (or, with `strict`, a
   * `CountingEndpointError` with `timedOut` is thrown); the call is aborted. Default 5,000 ms.
   */
  timeoutMs?: number
} & {
  /** The provider API counting, and the caller's own SDK client it is called through. */
  [P in CountingProvider]: { provider: P; client: CountingClients[P] }
}[CountingProvider]

export interface EndpointCount {
  /** Input tokens of the request (messages, system prompt and tools). */
  tokens: number
  /** `endpoint`: counted by the provider now; `cache`: counted by it before; `estimate`: local. */
  source: 'endpoint' | 'cache' | 'estimate'
  /** The endpoint's error, when it failed and the local estimate stands in. */
  error?: unknown
}

export interface CountingEndpoint {
  /**
   * A counter for `fit`, `fitAsync` and `ChatContext`: each message the endpoint has measured
   * counts as measured (by content, so a copy of it too), any other as the local counter has
   * it times the ratio measured so far. One object answers each message the same every time,
   * so a fit on a growing history counts only what was added; a new object comes only when
   * what was measured moves that ratio by more than 2% (then fits count afresh with it).
   */
  readonly counter: TokenCounter
  /**
   * The request's input tokens. The endpoint is called only when the policy says it pays and
   * this request (the same messages, system prompt and tools) was not counted before; else
   * the local estimate, corrected by earlier measurements, is returned.
   */
  count(messages: readonly Message[], options?: { room?: number }): Promise<EndpointCount>
  /** Calls made to the endpoint so far. */
  readonly calls: number
}

/** Measurements kept per endpoint object: per-message counts, and whole requests. */
const MAX_ENTRIES = 20_000
/** Provider tokens per local token outside this band are not a measurement of the same text. */
const MIN_RATIO = 0.5
const MAX_RATIO = 4
/**
 * How far the measured ratio may move before `counter` becomes a new object. A new object
 * makes every fit count the history again, so it must be rare: the ratio is an average over
 * what was measured, which settles, and a request near the room is checked by the provider's
 * own count whatever the counter said.
 */
const DRIFT = 0.02
/** Each measurement's weight in the ratio falls by this much per later measurement. */
const FORGET = 0.98
/** How long a count may take by default, in milliseconds. */
const TIMEOUT_MS = 5_000

/**
 * A counter backed by the provider's own counting endpoint (Anthropic `messages.countTokens`,
 * Gemini `models.countTokens`, OpenAI `responses.inputTokens.count`), called through the
 * client the caller already has. A request is sent to it as the request itself would be
 * encoded, with nothing added. What one call measures beyond what was measured before (the
 * messages after the longest counted prefix) is shared out over those messages, so each
 * message is paid for once.
 */
export function countingEndpoint(options: CountingEndpointOptions): CountingEndpoint {
  requireOptions(
    options,
    'countingEndpoint',
    ['provider', 'client', 'model', 'tools', 'counter', 'when', 'margin', 'strict', 'timeoutMs'],
    { required: true },
  )
  requireArgument(
    typeof options.model === 'string' && options.model !== '',
    'countingEndpoint',
    'model',
    'a model id',
    options.model,
  )
  const countRequest = countRequestOf(options.provider)
  const when = options.when ?? 'near'
  if (when !== 'near' && when !== 'always' && when !== 'never')
    throw new InvalidOptionError(
      'when',
      `expected 'near', 'always' or 'never', got ${String(when)}`,
    )
  const margin = options.margin ?? 0.15
  if (typeof margin !== 'number' || !(margin >= 0 && margin <= 1))
    throw new InvalidOptionError('margin', `expected a number from 0 to 1, got ${String(margin)}`)
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0 && Number.isFinite(timeoutMs)))
    throw new InvalidOptionError(
      'timeoutMs',
      `expected a number of milliseconds > 0, got ${describeValue(timeoutMs)}`,
    )
  if (options.tools !== undefined && !Array.isArray(options.tools))
    throw new InvalidOptionError('tools', 'expected the list of tools the request sends')
  const local = options.counter ?? counterFor(options.model)
  const tools = options.tools ?? []
  const localTools = local.countTools(toolSchemas(tools as ToolInput[]))
  const toolsKey = hash(JSON.stringify(tools), 0)
  const call = countRequest.make({
    client: options.client,
    model: options.model,
    local,
    localTools,
  })

  /** Measured tokens of a message, by content. */
  const measured = new Map<number, number>()
  /** Measured input tokens of a request, by its prefix key. */
  const requests = new Map<number, number>()
  /** Provider tokens and local tokens measured so far, older measurements weighing less. */
  let providerSum = 0
  let localSum = 0
  let calls = 0

  const remember = <V>(map: Map<number, V>, k: number, v: V) => {
    // Oldest out first: a long-running process keeps a bounded record.
    if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as number)
    map.set(k, v)
  }
  const localOf = (m: Message): number => local.countMessage(m)
  const ratioNow = (): number | undefined => (localSum > 0 ? providerSum / localSum : undefined)

  /** A counter at one ratio: each message's answer is fixed the first time it is asked. */
  const makeCounter = (generation: number, ratio: number | undefined): TokenCounter => {
    const scaled = (n: number): number => scale(n, ratio)
    const answers = new WeakMap<Message, number>()
    const countOf = (m: Message): number => {
      let n = answers.get(m)
      if (n === undefined) {
        n = measured.get(keyOf(m)) ?? scaled(localOf(m))
        answers.set(m, n)
      }
      return n
    }
    return {
      name: `endpoint:${options.provider}:${options.model}#${generation}`,
      exact: false,
      replyPriming: local.replyPriming,
      countText: (t) => scaled(local.countText(t)),
      countMessage: countOf,
      countMessages(messages) {
        let n = local.replyPriming
        for (const m of messages) n += countOf(m)
        return n
      },
      countTools: (t) => scaled(local.countTools(t)),
    }
  }
  let generation = 0
  let counterRatio: number | undefined
  let counter = makeCounter(generation, counterRatio)

  /** Request keys, one per prefix: what the request holds up to and with each message. */
  const prefixKeys = (messages: readonly Message[]): number[] => {
    checkList(messages)
    const out: number[] = []
    let k = toolsKey
    for (const [i, m] of messages.entries()) {
      // A message is checked when first seen: one already keyed was checked before.
      if (!keys.has(m)) checkMessage(m, i)
      k = hash(`${k}:${keyOf(m)}`, 2)
      out.push(k)
    }
    return out
  }

  const learn = (
    messages: readonly Message[],
    prefix: number[],
    from: number,
    base: number,
    total: number,
  ) => {
    const fresh = messages.slice(from)
    const freshLocal = fresh.reduce((n, m) => n + localOf(m), 0)
    const delta = total - base
    const r = freshLocal > 0 ? delta / freshLocal : undefined
    // A delta out of all proportion (another request, a cached-only count) teaches nothing per message.
    if (r !== undefined && r >= MIN_RATIO && r <= MAX_RATIO) {
      providerSum = providerSum * FORGET + delta
      localSum = localSum * FORGET + freshLocal
      let left = delta
      fresh.forEach((m, i) => {
        const n = i === fresh.length - 1 ? left : Math.round(localOf(m) * r)
        left -= n
        remember(measured, keyOf(m), n)
      })
    }
    remember(requests, prefix[prefix.length - 1] ?? toolsKey, total)
    const now = ratioNow()
    const moved =
      now !== undefined && (counterRatio === undefined || Math.abs(now / counterRatio - 1) > DRIFT)
    if (moved) {
      counterRatio = now
      counter = makeCounter(++generation, counterRatio)
    }
  }

  return {
    get counter() {
      return counter
    },
    get calls() {
      return calls
    },
    async count(messages, countOptions = {}) {
      requireOptions(countOptions, 'count', ['room'])
      const room = countOptions.room
      if (room !== undefined && !(typeof room === 'number' && room > 0))
        throw new InvalidOptionError('room', `expected a positive number, got ${String(room)}`)
      const prefix = prefixKeys(messages)
      const whole = requests.get(prefix[prefix.length - 1] ?? toolsKey)
      if (whole !== undefined) return { tokens: whole, source: 'cache' }
      // The longest prefix counted before: only what follows it is new.
      let from = messages.length
      while (from > 0 && !requests.has(prefix[from - 1] as number)) from--
      const base =
        from > 0
          ? (requests.get(prefix[from - 1] as number) as number)
          : scale(localTools + local.replyPriming, counterRatio)
      let estimate = base
      for (let i = from; i < messages.length; i++)
        estimate += counter.countMessage(messages[i] as Message)
      // Before anything is measured, the local count may be under by up to MAX_RATIO times:
      // an estimate that far under the room can still be over it.
      const low = localSum > 0 ? estimate : estimate * MAX_RATIO
      const pays =
        when === 'always' ||
        (when === 'near' &&
          (room === undefined || (low >= (1 - margin) * room && estimate <= (1 + margin) * room)))
      if (!pays) return { tokens: estimate, source: 'estimate' }
      let total: number
      const abort = new AbortController()
      let timer: ReturnType<typeof setTimeout> | undefined
      try {
        calls++
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            reject(new CountingTimeout(timeoutMs))
            abort.abort()
          }, timeoutMs)
        })
        total = await Promise.race([call(messages, tools, abort.signal), late])
      } catch (error) {
        if (options.strict)
          throw new CountingEndpointError(options.provider, error, error instanceof CountingTimeout)
        return { tokens: estimate, source: 'estimate', error }
      } finally {
        clearTimeout(timer)
      }
      learn(messages, prefix, from, from > 0 ? base : localTools + local.replyPriming, total)
      return { tokens: total, source: 'endpoint' }
    },
  }
}

const scale = (n: number, ratio: number | undefined): number =>
  ratio === undefined ? n : Math.ceil(n * ratio)

/** No answer in time: the error a timed-out count falls back with (or the cause of `CountingEndpointError`). */
class CountingTimeout extends Error {
  override name = 'CountingTimeout'
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`)
  }
}

/**
 * Each message's content key, by object. A key depends on the content alone, so one table
 * serves every endpoint, and a fit's unchanged copy of a message takes its original's key
 * (`fitCounted`) instead of being serialized again on every turn.
 */
const keys = new WeakMap<Message, number>()
function keyOf(m: Message): number {
  let k = keys.get(m)
  if (k === undefined) {
    k = hash(JSON.stringify(m), 1)
    keys.set(m, k)
  }
  return k
}

/** The messages of a fit that went out as they came in share their input's key. */
function shareKeys(input: readonly Message[], result: FitResult): void {
  for (const { from, position } of unchangedOf(result) ?? []) {
    const copy = result.messages[position]
    const original = input[from]
    if (copy && original && !keys.has(copy)) keys.set(copy, keyOf(original))
  }
}

/** A 53-bit hash of `s` (cyrb53), seeded: keys for counts, never sent anywhere. */
function hash(s: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed
  let h2 = 0x41c6ce57 ^ seed
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

/** Share of the room a fit that dropped messages must fill by the provider's count. */
const FILL = 0.9
/** Fits after the first, each checked by the provider's count. */
const REFITS = 4
/** Where in the room a refit aims, by the provider's count. */
const AIM = 0.96
/** Each refit after one that went over aims this much lower again. */
const SHRINK = 0.9

/**
 * `fitAsync` checked against the provider's count: fitted with what the endpoint measured
 * so far; when the local count comes near the room (budget less reserve), the fitted
 * request is counted by the endpoint. While the provider's count is over the room, or under
 * 90% of it with messages left out, the history is fitted again (at most four more times) to
 * the room divided by the ratio measured on this request (provider tokens per token the fit
 * counted), a little under it after each miss. The counter is the same for every refit of one
 * call, so the ratio measured on one fit holds for the next. The result is the fullest fit the
 * provider counted within the room; if none was, `ContextOverflowError` names the caller's
 * budget and what the provider counted.
 */
export async function fitCounted(
  messages: readonly Message[],
  options: FitOptions & { endpoint: CountingEndpoint },
): Promise<FitResult & { counted: EndpointCount }> {
  requireOptions(options, 'fitCounted', undefined, { required: true })
  const { endpoint, ...fitOptions } = options
  requireArgument(
    typeof endpoint?.count === 'function' && typeof endpoint.counter === 'object',
    'fitCounted',
    'endpoint',
    'an endpoint from countingEndpoint',
    endpoint,
  )
  // One counter for every fit of this call: what the endpoint learns meanwhile makes the next call's.
  const counter = endpoint.counter
  const first = await fitAsync(messages, { ...fitOptions, counter })
  shareKeys(messages, first)
  if (first.budget === null)
    return Object.assign(first, { counted: await endpoint.count(first.messages) })
  const budget = first.budget
  const reserve = first.tokens.reserve
  const room = budget - reserve
  const fitted = (r: FitResult) => r.tokens.messages + r.tokens.tools + r.tokens.priming
  const whole = (r: FitResult) => r.kept.length === messages.length && r.inserted.length === 0

  let result = first
  let target = room
  let counted = await endpoint.count(first.messages, { room })
  if (counted.source === 'estimate') return Object.assign(first, { counted })
  let best: { result: FitResult; counted: EndpointCount } | undefined
  /** The largest target fitted within the room, and the smallest fitted over it, with the provider's counts. */
  let under: { target: number; tokens: number } | undefined
  let over: { target: number; tokens: number } | undefined
  for (let tries = 0; ; tries++) {
    const within = counted.tokens <= room
    if (within) {
      if (!best || counted.tokens > best.counted.tokens) best = { result, counted }
      if (whole(result) || counted.tokens >= FILL * room) break
      if (!under || target > under.target) under = { target, tokens: counted.tokens }
    } else {
      // A fit is what it is at any target from what it counted: the bound is the lower of the two.
      const at = Math.min(target, fitted(result))
      if (!over || at < over.target) over = { target: at, tokens: counted.tokens }
    }
    if (tries === REFITS) break
    const aim = AIM * room
    if (under && over) {
      // Between a fit under and one over: where the line through their counts meets the aim.
      if (over.target - under.target <= 1) break
      const step =
        ((aim - under.tokens) / (over.tokens - under.tokens)) * (over.target - under.target)
      target = Math.min(
        over.target - 1,
        Math.max(under.target + 1, Math.round(under.target + step)),
      )
    } else {
      // The ratio measured on this request: provider tokens per token this counter counted.
      const ratio = counted.tokens / Math.max(1, fitted(result))
      target = Math.max(1, Math.floor((aim / ratio) * (within ? 1 : SHRINK ** tries)))
      if (over && target >= over.target) target = over.target - 1
    }
    let next: FitResult
    try {
      next = await fitAsync(messages, { ...fitOptions, budget: reserve + target, reserve, counter })
    } catch (error) {
      if (!(error instanceof ContextOverflowError)) throw error
      // What must be sent does not fit the room at the ratio this conversation measured.
      const ratio = counted.tokens / Math.max(1, fitted(result))
      throw new ContextOverflowError('the request, by the provider’s count', {
        required: Math.ceil((error.required - reserve) * ratio) + reserve,
        budget,
        breakdown: { ...scaled(error.breakdown, ratio, 'reserve'), reserve },
      })
    }
    shareKeys(messages, next)
    result = next
    // Checked whatever its estimate: the provider has just said how this conversation counts.
    counted = await endpoint.count(result.messages)
    if (counted.source === 'estimate') break
  }
  if (best) {
    result = best.result
    counted = best.counted
  } else if (counted.source !== 'estimate') {
    throw new ContextOverflowError('the request, by the provider’s count', {
      required: counted.tokens + reserve,
      budget,
      breakdown: { request: counted.tokens, reserve },
    })
  }
  // The result's lazy fields (fates, dropped) stay lazy: the count is added to it, not copied.
  return Object.assign(result, { counted })
}

/** Each figure of a breakdown times `ratio`, but the one named `keep`. */
function scaled(
  breakdown: Record<string, number>,
  ratio: number,
  keep: string,
): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(breakdown)) if (k !== keep) out[k] = Math.ceil(v * ratio)
  return out
}

import { CountingEndpointError, InvalidOptionError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { describeValue, requireArgument, requireOptions } from '../../options-check.js'
import { countRequestOf } from '../../providers/counting.js'
import { type ToolInput, toolSchemas } from '../../providers/tool-shapes.js'
import type { TokenCounter } from '../../tokens/counter.js'
import { counterFor } from '../../tokens/counters.js'
import { checkList, checkMessage } from '../check.js'
import { hash, keyOf, keys, scale } from './counting-measures.js'
import type { CountingEndpoint, CountingEndpointOptions } from './counting-types.js'

export type {
  AnthropicCountingClient,
  GeminiCountingClient,
  OpenAICountingClient,
} from '../../providers/counting.js'

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

/** No answer in time: the error a timed-out count falls back with (or the cause of `CountingEndpointError`). */
class CountingTimeout extends Error {
  override name = 'CountingTimeout'
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`)
  }
}

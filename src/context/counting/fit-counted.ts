/** A fit checked against the provider's own count, fitted again while that count misses the room. */
import { ContextOverflowError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { requireArgument, requireOptions } from '../../options-check.js'
import { type FitOptions, fitAsync } from '../fit.js'
import type { FitResult } from '../result.js'
import { scaled, shareKeys } from './counting-measures.js'
import type { CountingEndpoint, EndpointCount } from './counting-types.js'

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

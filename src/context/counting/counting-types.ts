/** What a counting endpoint takes (its options) and gives (its counter and counts). */
import type { Message } from '../../messages/message.js'
import type { CountingClients, CountingProvider } from '../../providers/counting.js'
import type { TokenCounter } from '../../tokens/counter.js'

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

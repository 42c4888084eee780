import type { Provider } from './provider.js'

/**
 * What `validate` reports and `repair` and the fit act on: a problem, by message index, with
 * its code. Every API's codes are here, beside the shared ones, so the rules of each API and
 * the engine over them import this module and not each other.
 */
export type ProblemCode =
  | 'orphan-tool-result'
  | 'missing-tool-result'
  | 'duplicate-tool-call-id'
  | 'first-not-user'
  | 'consecutive-same-role'
  | 'system-not-leading'
  | 'empty-content'
  | 'invalid-tool-call-id'
  | 'empty-text-part'
  | 'no-user-turn'
  | 'unsupported-part'
  | 'media-moved'
  | 'thought-not-sendable'
  | 'over-request-limit'
  | ResponsesProblemCode
  | GeminiProblemCode

export interface Problem {
  /** Index of the offending message in the input. */
  index: number
  code: ProblemCode
  /** `error`: the provider rejects the request. `warning`: it accepts it but changes it. */
  severity: 'error' | 'warning'
  message: string
}

export interface ValidateOptions extends ResponsesRuleOptions {
  /** Whose rules to check. Default `openai`. */
  provider?: Provider
}

export type ResponsesProblemCode =
  | 'reasoning-without-following-item'
  | 'reasoning-not-replayable'
  | 'superseded-by-compaction'

export interface ResponsesRuleOptions {
  /** The request is sent with `store: false`: reasoning goes back only with its `encrypted_content`. */
  store?: boolean
}

export type GeminiProblemCode = 'missing-thought-signature'

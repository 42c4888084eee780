import { InvalidInputError, InvalidOptionError } from '../errors.js'
import { requireMessages } from '../messages/check.js'
import { redactCredentials } from '../messages/credentials.js'
import type { Message } from '../messages/message.js'
import { unitsOf } from '../messages/units.js'
import { describeValue } from '../options-check.js'
import { PROVIDER_CHECKS } from './checks.js'
import {
  assistantMedia,
  countParts,
  emptyList,
  hasText,
  isBlank,
  isCallOnly,
  isEmpty,
  isMedia,
  ownThought,
} from './message-tests.js'
import type { Problem, ResponsesRuleOptions, ValidateOptions } from './problems.js'
import type { Provider } from './provider.js'
import { describeLimits, overRequestLimits } from './request-limits.js'
import { PROVIDER_RULES, providerRules } from './table.js'
import type { ProviderRules } from './types.js'

// The names and the problems have modules of their own (provider.ts, problems.ts); the root
// entry and modules outside providers/ still read them from here.
export type { Problem, ProblemCode, ValidateOptions } from './problems.js'
export { PROVIDERS, type Provider } from './provider.js'

/**
 * The rules of the provider a `provider` option names (default OpenAI chat), resolved once:
 * the core holds the object. A typed error for any other value.
 */
export function rulesOf(provider: Provider | null | undefined): ProviderRules {
  // null is no provider given, as it always was read.
  if (provider === undefined || provider === null) return PROVIDER_RULES.openai
  const rules = providerRules(provider)
  if (rules) return rules
  throw new InvalidOptionError(
    'provider',
    `expected one of ${Object.keys(PROVIDER_RULES).join(', ')}, got ${describeValue(provider)}`,
  )
}

/**
 * What `validate` returns: every problem, in message order (a list, as it always was), with
 * them apart by severity. `valid` is what to test: a warning (`consecutive-same-role`, a
 * thought that cannot be sent) is a change the provider makes, not a refusal, so a list
 * with warnings only is valid; `length` counts warnings too.
 */
export interface Validation extends Array<Problem> {
  /** No error: the provider accepts the request. */
  readonly valid: boolean
  /** The problems that make the provider reject the request. */
  readonly errors: Problem[]
  /** The problems the provider accepts, changing the request or ignoring part of it. */
  readonly warnings: Problem[]
}

/** `Validation` as made: an array whose own map and filter give plain arrays. */
class ProblemList extends Array<Problem> implements Validation {
  static override get [Symbol.species](): ArrayConstructor {
    return Array
  }
  get valid(): boolean {
    return !this.some((p) => p.severity === 'error')
  }
  get errors(): Problem[] {
    return this.filter((p) => p.severity === 'error')
  }
  get warnings(): Problem[] {
    return this.filter((p) => p.severity === 'warning')
  }
}

/**
 * Checks a message list against a provider's rules. Never throws on a bad history: every
 * problem is reported with the index of the message it concerns, an error (the provider
 * refuses the request) or a warning (it accepts it): read `valid`, or `errors` and `warnings`.
 */
export function validate(messages: readonly Message[], options: ValidateOptions = {}): Validation {
  checkArguments(messages, options)
  const rules = rulesOf(options.provider)
  // No messages is no request: calling it valid would be the silent empty answer.
  if (messages.length === 0)
    throw new InvalidInputError('no messages: an empty history is not a valid request', {
      field: 'messages',
    })
  const out = new ProblemList()
  for (const p of problemsOf(messages, rules, options)) out.push(p)
  return out
}

/** `validate` once its arguments are checked and the provider resolved. */
function problemsOf(
  messages: readonly Message[],
  provider: ProviderRules,
  options: ResponsesRuleOptions = {},
): Problem[] {
  const r = provider.messages
  const problems: Problem[] = []
  const seenIds = new Map<string, number>()

  for (const unit of unitsOf(messages)) {
    const first = messages[unit.start]
    if (!first) continue
    if (unit.kind === 'orphan' && first.role === 'tool') {
      const callAt = seenIds.get(first.toolCallId)
      problems.push({
        index: unit.start,
        code: 'orphan-tool-result',
        severity: 'error',
        message:
          callAt === undefined
            ? `tool result for call ${first.toolCallId} has no matching tool call before it`
            : `tool result for call ${first.toolCallId} does not directly follow its call at message ${callAt}`,
      })
      continue
    }
    if (unit.kind !== 'exchange' || first.role !== 'assistant') continue
    const answered = new Set<string>()
    for (let k = unit.start + 1; k < unit.end; k++) {
      const m = messages[k]
      if (m?.role === 'tool') answered.add(m.toolCallId)
    }
    const inMessage = new Set<string>()
    for (const call of first.toolCalls ?? []) {
      const earlier = seenIds.get(call.id)
      if (inMessage.has(call.id) || earlier !== undefined) {
        // OpenAI accepts an id reused by a later exchange (real traces do it); Anthropic does not.
        const sameMessage = inMessage.has(call.id)
        problems.push({
          index: unit.start,
          code: 'duplicate-tool-call-id',
          severity: sameMessage || r.callId ? 'error' : 'warning',
          message: sameMessage
            ? `tool call id ${call.id} is used twice in this message`
            : `tool call id ${call.id} was already used at message ${earlier}`,
        })
      } else {
        seenIds.set(call.id, unit.start)
      }
      inMessage.add(call.id)
      if (r.callId && !r.callId.test(call.id)) {
        problems.push({
          index: unit.start,
          code: 'invalid-tool-call-id',
          severity: 'error',
          message: `tool call id ${JSON.stringify(call.id)} must match ${r.callId}`,
        })
      }
      if (!answered.has(call.id)) {
        problems.push({
          index: unit.start,
          code: 'missing-tool-result',
          severity: 'error',
          message: `tool call ${call.id} (${call.name}) has no result after it`,
        })
      }
    }
  }

  for (const [i, m] of messages.entries()) {
    if (r.assistantMedia && assistantMedia(m) > 0)
      problems.push({
        index: i,
        code: 'unsupported-part',
        // Chat refuses the request; the Responses codec leaves the part out.
        severity: r.assistantMedia,
        message: `assistant message has an image or file part: ${r.label} takes only text and refusal parts from the assistant`,
      })
    if (r.toolResultTextOnly && m.role === 'tool' && countParts(m, isMedia) > 0)
      problems.push({
        index: i,
        code: 'media-moved',
        severity: 'error',
        message: `tool result has an image or file part: ${r.label} takes only text in a tool message (repair moves it to a user message after the results)`,
      })
    if (r.systemTextOnly && m.role === 'system' && countParts(m, isMedia) > 0)
      problems.push({
        index: i,
        code: 'unsupported-part',
        severity: 'error',
        message: `system message has an image or file part: ${r.systemTextOnly}`,
      })
    if (
      r.ownReasoning &&
      m.role === 'assistant' &&
      m.thought !== undefined &&
      !ownThought(m, r.ownReasoning)
    )
      problems.push({
        index: i,
        code: 'thought-not-sendable',
        severity: 'warning',
        message: `reasoning from another format has no ${r.ownReasoning.noun} to go back in: it is not sent`,
      })
    // Gemini's and Responses' own rules judge a model turn that holds only reasoning.
    if (m.role === 'assistant' && r.judgesOwn?.(m)) continue
    if (isEmpty(m, r) || emptyList(m)) {
      problems.push({
        index: i,
        code: 'empty-content',
        severity: r.emptyRefused || m.role === 'assistant' || emptyList(m) ? 'error' : 'warning',
        message: `${m.role} message has no content`,
      })
    } else if (r.emptyTextPart && countParts(m, r.emptyTextPart) > 0) {
      problems.push({
        index: i,
        code: 'empty-text-part',
        severity: 'error',
        message: `${m.role} message has an empty text part (${r.label} refuses one)`,
      })
    } else if (
      r.blankIsEmpty &&
      (countParts(m, isBlank) > 0 ||
        (isCallOnly(m) && typeof m.content === 'string' && m.content !== '' && !hasText(m.content)))
    ) {
      problems.push({
        index: i,
        code: 'empty-text-part',
        severity: 'error',
        message: `${m.role} message has a text part that is empty or only white space`,
      })
    }
  }

  const limits = provider.requestLimits
  for (const [index, parts] of overRequestLimits(messages, limits))
    problems.push({
      index,
      code: 'over-request-limit',
      severity: 'error',
      message: `${parts.length} image or file part(s) of this message are over ${r.label}'s limits for one request (${describeLimits(limits ?? {})}): repair sends the oldest as a short text`,
    })
  PROVIDER_CHECKS[provider.name]?.(messages, problems, options)
  // A problem names ids and names as the messages hold them: never a credential in one.
  for (const p of problems) p.message = redactCredentials(p.message)
  return problems.sort((a, b) => a.index - b.index)
}

/** Problems that make the provider reject the request (`validate(...).errors` says the same). */
export function errorsOf(problems: readonly Problem[]): Problem[] {
  if (!Array.isArray(problems) || problems.some((p) => typeof p !== 'object' || p === null))
    throw new InvalidOptionError('problems', 'errorsOf expects the list validate returned')
  return problems.filter((p) => p.severity === 'error')
}
/** `validate` and `repair` take a list of messages and an options object, or a typed error says what they got. */
export function checkArguments(messages: unknown, options: unknown): void {
  requireMessages(messages)
  if (options === null || typeof options !== 'object')
    throw new InvalidOptionError('options', 'expected an object such as { provider }')
}

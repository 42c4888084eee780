import { redactCredentials } from './messages/credentials.js'

/**
 * Base class of every error this library throws on purpose. Its message goes through the
 * credential filter: an error may quote what it was given (a client's error with its API key,
 * a connection string, a message's text), and error messages end up in logs.
 */
export class ContextWindowError extends Error {
  override name = 'ContextWindowError'
  /**
   * `lead` is the library's own words before what is quoted (`option session: `), already
   * filtered piece by piece: read with the rest, a name such as `session:` would pass for a
   * credential's key and hide the words after it.
   */
  constructor(message?: string, options?: ErrorOptions, lead = '') {
    super(message === undefined ? undefined : lead + redactCredentials(message), options)
  }
}

export interface InputLocation {
  /** The file or source the input came from, when known. */
  source?: string
  /** Index of the message in the input list. */
  index?: number
  /** Dotted path of the offending field inside the message, e.g. `tool_calls.0.function.arguments`. */
  field?: string
}

/** Input that does not describe a valid message list: names where and what. */
export class InvalidInputError extends ContextWindowError {
  override name = 'InvalidInputError'
  readonly source: string | undefined
  readonly index: number | undefined
  readonly field: string | undefined
  readonly detail: string

  constructor(detail: string, location: InputLocation = {}) {
    super(detail, undefined, formatLocation(location))
    this.detail = redactCredentials(detail)
    this.source = location.source
    this.index = location.index
    this.field = location.field
  }

  /** The same error, with the file it came from named. */
  withSource(source: string): InvalidInputError {
    return sourced(this, source)
  }
}

/**
 * `withSource`, outside the class: a class that names itself in its own body is renamed by
 * bundlers (`class _InvalidInputError`), and Node prints an error by its class's name.
 */
function sourced(e: InvalidInputError, source: string): InvalidInputError {
  return new InvalidInputError(e.detail, { source, index: e.index, field: e.field })
}

function formatLocation({ source, index, field }: InputLocation): string {
  const parts: string[] = []
  if (source) parts.push(redactCredentials(source))
  if (index !== undefined) parts.push(`message ${index}`)
  if (field) parts.push(`field ${redactCredentials(field)}`)
  return parts.length ? `${parts.join(', ')}: ` : ''
}

/** An option that is out of range or of the wrong type. */
export class InvalidOptionError extends ContextWindowError {
  override name = 'InvalidOptionError'
  constructor(
    readonly option: string,
    detail: string,
  ) {
    super(detail, undefined, `option ${redactCredentials(option)}: `)
  }
}

/**
 * A model id of no provider the model table knows (an id of a known provider that is not
 * listed gets conservative figures instead): say what it is with `registerModel`, or pass
 * `budget`, `reserve` and a `counter` to the fit.
 */
export class UnknownModelError extends InvalidOptionError {
  override name = 'UnknownModelError'
  /** `shown`: the id as the message may show it (the thrower takes credentials out; errors.ts is below the filter). */
  constructor(
    readonly model: string,
    shown: string = model,
  ) {
    // A long id is shown cut: the message never carries a whole pasted value.
    const id = JSON.stringify(shown.length > 80 ? `${shown.slice(0, 80)}…` : shown)
    super(
      'model',
      `unknown model ${id}: describe it once with registerModel({ id: ${id}, provider, contextWindow, maxOutputTokens, tokenizer }), or pass budget, reserve and a counter`,
    )
  }
}

/**
 * Exact counting needs an encoding's rank table, and this runtime has no synchronous way to
 * load it: `await loadEncoding(name)` once before counting.
 */
export class EncodingNotLoadedError extends ContextWindowError {
  override name = 'EncodingNotLoadedError'
  constructor(readonly encoding: string) {
    super(
      `encoding ${encoding} is not loaded: call \`await loadEncoding(${JSON.stringify(encoding)})\` before counting exactly (in browsers and workers it loads asynchronously)`,
    )
  }
}

export interface OverflowNumbers {
  /** Tokens the mandatory part needs (system preamble, newest turn, tools, reserve). */
  required: number
  /** Tokens available. */
  budget: number
  /** Where the required tokens go. */
  breakdown: Record<string, number>
}

/** Even the part that must be sent does not fit the budget. */
export class ContextOverflowError extends ContextWindowError {
  override name = 'ContextOverflowError'
  readonly required: number
  readonly budget: number
  readonly breakdown: Record<string, number>

  constructor(what: string, numbers: OverflowNumbers) {
    const parts = Object.entries(numbers.breakdown)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')
    // "the system prompt and the newest turn need", "the whole history needs".
    const verb = / and /.test(what) ? 'need' : 'needs'
    super(
      `${what} ${verb} ${numbers.required} tokens but the budget is ${numbers.budget}` +
        (parts ? ` (${parts})` : ''),
    )
    this.required = numbers.required
    this.budget = numbers.budget
    this.breakdown = numbers.breakdown
  }
}

/** A saved state or component config that cannot be loaded. */
export class InvalidStateError extends ContextWindowError {
  override name = 'InvalidStateError'
}

/**
 * A strategy returned a plan that could not be sent as it is: an item that is not one, a
 * message named twice, out of order or out of range, a tool exchange cut apart, a message
 * of its own that is not a valid plain message, the system prompt, newest user message or
 * newest message left out, or a message it wrote that the provider refuses (empty, reasoning
 * only, a call id twice). Nothing is sent from it.
 */
export class InvalidPlanError extends ContextWindowError {
  override name = 'InvalidPlanError'
  constructor(
    readonly strategy: string,
    readonly item: number | undefined,
    detail: string,
  ) {
    super(
      `strategy ${strategy} returned a plan ${item === undefined ? '' : `whose item ${item} `}${detail}`,
    )
  }
}

/**
 * A provider's counting endpoint failed or did not answer in time (`timedOut`), and the counter
 * was asked not to fall back to its estimate.
 */
export class CountingEndpointError extends ContextWindowError {
  override name = 'CountingEndpointError'
  constructor(
    readonly provider: string,
    override readonly cause: unknown,
    readonly timedOut = false,
  ) {
    super(
      `${provider}'s counting endpoint failed: ${cause instanceof Error ? cause.message : String(cause)}`,
    )
  }
}

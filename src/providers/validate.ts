import { InvalidInputError, InvalidOptionError } from '../errors.js'
import { requireMessages } from '../messages/check.js'
import { redactCredentials } from '../messages/credentials.js'
import type {
  AssistantMessage,
  Content,
  ContentPart,
  Message,
  ToolCall,
  ToolMessage,
} from '../messages/message.js'
import { type Unit, unitsOf } from '../messages/units.js'
import { describeValue } from '../options-check.js'
import { PROVIDER_CHECKS } from './checks.js'
import type { Problem, ProblemCode, ResponsesRuleOptions, ValidateOptions } from './problems.js'
import type { Provider } from './provider.js'
import { describeLimits, overRequestLimits, withoutMedia } from './request-limits.js'
import { PROVIDER_RULES, providerRules } from './table.js'
import type { MessageRules, ProviderRules } from './types.js'

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
    const first = messages[unit.start] as Message
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

  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Message
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

/**
 * No content a provider counts: a thought or a refusal is not content (OpenAI chat needs
 * `content` unless there are tool calls; Anthropic sends neither), and where white space is
 * no text (Anthropic) a text of only white space is not either. Without `rules`, the shared
 * reading (OpenAI chat's).
 */
export function isEmpty(m: Message, rules?: MessageRules): boolean {
  if (m.role === 'tool') return false
  if (m.role === 'assistant' && m.toolCalls?.length) return false
  // In the Responses API reasoning is an item of its own; its rules say when it may go. A
  // refusal is sent there too, as a refusal part.
  if (
    m.role === 'assistant' &&
    rules?.reasoningIsContent &&
    (m.thought !== undefined || !!m.refusal)
  )
    return false
  return !hasContent(m.content, rules?.blankIsEmpty === true)
}

function hasContent(content: Content | undefined, blankIsEmpty: boolean): boolean {
  if (content === undefined) return false
  if (typeof content === 'string') return blankIsEmpty ? hasText(content) : content.length > 0
  for (const part of content) {
    if (part.type !== 'text') return true
    if (blankIsEmpty ? hasText(part.text) : part.text.length > 0) return true
  }
  return false
}

const NON_SPACE = /\S/
function hasText(text: string): boolean {
  return NON_SPACE.test(text)
}

type PartTest = (p: ContentPart) => boolean

/** How many parts of a message `test` picks (none of a string content). */
function countParts(m: Message, test: PartTest): number {
  if (m.content === undefined || typeof m.content === 'string') return 0
  let n = 0
  for (const p of m.content) if (test(p)) n++
  return n
}

/** The message without the parts `test` picks. */
function withoutParts(m: Message, test: PartTest): Message {
  const parts = (m.content as Exclude<Content, string>).filter((p) => !test(p))
  return { ...m, content: parts } as Message
}

/** Image and file parts. */
const isMedia: PartTest = (p) => p.type !== 'text'

/** Anthropic refuses a text block that is empty or only white space, even beside other blocks. */
const isBlank: PartTest = (p) => p.type === 'text' && !hasText(p.text)

/** Problems that make the provider reject the request (`validate(...).errors` says the same). */
export function errorsOf(problems: readonly Problem[]): Problem[] {
  if (!Array.isArray(problems) || problems.some((p) => typeof p !== 'object' || p === null))
    throw new InvalidOptionError('problems', 'errorsOf expects the list validate returned')
  return problems.filter((p) => p.severity === 'error')
}

export interface RepairResult {
  messages: Message[]
  /** Input indices removed, with the problem that removed them. */
  removed: { index: number; code: ProblemCode }[]
  /** Input indices kept in a changed form (unanswered tool calls taken out of them). */
  changed: { index: number; code: ProblemCode }[]
  /** For each returned message, its index in the input. */
  origin: number[]
}

/** Where `repairUnit` writes: a `RepairResult`, or a history index's own columns. */
export type RepairSink = Omit<RepairResult, 'origin'> & { origin: { push(index: number): void } }

/**
 * Returns a list the provider accepts: orphaned results and unanswered calls are taken out
 * (an assistant message keeps its text when it has some), and for Anthropic the history
 * starts at its first user message and a reused or ill-formed call id is renamed in the call
 * and its results. The input is not modified.
 */
export function repair(messages: readonly Message[], options: ValidateOptions = {}): RepairResult {
  checkArguments(messages, options)
  return repairFor(messages, rulesOf(options.provider))
}

/** `repair` for the provider the core holds. */
export function repairFor(messages: readonly Message[], provider: ProviderRules): RepairResult {
  const out: RepairResult = { messages: [], removed: [], changed: [], origin: [] }
  const state = repairState(provider)
  state.drop = provider.messages.removals?.(messages)
  for (const unit of unitsOf(messages)) repairUnit(messages, unit, state, out)
  withinRequestLimits(out, provider)
  return out
}

/**
 * Images and files over the request's limits (Anthropic's 100 images, ...) are sent as a
 * short text each, oldest first: no message is lost, and the newest media, which the reply
 * is most likely about, stay.
 */
function withinRequestLimits(out: RepairResult, provider: ProviderRules): void {
  for (const [k, parts] of overRequestLimits(out.messages, provider.requestLimits)) {
    out.messages[k] = withoutMedia(out.messages[k] as Message, parts, provider.messages.label)
    const index = out.origin[k] ?? -1
    if (!out.changed.some((c) => c.index === index))
      out.changed.push({ index, code: 'over-request-limit' })
  }
}

/** What repair carries from one unit to the next, so a growing history is repaired unit by unit. */
export interface RepairState {
  readonly rules: MessageRules
  usedIds: Set<string>
  needUser: boolean
  /** Units the provider's own rules take out, by the input index of their first message. */
  drop?: ReadonlyMap<number, ProblemCode> | undefined
}

export function repairState(provider: ProviderRules): RepairState {
  return { rules: provider.messages, usedIds: new Set(), needUser: provider.userFirst }
}

/** Whether a provider's repair goes unit by unit from the start (`repairUnit` with no `drop` map). */
export function repairsByUnit(provider: ProviderRules): boolean {
  return provider.messages.removals === undefined
}

/**
 * Repairs one unit of `messages` (as `repair` does), appending to `out`. Returns the call ids
 * it added to `state.usedIds`, so a caller can undo the unit when it grows.
 */
export function repairUnit(
  messages: readonly Message[],
  unit: Unit,
  state: RepairState,
  out: RepairSink,
): string[] {
  const { removed, changed } = out
  const r = state.rules
  const strictIds = r.callId
  const push = (m: Message, index: number) => {
    out.messages.push(m)
    out.origin.push(index)
  }
  const { usedIds } = state
  const added: string[] = []
  // Only Anthropic's rules read the ids used so far: for others the set stays empty.
  const use = (id: string) => {
    if (!strictIds || usedIds.has(id)) return
    usedIds.add(id)
    added.push(id)
  }
  /** Images and files taken out of this unit's tool results, sent after them as a user message. */
  const moved: { at: number; from: ToolMessage; media: ContentPart[] }[] = []
  const pushMoved = () => {
    const first = moved[0]
    if (!first) return
    push(movedMedia(moved), first.at)
  }
  /** The message as it may be sent (blank text parts taken out for Anthropic), or undefined when nothing sendable is left. */
  const sendable = (k: number): Message | undefined => {
    const input = messages[k] as Message
    let m = input
    let code: ProblemCode = 'empty-text-part'
    // OpenAI (chat and Responses) takes only text and refusal parts from the assistant.
    if (r.assistantMedia && assistantMedia(m) > 0) {
      m = withoutParts(m, isMedia)
      code = 'unsupported-part'
    }
    // OpenAI chat and Anthropic's system prompt take only text: there is no user turn to
    // move a system message's image to that would keep its place and authority.
    if (r.systemTextOnly && m.role === 'system' && countParts(m, isMedia) > 0) {
      m = withoutParts(m, isMedia)
      code = 'unsupported-part'
    }
    // OpenAI chat takes only text in a tool message: its text stays, its images and files
    // go in a user message right after the results of the exchange (`pushMoved`).
    if (r.toolResultTextOnly && m.role === 'tool' && countParts(m, isMedia) > 0) {
      const parts = m.content as ContentPart[]
      moved.push({ at: k, from: m, media: parts.filter((p) => p.type !== 'text') })
      const text = parts.filter((p) => p.type === 'text')
      m = { ...m, content: text.length ? text : '' }
      code = 'media-moved'
    }
    // Gemini and Responses send reasoning as parts or items of their own: their rules judge
    // it. Reasoning from another format has none to go in: it is not sent, so not counted.
    if (r.ownReasoning && m.role === 'assistant' && m.thought !== undefined) {
      if (ownThought(m, r.ownReasoning)) {
        if (m !== input) changed.push({ index: k, code })
        return m
      }
      m = withoutThought(m)
      code = 'thought-not-sendable'
    }
    let cleaned =
      r.blankIsEmpty && countParts(m, isBlank) > 0
        ? withoutParts(m, isBlank)
        : r.emptyTextPart && countParts(m, r.emptyTextPart) > 0
          ? withoutParts(m, r.emptyTextPart)
          : m
    // An empty part list is refused by both: a tool result keeps its place with empty text.
    // Anthropic sends text beside calls as a text block: blank, it goes and the calls stay.
    if (
      r.blankIsEmpty &&
      isCallOnly(cleaned) &&
      typeof cleaned.content === 'string' &&
      cleaned.content !== '' &&
      !hasText(cleaned.content)
    ) {
      cleaned = withoutContent(cleaned as AssistantMessage)
      code = 'empty-content'
    }
    if (emptyList(cleaned) && cleaned.role === 'tool') {
      cleaned = { ...cleaned, content: '' }
      code = 'empty-content'
    }
    if (emptyList(cleaned) || (isEmpty(cleaned, r) && (r.emptyRefused || m.role === 'assistant'))) {
      // A reply that held only an image, or only reasoning it cannot send, goes as an empty
      // one would, for that reason.
      removed.push({
        index: k,
        code:
          code === 'unsupported-part' || code === 'thought-not-sendable' ? code : 'empty-content',
      })
      return undefined
    }
    if (cleaned !== input) changed.push({ index: k, code })
    return cleaned
  }
  const dropCode = state.drop?.get(unit.start)
  if (dropCode && unit.kind !== 'system') {
    for (let k = unit.start; k < unit.end; k++) removed.push({ index: k, code: dropCode })
    return added
  }
  if (unit.kind === 'system') {
    for (let k = unit.start; k < unit.end; k++) {
      const m = sendable(k)
      if (m) push(m, k)
    }
    return added
  }
  if (unit.kind === 'orphan') {
    removed.push({
      index: unit.start,
      code: state.needUser ? 'first-not-user' : 'orphan-tool-result',
    })
    return added
  }
  const first = sendable(unit.start)
  if (!first) {
    // Nothing left to send: its results (if any) go with it, as orphans.
    for (let k = unit.start + 1; k < unit.end; k++)
      removed.push({ index: k, code: 'orphan-tool-result' })
    return added
  }
  if (state.needUser && first.role !== 'user') {
    // The messages before the first user message go, whatever else is wrong with them.
    removed.push({ index: unit.start, code: 'first-not-user' })
    for (let k = unit.start + 1; k < unit.end; k++)
      removed.push({ index: k, code: 'first-not-user' })
    if (first !== messages[unit.start]) changed.pop()
    return added
  }
  state.needUser = false
  if (unit.kind === 'message' || first.role !== 'assistant') {
    push(first, unit.start)
    return added
  }
  const rest = (k: number): Message => (k === unit.start ? first : (sendable(k) as Message))
  const calls0 = first.toolCalls ?? []
  // The common case: every call answered, ids distinct and (where it matters) unused.
  if (
    unit.complete &&
    distinct(calls0) &&
    (!strictIds || calls0.every((c) => !usedIds.has(c.id) && strictIds.test(c.id)))
  ) {
    for (const c of calls0) use(c.id)
    for (let k = unit.start; k < unit.end; k++) push(rest(k), k)
    pushMoved()
    return added
  }
  const answered = new Set<string>()
  for (let k = unit.start + 1; k < unit.end; k++) {
    const m = messages[k]
    if (m?.role === 'tool') answered.add(m.toolCallId)
  }
  const inMessage = new Set<string>()
  const renamed = new Map<string, string>()
  const calls: ToolCall[] = []
  let code: ProblemCode | undefined
  for (const c of first.toolCalls ?? []) {
    if (inMessage.has(c.id)) {
      code = 'duplicate-tool-call-id'
      continue
    }
    inMessage.add(c.id)
    if (!answered.has(c.id)) {
      code = 'missing-tool-result'
      continue
    }
    const reused = usedIds.has(c.id)
    if (strictIds && (reused || !strictIds.test(c.id))) {
      const id = freshId(c.id, usedIds)
      renamed.set(c.id, id)
      calls.push({ ...c, id })
      code ??= reused ? 'duplicate-tool-call-id' : 'invalid-tool-call-id'
    } else {
      calls.push(c)
    }
    use(calls[calls.length - 1]?.id as string)
  }
  if (code === undefined) {
    for (let k = unit.start; k < unit.end; k++) push(rest(k), k)
    pushMoved()
    return added
  }
  const { toolCalls: _dropped, ...plain } = first
  // A Gemini step that lost its first call keeps its thought signature on the first call left.
  const keptCalls = r.keepCalls ? r.keepCalls(first.toolCalls ?? [], calls) : calls
  const head: Message = keptCalls.length ? { ...plain, toolCalls: keptCalls } : plain
  if (calls.length === 0 && isEmpty(head, r)) {
    if (first !== messages[unit.start]) changed.pop()
    removed.push({ index: unit.start, code })
    for (let k = unit.start + 1; k < unit.end; k++)
      removed.push({ index: k, code: 'orphan-tool-result' })
    return added
  }
  push(head, unit.start)
  changed.push({ index: unit.start, code })
  for (let k = unit.start + 1; k < unit.end; k++) {
    const m = messages[k] as Message
    const id = m.role === 'tool' ? renamed.get(m.toolCallId) : undefined
    if (m.role === 'tool' && id !== undefined) {
      push({ ...(rest(k) as Extract<Message, { role: 'tool' }>), toolCallId: id }, k)
      changed.push({ index: k, code })
    } else {
      push(rest(k), k)
    }
  }
  pushMoved()
  return added
}

/** Content `[]`, refused by both ("expected an array with minimum length 1"); beside tool calls it is no text, sent as none. */
function emptyList(m: Message): boolean {
  return Array.isArray(m.content) && m.content.length === 0 && !isCallOnly(m)
}

/** Reasoning the provider can take back: a Responses reasoning item, a Gemini thought part. */
function ownThought(
  m: AssistantMessage,
  { key, slot }: NonNullable<MessageRules['ownReasoning']>,
): boolean {
  const layout = m.providerMetadata?.[key]?.layout
  return Array.isArray(layout) && layout.some((s) => (s as { t?: unknown })?.t === slot)
}

function withoutThought(m: AssistantMessage): AssistantMessage {
  const { thought: _thought, ...rest } = m
  return rest
}

function isCallOnly(m: Message): boolean {
  return m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0
}

function withoutContent(m: AssistantMessage): Message {
  const { content: _content, ...rest } = m
  return rest
}

const MOVED_KINDS = ['Images', 'Files', 'Images and files'] as const

/**
 * The user message that carries the images and files taken out of a run of OpenAI tool
 * results, each group after a line saying which call returned it.
 */
function movedMedia(moved: readonly { from: ToolMessage; media: ContentPart[] }[]): Message {
  const content: ContentPart[] = []
  for (const { from, media } of moved) {
    const what = media.every((p) => p.type === 'image')
      ? MOVED_KINDS[0]
      : media.every((p) => p.type === 'file')
        ? MOVED_KINDS[1]
        : MOVED_KINDS[2]
    const tool = from.toolName ? `${from.toolName} ` : ''
    content.push({ type: 'text', text: `${what} returned by ${tool}(call ${from.toolCallId}):` })
    content.push(...media)
  }
  return { role: 'user', content }
}

/**
 * Whether `text` is the line `repair` writes before the images and files it moved out of the
 * result of call `callId` (OpenAI chat), so a rewrite of that result can find them.
 */
export function isMovedMediaHeader(text: string, callId: string): boolean {
  return (
    text.endsWith(`(call ${callId}):`) &&
    MOVED_KINDS.some((what) => text.startsWith(`${what} returned by `))
  )
}

/**
 * OpenAI chat takes only text and refusal parts in an assistant message (HTTP 400 "Invalid
 * value: 'image_url'. Supported values are: 'text' and 'refusal'"), as does a Responses
 * output message (`output_text` and `refusal`): its image and file parts.
 */
function assistantMedia(m: Message): number {
  return m.role === 'assistant' ? countParts(m, isMedia) : 0
}

/**
 * A request with no message is refused by both providers ("at least one message is
 * required"), and Anthropic refuses one without a user message: when a history of
 * `inputLength` messages comes to that, say so instead of sending it.
 */
export function requireUserTurn(
  messages: readonly Message[],
  provider: ProviderRules,
  inputLength = messages.length,
): void {
  const r = provider.messages
  // An empty history gives an empty list: nothing was asked for yet.
  if (inputLength === 0) return
  // Responses histories follow their own rules (src/providers/openai-responses/rules.ts).
  if (r.needs === 'own') return
  // Anthropic and Gemini both need a user turn: Gemini refuses empty `contents`, and its
  // repair already makes the first turn a user's.
  if (r.needs === 'message') {
    if (messages.length > 0) return
    throw new InvalidInputError(
      'nothing to send: every message is empty or invalid for the provider',
      { field: 'messages' },
    )
  }
  for (const m of messages) if (m.role === 'user') return
  throw new InvalidInputError(
    `no user message to send: ${r.label} needs at least one (add one, or fit for openai)`,
    { field: 'role' },
  )
}

/** An id no call in the list uses yet, in the alphabet every API's call ids take. */
function freshId(id: string, used: ReadonlySet<string>): string {
  const base = id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call'
  if (!used.has(base) && base !== id) return base
  let n = 2
  while (used.has(`${base}_${n}`)) n++
  return `${base}_${n}`
}

function distinct(calls: readonly ToolCall[]): boolean {
  if (calls.length < 2) return true
  const seen = new Set<string>()
  for (const c of calls) {
    if (seen.has(c.id)) return false
    seen.add(c.id)
  }
  return true
}

/** `validate` and `repair` take a list of messages and an options object, or a typed error says what they got. */
function checkArguments(messages: unknown, options: unknown): void {
  requireMessages(messages)
  if (options === null || typeof options !== 'object')
    throw new InvalidOptionError('options', 'expected an object such as { provider }')
}

/** What `writtenFault` finds wrong with a message a strategy wrote. */
export type WrittenFault = 'empty' | 'thoughts-only' | 'blank-part'

/**
 * What the provider would refuse in one message a strategy wrote (a rewrite or a message of
 * its own; the view's messages were repaired already): `empty`, no content it sends where it
 * refuses that (OpenAI chat takes an empty user or system message); `thoughts-only`, an
 * assistant turn of reasoning and nothing else it sends (only Gemini takes one, with a thought
 * part of its own; Responses drops a reasoning item with nothing after it); `blank-part`, a
 * text part it refuses beside others (`withoutBlankParts` takes it out). Undefined: none.
 */
export function writtenFault(m: Message, r: MessageRules): WrittenFault | undefined {
  if (m.role === 'tool') return undefined
  const calls = isCallOnly(m)
  if (m.role === 'assistant' && !calls && m.thought !== undefined && !m.refusal) {
    if (!hasContent(m.content, r.blankIsEmpty === true)) {
      if (r.reasoningIsContent) return 'thoughts-only'
      if (!r.judgesOwn || r.judgesOwn(m)) return 'thoughts-only'
      return undefined
    }
  }
  if (m.role === 'assistant' && !calls && r.judgesOwn?.(m)) return 'empty'
  if (emptyList(m) || (isEmpty(m, r) && (r.emptyRefused || m.role === 'assistant'))) return 'empty'
  if (r.emptyTextPart && countParts(m, r.emptyTextPart) > 0) return 'blank-part'
  if (r.blankIsEmpty && countParts(m, isBlank) > 0) return 'blank-part'
  if (
    r.blankIsEmpty &&
    calls &&
    typeof m.content === 'string' &&
    m.content !== '' &&
    !hasText(m.content)
  )
    return 'blank-part'
  return undefined
}

/** The message without the text parts `writtenFault` calls `blank-part` (it keeps other content). */
export function withoutBlankParts(m: Message, r: MessageRules): Message {
  if (isCallOnly(m) && typeof m.content === 'string') return withoutContent(m as AssistantMessage)
  return withoutParts(m, (p) => (r.emptyTextPart?.(p) ?? false) || (!!r.blankIsEmpty && isBlank(p)))
}

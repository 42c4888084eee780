/** `repair`: the shared rules a provider refuses, mended (each API's differences read from its message rules), for a whole list or one unit at a time as a history grows. */
import type { ContentPart, Message, ToolCall, ToolMessage } from '../messages/message.js'
import { type Unit, unitsOf } from '../messages/units.js'
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
  withoutContent,
  withoutParts,
  withoutThought,
} from './message-tests.js'
import type { ProblemCode, ValidateOptions } from './problems.js'
import { distinct, freshId, movedMedia } from './repair-writes.js'
import { overRequestLimits, withoutMedia } from './request-limits.js'
import type { MessageRules, ProviderRules } from './types.js'
import { checkArguments, rulesOf } from './validate.js'

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
    const m = out.messages[k]
    if (m) out.messages[k] = withoutMedia(m, parts, provider.messages.label)
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
    if (
      r.toolResultTextOnly &&
      m.role === 'tool' &&
      Array.isArray(m.content) &&
      countParts(m, isMedia) > 0
    ) {
      const parts = m.content
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
      cleaned.role === 'assistant' &&
      isCallOnly(cleaned) &&
      typeof cleaned.content === 'string' &&
      cleaned.content !== '' &&
      !hasText(cleaned.content)
    ) {
      cleaned = withoutContent(cleaned)
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
    let kept = c
    if (strictIds && (reused || !strictIds.test(c.id))) {
      kept = { ...c, id: freshId(c.id, usedIds) }
      renamed.set(c.id, kept.id)
      code ??= reused ? 'duplicate-tool-call-id' : 'invalid-tool-call-id'
    }
    calls.push(kept)
    use(kept.id)
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
    const m = messages[k]
    if (!m) continue
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

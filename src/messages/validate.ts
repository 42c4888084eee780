import { contentText, type Message, type ToolCall } from './message.js'
import {
  emptyForGemini,
  type GeminiProblemCode,
  geminiRemovals,
  geminiRules,
} from './rules/gemini.js'
import {
  mayBeRemovedForResponses,
  type ResponsesProblemCode,
  type ResponsesRuleOptions,
  responsesRemovals,
  responsesRules,
} from './rules/openai-responses.js'
import { toUnits, type Unit } from './units.js'

export type Provider = 'openai' | 'anthropic' | 'openai-responses' | 'gemini'
export const PROVIDERS = ['openai', 'anthropic', 'openai-responses', 'gemini'] as const

/** A message after which the provider's own `repair` takes something out (`afterOthers`: a non-system message came before it). */
export function needsProviderRepair(provider: Provider, m: Message, afterOthers: boolean): boolean {
  if (provider === 'openai-responses') return mayBeRemovedForResponses(m, afterOthers)
  if (provider === 'gemini') return emptyForGemini(m)
  return false
}

/** Providers whose history must open with a user turn after the system prompt. */
export function needsUserFirst(provider: Provider): boolean {
  return provider === 'anthropic' || provider === 'gemini'
}

export type ProblemCode =
  | 'orphan-tool-result'
  | 'missing-tool-result'
  | 'duplicate-tool-call-id'
  | 'first-not-user'
  | 'consecutive-same-role'
  | 'system-not-leading'
  | 'empty-content'
  | 'invalid-tool-call-id'
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

/** Anthropic's pattern for tool_use ids. */
const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/

export interface ValidateOptions extends ResponsesRuleOptions {
  /** Whose rules to check. Default `openai`. */
  provider?: Provider
}

/**
 * Checks a message list against a provider's rules. Never throws on a bad history: every
 * problem is reported with the index of the message it concerns.
 */
export function validate(messages: readonly Message[], options: ValidateOptions = {}): Problem[] {
  const provider = options.provider ?? 'openai'
  const problems: Problem[] = []
  const seenIds = new Map<string, number>()

  for (const unit of toUnits(messages)) {
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
          severity: sameMessage || provider === 'anthropic' ? 'error' : 'warning',
          message: sameMessage
            ? `tool call id ${call.id} is used twice in this message`
            : `tool call id ${call.id} was already used at message ${earlier}`,
        })
      } else {
        seenIds.set(call.id, unit.start)
      }
      inMessage.add(call.id)
      if (provider === 'anthropic' && !ANTHROPIC_ID.test(call.id)) {
        problems.push({
          index: unit.start,
          code: 'invalid-tool-call-id',
          severity: 'error',
          message: `tool call id ${JSON.stringify(call.id)} must match ${ANTHROPIC_ID}`,
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
    if (isEmpty(m)) {
      problems.push({
        index: i,
        code: 'empty-content',
        severity:
          provider === 'anthropic' || provider === 'gemini' || m.role === 'assistant'
            ? 'error'
            : 'warning',
        message: `${m.role} message has no content`,
      })
    }
  }

  if (provider === 'anthropic') anthropicRules(messages, problems)
  if (provider === 'openai-responses') responsesRules(messages, problems, options)
  if (provider === 'gemini') geminiRules(messages, problems)
  return problems.sort((a, b) => a.index - b.index)
}

function isEmpty(m: Message): boolean {
  if (m.role === 'tool') return false
  if (m.role === 'assistant' && (m.toolCalls?.length || m.refusal || m.thought)) return false
  if (m.content === undefined) return true
  if (typeof m.content === 'string') return m.content.length === 0
  return m.content.length === 0
}

function anthropicRules(messages: readonly Message[], problems: Problem[]): void {
  let i = 0
  while (i < messages.length && messages[i]?.role === 'system') i++
  const firstIndex = i
  const first = messages[firstIndex]
  if (first && first.role !== 'user') {
    problems.push({
      index: firstIndex,
      code: 'first-not-user',
      severity: 'error',
      message: `the first message after the system prompt must be from the user, not ${first.role}`,
    })
  }
  let previousSide: 'user' | 'assistant' | undefined
  for (let k = firstIndex; k < messages.length; k++) {
    const m = messages[k] as Message
    if (m.role === 'system') {
      problems.push({
        index: k,
        code: 'system-not-leading',
        severity: 'warning',
        message: 'a system message after the start is sent as user text',
      })
      continue
    }
    // Tool results travel inside a user turn; consecutive results are one turn.
    const side = m.role === 'assistant' ? 'assistant' : 'user'
    const continuesToolTurn =
      m.role === 'tool' || (m.role === 'user' && messages[k - 1]?.role === 'tool')
    if (side === previousSide && !continuesToolTurn) {
      problems.push({
        index: k,
        code: 'consecutive-same-role',
        severity: 'warning',
        message: `two ${side} turns in a row are merged into one`,
      })
    }
    previousSide = side
  }
}

/** Problems that make the provider reject the request. */
export function errorsOf(problems: readonly Problem[]): Problem[] {
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

/**
 * Returns a list the provider accepts: orphaned results and unanswered calls are taken out
 * (an assistant message keeps its text when it has some), and for Anthropic the history
 * starts at its first user message and a reused or ill-formed call id is renamed in the call
 * and its results. The input is not modified.
 */
export function repair(messages: readonly Message[], options: ValidateOptions = {}): RepairResult {
  const out: RepairResult = { messages: [], removed: [], changed: [], origin: [] }
  const state = repairState(options)
  state.drop =
    options.provider === 'openai-responses'
      ? responsesRemovals(messages)
      : options.provider === 'gemini'
        ? geminiRemovals(messages)
        : undefined
  for (const unit of toUnits(messages)) repairUnit(messages, unit, state, out)
  return out
}

/** What repair carries from one unit to the next, so a growing history is repaired unit by unit. */
export interface RepairState {
  readonly strictIds: boolean
  usedIds: Set<string>
  needUser: boolean
  /** Units the provider's own rules take out, by the input index of their first message. */
  drop?: ReadonlyMap<number, ProblemCode> | undefined
}

export function repairState(options: ValidateOptions = {}): RepairState {
  const strictIds = options.provider === 'anthropic'
  return { strictIds, usedIds: new Set(), needUser: strictIds || options.provider === 'gemini' }
}

/** Providers whose repair is unit by unit from the start (`repairUnit` with no `drop` map). */
export function repairsByUnit(provider: Provider): boolean {
  return provider === 'openai' || provider === 'anthropic'
}

/**
 * Repairs one unit of `messages` (as `repair` does), appending to `out`. Returns the call ids
 * it added to `state.usedIds`, so a caller can undo the unit when it grows.
 */
export function repairUnit(
  messages: readonly Message[],
  unit: Unit,
  state: RepairState,
  out: RepairResult,
): string[] {
  const { removed, changed } = out
  const push = (m: Message, index: number) => {
    out.messages.push(m)
    out.origin.push(index)
  }
  const { usedIds, strictIds } = state
  const added: string[] = []
  // Only Anthropic's rules read the ids used so far: for others the set stays empty.
  const use = (id: string) => {
    if (!strictIds || usedIds.has(id)) return
    usedIds.add(id)
    added.push(id)
  }
  const first = messages[unit.start] as Message
  const dropCode = state.drop?.get(unit.start)
  if (dropCode && unit.kind !== 'system') {
    for (let k = unit.start; k < unit.end; k++) removed.push({ index: k, code: dropCode })
    return added
  }
  if (unit.kind === 'system') {
    for (let k = unit.start; k < unit.end; k++) push(messages[k] as Message, k)
    return added
  }
  if (state.needUser && first.role !== 'user') {
    for (let k = unit.start; k < unit.end; k++) removed.push({ index: k, code: 'first-not-user' })
    return added
  }
  state.needUser = false
  if (unit.kind === 'orphan') {
    removed.push({ index: unit.start, code: 'orphan-tool-result' })
    return added
  }
  if (unit.kind === 'message' || first.role !== 'assistant') {
    push(first, unit.start)
    return added
  }
  const calls0 = first.toolCalls ?? []
  // The common case: every call answered, ids distinct and (where it matters) unused.
  if (
    unit.complete &&
    distinct(calls0) &&
    (!strictIds || calls0.every((c) => !usedIds.has(c.id) && ANTHROPIC_ID.test(c.id)))
  ) {
    for (const c of calls0) use(c.id)
    for (let k = unit.start; k < unit.end; k++) push(messages[k] as Message, k)
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
    if (strictIds && (reused || !ANTHROPIC_ID.test(c.id))) {
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
    for (let k = unit.start; k < unit.end; k++) push(messages[k] as Message, k)
    return added
  }
  if (calls.length === 0 && contentText(first.content).length === 0) {
    removed.push({ index: unit.start, code })
    return added
  }
  const { toolCalls: _dropped, ...rest } = first
  push(calls.length ? { ...rest, toolCalls: calls } : rest, unit.start)
  changed.push({ index: unit.start, code })
  for (let k = unit.start + 1; k < unit.end; k++) {
    const m = messages[k] as Message
    const id = m.role === 'tool' ? renamed.get(m.toolCallId) : undefined
    if (m.role === 'tool' && id !== undefined) {
      push({ ...m, toolCallId: id }, k)
      changed.push({ index: k, code })
    } else {
      push(m, k)
    }
  }
  return added
}

/** An id no call in the list uses yet, in Anthropic's alphabet. */
function freshId(id: string, used: ReadonlySet<string>): string {
  const base = id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call'
  if (!used.has(base) && base !== id) return base
  let n = 2
  while (used.has(`${base}_${n}`)) n++
  return `${base}_${n}`
}

function distinct(calls: readonly ToolCall[]): boolean {
  for (let a = 1; a < calls.length; a++) {
    for (let b = 0; b < a; b++) if (calls[a]?.id === calls[b]?.id) return false
  }
  return true
}

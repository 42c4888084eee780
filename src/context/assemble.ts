import { ContextOverflowError, InvalidPlanError } from '../errors.js'
import { messageIssue } from '../messages/check.js'
import type { Message } from '../messages/message.js'
import { inToolExchange } from '../messages/units.js'
import { overRequestLimits, withoutMedia } from '../providers/request-limits.js'
import type { ProviderRules } from '../providers/types.js'
import { requireUserTurn, withoutBlankParts, writtenFault } from '../providers/validate.js'
import { itemTokens, mandatoryOverflow, trimOldest } from '../strategies/budget.js'
import type { PlanItem, View } from '../strategies/types.js'
import { countOnce } from '../tokens/counter.js'
import { copyPlain } from './copy.js'
import type { Setup } from './options.js'
import type { Prepared } from './prepare.js'
import type { FitResult, MessageFate } from './result.js'

/** Where each kept input message was placed, and why it changed if it did, by result. */
const placements = new WeakMap<
  FitResult,
  readonly { from: number; position: number; reason: unknown }[]
>()

/**
 * The input index and output position of each message a fit sent as it came in, without
 * building the account of every input message: as long as what was kept, not as the history.
 */
export function unchangedOf(result: FitResult): { from: number; position: number }[] | undefined {
  return placements.get(result)?.filter((p) => !p.reason)
}

export function planMessage(view: View, item: PlanItem): Message {
  return 'synthetic' in item ? item.synthetic : (item.message ?? view.message(item.index))
}

/**
 * The plan within the budget by the rule every strategy that does not count is held to
 * (`trimOldest`, the ledger's too), or the overflow error when what must stay does not fit.
 */
function enforceBudget(view: View, plan: PlanItem[]): PlanItem[] {
  const { items, tokens } = trimOldest(view, plan, view.available)
  if (tokens > view.available) {
    let system = 0
    for (const item of items)
      if ('index' in item && view.kind(view.unitOf(item.index)) === 'system')
        system += itemTokens(view, item)
    throw mandatoryOverflow(view, tokens, system)
  }
  return items
}

/**
 * Anthropic: after the system prompt the first message is the user's. Leading items up to
 * the first user message go; they are whole units, since a unit never starts with a result.
 */
export function alignToUser(view: View, plan: PlanItem[]): PlanItem[] {
  let k = 0
  while (k < plan.length && roleOf(view, plan[k]) === 'system') k++
  let j = k
  while (j < plan.length && roleOf(view, plan[j]) !== 'user') j++
  if (j === k || j === plan.length) return plan
  return [...plan.slice(0, k), ...plan.slice(j)]
}

function roleOf(view: View, item: PlanItem | undefined): Message['role'] | undefined {
  return item && planMessage(view, item).role
}

/**
 * A plan with no user message cannot be sent to Anthropic: the newest user message goes in,
 * in its place in time (the strategy's own choice is otherwise left alone).
 */
function withUserTurn(view: View, plan: PlanItem[]): PlanItem[] {
  if (plan.some((item) => planMessage(view, item).role === 'user')) return plan
  const u = view.newestUser()
  if (u < 0) return plan
  const { start } = view.unit(u)
  const at = plan.findIndex((item) => 'index' in item && item.index > start)
  const items = view.items(u, u + 1)
  return at < 0 ? [...plan, ...items] : [...plan.slice(0, at), ...items, ...plan.slice(at)]
}

/**
 * For a strategy that does not count: the oldest optional units go until the plan fits. For
 * Anthropic the newest user turn is put back if the budget took the only one, and the list
 * then starts at a user message.
 */
function withinBudget(view: View, plan: PlanItem[], userFirst: boolean): PlanItem[] {
  if (!userFirst) return enforceBudget(view, plan)
  const fitted = enforceBudget(view, withUserTurn(view, plan))
  // The budget may have taken the only user message (a placeholder): bring the newest back.
  const again = enforceBudget(view, withUserTurn(view, fitted))
  return alignToUser(view, again)
}

/** A message of the output: a fresh copy, or (`share`) the frozen history object itself. */
function outputCopy(m: Message, share: boolean): Message {
  return share && Object.isFrozen(m) ? m : copyPlain(m)
}

/** The plan as sent: the budget enforced for strategies that do not count, then the provider's order rules. */
function arrange(view: View, chosen: PlanItem[], setup: Setup): PlanItem[] {
  const plan = checkPlan(
    view,
    chosen,
    setup.strategy.name,
    setup.provider,
    setup.strategy.ownWindow === true,
  )
  const enforce = !setup.strategy.budgetAware && Number.isFinite(view.available)
  const userFirst = setup.provider.userFirst
  const sent = enforce
    ? withinBudget(view, plan, userFirst)
    : userFirst
      ? alignToUser(view, withUserTurn(view, plan))
      : plan
  return withinRequestLimits(view, sent, setup.provider)
}

/**
 * The images and files over the provider's per-request limits (Anthropic's 100 images, ...)
 * go as a short text each, oldest first, once the plan is final: no message is lost, the
 * newest media stay, and the plan only gets smaller, so it stays within the budget.
 */
function withinRequestLimits(view: View, plan: PlanItem[], rules: ProviderRules): PlanItem[] {
  if (!rules.requestLimits) return plan
  // Most requests carry no image or file: found without making anything.
  let media = false
  for (const item of plan) {
    const content = planMessage(view, item).content
    if (Array.isArray(content) && content.some((part) => part.type !== 'text')) {
      media = true
      break
    }
  }
  if (!media) return plan
  const over = overRequestLimits(
    plan.map((item) => planMessage(view, item)),
    rules.requestLimits,
  )
  if (over.size === 0) return plan
  const out = [...plan]
  for (const [k, parts] of over) {
    const item = out[k] as PlanItem
    const message = withoutMedia(planMessage(view, item), parts, rules.messages.label)
    out[k] =
      'synthetic' in item
        ? { ...item, synthetic: message }
        : { index: item.index, message, reason: 'media-omitted' }
  }
  return out
}

/** A budget-aware strategy left room only it knew about: any leftover overflow is reported as such. */
function checkTotal(view: View, setup: Setup, messageTokens: number): void {
  if (messageTokens > view.available && Number.isFinite(view.available)) {
    const { tools, reserve, priming } = view.overhead
    throw new ContextOverflowError(`the ${setup.strategy.name} selection`, {
      required: messageTokens + tools + reserve + priming,
      budget: view.budget,
      breakdown: { messages: messageTokens, tools, reserve, priming },
    })
  }
}

/**
 * Whether the counts another process stored for the messages this plan sends are what the
 * counter counts. Each is counted here the first time it is to be sent, then taken off
 * `given` (the index's own set), so a message is checked once, not on every call.
 */
export function storedCountsHold(
  prepared: Prepared,
  plan: PlanItem[],
  given: Set<number>,
): boolean {
  if (prepared.givenCounts.size === 0) return true
  const { view, origin } = prepared
  for (const item of plan) {
    if (!('index' in item) || item.message) continue
    const from = origin[item.index] ?? -1
    if (!prepared.givenCounts.has(from)) continue
    if (countOnce(view.counter, planMessage(view, item)) !== view.messageTokens(item.index))
      return false
    given.delete(from)
  }
  return true
}

/**
 * Only what is sent and its tokens (what `ChatContext.getMessages` needs): the same
 * arrangement as `assemble`, without the account of every input message.
 */
export function sendable(
  prepared: Prepared,
  plan: PlanItem[],
  setup: Setup,
  options: { share?: boolean } = {},
): { messages: Message[]; tokens: number } {
  const { view } = prepared
  const share = options.share === true
  const messages: Message[] = []
  let tokens = 0
  for (const item of arrange(view, plan, setup)) {
    tokens += itemTokens(view, item)
    messages.push(outputCopy(planMessage(view, item), share))
  }
  checkTotal(view, setup, tokens)
  requireUserTurn(messages, setup.provider, prepared.inputLength)
  return { messages, tokens }
}

/**
 * The plan made into a result: the budget enforced for strategies that do not count, the
 * provider's ordering rules applied, each message copied once, and an account of every input
 * message (built when first read, so a fit costs what it keeps, not what the history holds).
 */
export function assemble(
  prepared: Prepared,
  plan: PlanItem[],
  setup: Setup,
  options: { share?: boolean } = {},
): FitResult {
  const { view, origin, removed, rewritten } = prepared
  const budgetAware = setup.strategy.budgetAware
  const items = arrange(view, plan, setup)

  const messages: Message[] = []
  const inserted: FitResult['inserted'] = []
  const changed: FitResult['changed'] = []
  /** Input index, position and change reason of each kept input message, in output order. */
  const placed: {
    from: number
    position: number
    reason: FitResult['changed'][number]['reason'] | undefined
  }[] = []
  const share = options.share === true
  const placedFrom = new Set<number>()
  let messageTokens = 0
  for (const item of items) {
    // A count stored by another process is believed for selection when plausible, but the
    // account says what is really sent: such a message is counted again, the rest were
    // counted once, by the index.
    messageTokens +=
      'index' in item && !item.message && !prepared.givenCounts.has(origin[item.index] ?? -1)
        ? view.messageTokens(item.index)
        : view.counter.countMessage(planMessage(view, item))
    const position = messages.length
    const message = outputCopy(planMessage(view, item), share)
    messages.push(message)
    if ('synthetic' in item) {
      const replaces = item.replaces.map((k) => origin[k] ?? -1)
      inserted.push({
        position,
        message,
        replaces,
        reason: item.reason,
        ...(item.facts && { facts: copyPlain(item.facts) }),
      })
      continue
    }
    const from = origin[item.index] ?? -1
    // One input message sent as two (a tool result whose images move to a user message after
    // the results): it is placed, and reported changed, once, where it first appears.
    if (placedFrom.has(from)) continue
    placedFrom.add(from)
    const reason = item.reason ?? rewritten.get(from)
    placed.push({ from, position, reason })
    if (reason) changed.push({ index: from, position, reason })
  }
  checkTotal(view, setup, messageTokens)
  requireUserTurn(messages, setup.provider, prepared.inputLength)
  const kept = [...new Set(placed.map((p) => p.from))].sort((a, b) => a - b)

  // What the strategy chose but the budget then took out is dropped for the budget.
  const chosen = new Set<number>()
  if (!budgetAware)
    for (const item of plan) if ('index' in item) chosen.add(origin[item.index] ?? -1)
  const n = prepared.inputLength
  const inputTokens = prepared.inputTokens
  let fates: MessageFate[] | undefined
  const account = (): MessageFate[] => {
    if (fates) return fates
    const out: MessageFate[] = new Array(n)
    for (let i = 0; i < n; i++) {
      const gone = removed.get(i)
      out[i] = {
        fate: gone?.fate ?? 'dropped',
        tokens: inputTokens[i] ?? 0,
        reason: gone?.reason ?? (budgetAware || chosen.has(i) ? 'budget' : 'strategy'),
      }
    }
    for (const ins of inserted)
      for (const k of ins.replaces) {
        const f = out[k]
        if (f) Object.assign(f, { fate: 'summarized', reason: ins.reason })
      }
    for (const p of placed) {
      const f = out[p.from]
      if (!f) continue
      f.position = p.position
      if (p.reason) {
        f.fate = 'changed'
        f.reason = p.reason
      } else {
        f.fate = 'kept'
        delete f.reason
      }
    }
    fates = out
    return out
  }
  let dropped: number[] | undefined
  const priming = setup.counter.replyPriming
  const result = {
    messages,
    kept,
    inserted,
    changed,
    tokens: {
      messages: messageTokens,
      tools: setup.toolTokens,
      priming,
      reserve: setup.reserve,
      total: messageTokens + setup.toolTokens + priming,
    },
    budget: Number.isFinite(setup.budget) ? setup.budget : null,
    strategy: setup.strategy.name,
    ...(setup.notes && { notes: [...setup.notes] }),
  } as FitResult
  placements.set(result, placed)
  Object.defineProperties(result, {
    fates: {
      enumerable: true,
      configurable: true,
      get: account,
      set(v: MessageFate[]) {
        fates = v
      },
    },
    dropped: {
      enumerable: true,
      configurable: true,
      get() {
        if (dropped) return dropped
        const keptSet = new Set(kept)
        const out: number[] = []
        for (let i = 0; i < n; i++) if (!keptSet.has(i)) out.push(i)
        dropped = out
        return out
      },
      set(v: number[]) {
        dropped = v
      },
    },
  })
  return result
}

/**
 * A plan is sent only as the rules allow, whoever wrote the strategy: each item names a
 * message of the view once, in order, and takes a tool exchange whole (a call never without
 * its results); a message the strategy wrote is a valid message with no tool call and is not
 * a tool result, and stands for messages of the view; what every request carries is in it
 * (`checkMandatory`), and what the strategy wrote is a message the provider takes
 * (`checkWritten`). Anything else is an `InvalidPlanError` naming the strategy and the item.
 * Returns the plan, or a copy with the blank text parts the provider refuses taken out of
 * the messages the strategy wrote. Linear in the plan.
 */
function checkPlan(
  view: View,
  plan: unknown,
  strategy: string,
  rules: ProviderRules,
  ownWindow = false,
): PlanItem[] {
  const fail = (item: number | undefined, detail: string): never => {
    throw new InvalidPlanError(strategy, item, detail)
  }
  if (!Array.isArray(plan)) fail(undefined, `that is not a list (${typeof plan})`)
  const items = plan as unknown[]
  const n = view.messages.length
  let last = -1
  // The unit of the item before, where it ends, and the items taken from it since `from`:
  // items come in order, so the next item is most often in it or in the unit after, and only
  // a jump is searched for. A
  // tool exchange the plan takes whole and unchanged was whole in the repaired view; only one
  // taken in part or rewritten is checked call by call.
  let u = -1
  let unitEnd = 0
  let exchange = false
  let from = 0
  let taken = 0
  let replaced = false
  /** A synthetic item after a message of the exchange being taken, and before the next one. */
  let inside = -1
  const settle = (to: number) => {
    if (exchange && (replaced || taken !== unitEnd - view.start(u)))
      checkExchange(view, items, from, to, u, fail)
  }
  for (let k = 0; k < items.length; k++) {
    const item = items[k] as Record<string, unknown> | null
    if (!item || typeof item !== 'object')
      fail(k, `that is not a plan item (${JSON.stringify(item)})`)
    const it = item as Record<string, unknown>
    if ('synthetic' in it) {
      const m = it.synthetic as Message
      const issue = messageIssue(m)
      if (issue)
        fail(k, `whose message is not valid: ${issue.path.join('.') || 'role'}: ${issue.message}`)
      if (inToolExchange(m))
        fail(k, 'whose message carries a tool call or a tool result, which nothing answers')
      const replaces = it.replaces
      if (!Array.isArray(replaces) || replaces.some((r) => !Number.isInteger(r) || r < 0 || r >= n))
        fail(k, `whose replaces is not a list of messages of the view (0 to ${n - 1})`)
      if (exchange && inside < 0) inside = k
      continue
    }
    const index = it.index
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= n)
      fail(k, `names message ${JSON.stringify(index)}, not one of the view's (0 to ${n - 1})`)
    const i = index as number
    if (i === last) fail(k, `names message ${i} twice`)
    if (i < last) fail(k, `names message ${i} after message ${last} (out of order)`)
    last = i
    if (it.message !== undefined) {
      const issue = messageIssue(it.message)
      if (issue) fail(k, `replaces message ${i} with one that is not valid: ${issue.message}`)
    }
    // Nothing goes between a tool call and its results.
    if (inside >= 0 && i < unitEnd) fail(inside, 'that goes between a tool call and its results')
    inside = -1
    if (i >= unitEnd) {
      settle(k)
      u = u + 1 < view.unitCount && i < view.end(u + 1) ? u + 1 : view.unitOf(i)
      unitEnd = view.end(u)
      exchange = view.kind(u) === 'exchange'
      from = k
      taken = 0
      replaced = false
    }
    taken++
    if (it.message !== undefined) {
      replaced = true
      // Outside an exchange a rewrite brings no call or result: nothing would answer it.
      const m = it.message as Message
      if (!exchange && inToolExchange(m))
        fail(k, 'whose message carries a tool call or a tool result, which nothing answers')
    }
  }
  settle(items.length)
  checkMandatory(view, items as PlanItem[], ownWindow, fail)
  return checkWritten(view, items as PlanItem[], rules, fail)
}

type Fail = (item: number | undefined, detail: string) => never

/**
 * Every request carries the system prompt (each system message of the preamble), the newest
 * user message and the newest message, named by the plan (rewritten, it may be) or replaced
 * by a message of the strategy's own (a summary standing for it). A plan that leaves one out
 * is wrong, and an error, not a repair: putting it back would spend budget the strategy
 * counted for something else. A strategy whose own rule leaves out the newest messages
 * (`ownWindow`: AutoGen's buffered and head-and-tail windows) is asked only for the system
 * prompt. Items are in order: one walk.
 */
function checkMandatory(
  view: View,
  plan: readonly PlanItem[],
  ownWindow: boolean,
  fail: Fail,
): void {
  const n = view.messages.length
  if (n === 0) return
  const { preamble, lastUser } = view.mandatory()
  // Positions only; what each is called is written only for an error (this runs every call).
  const need: number[] = []
  if (preamble >= 0) for (let i = view.start(preamble); i < view.end(preamble); i++) need.push(i)
  const newestUser = lastUser >= 0 ? view.start(lastUser) : -1
  if (!ownWindow) {
    if (newestUser >= 0) need.push(newestUser)
    if (need[need.length - 1] !== n - 1) need.push(n - 1)
  }
  let replaced: Set<number> | undefined
  let p = 0
  for (const i of need) {
    while (p < plan.length) {
      const item = plan[p] as PlanItem
      if ('index' in item && item.index >= i) break
      p++
    }
    const at = plan[p]
    if (at && 'index' in at && at.index === i) continue
    // Not named: a message of the strategy's own may stand for it (a summary).
    if (!replaced) {
      replaced = new Set()
      for (const item of plan)
        if ('synthetic' in item) for (const r of item.replaces) replaced.add(r)
    }
    if (replaced.has(i)) continue
    const what =
      i === n - 1 && i !== newestUser
        ? `the newest message (${i})`
        : i === newestUser
          ? `the newest user message (${i})`
          : `the system message ${i}`
    fail(undefined, `that leaves out ${what}, which every request carries`)
  }
}

/**
 * What the strategy wrote (a rewrite or a message of its own) is a message the provider
 * takes. An empty one, or an assistant turn of reasoning only, is an error: the plan is
 * wrong, and leaving the message out would lose it. A blank text part beside other content
 * is repaired: the part goes, the message stays. A call id twice is an error where the
 * provider refuses it (in one message always; across the request for Anthropic, whose ids
 * must also match its pattern): which result answers which call is the strategy's to say.
 */
function checkWritten(view: View, plan: PlanItem[], rules: ProviderRules, fail: Fail): PlanItem[] {
  const r = rules.messages
  let out = plan
  let calls = false
  for (let k = 0; k < plan.length; k++) {
    const item = plan[k] as PlanItem
    const m = 'synthetic' in item ? item.synthetic : item.message
    if (!m) continue
    if (m.role === 'assistant' && m.toolCalls?.length) calls = true
    const fault = writtenFault(m, r)
    if (fault === 'empty') fail(k, `whose ${m.role} message is empty, which ${r.label} refuses`)
    if (fault === 'thoughts-only')
      fail(k, `whose assistant message holds only reasoning, which ${r.label} does not take`)
    if (fault === 'blank-part') {
      if (out === plan) out = [...plan]
      const clean = withoutBlankParts(m, r)
      out[k] = 'synthetic' in item ? { ...item, synthetic: clean } : { ...item, message: clean }
    }
  }
  if (!calls) return out
  const seen = new Set<string>()
  for (let k = 0; k < plan.length; k++) {
    const m = planMessage(view, plan[k] as PlanItem)
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue
    const here = new Set<string>()
    for (const c of m.toolCalls) {
      if (here.has(c.id)) fail(k, `whose message carries call id ${c.id} twice`)
      if (r.callId && seen.has(c.id))
        fail(k, `whose call id ${c.id} is already used in the request, which ${r.label} refuses`)
      if (r.callId && !r.callId.test(c.id))
        fail(
          k,
          `whose call id ${JSON.stringify(c.id)} ${r.label} refuses (it must match ${r.callId})`,
        )
      here.add(c.id)
      seen.add(c.id)
    }
  }
  return out
}

/** A call goes with its result: the calls and the results items `from..to` send of exchange `u` match. */
function checkExchange(
  view: View,
  items: readonly unknown[],
  from: number,
  to: number,
  u: number,
  fail: (item: number | undefined, detail: string) => never,
): void {
  const calls = new Set<string>()
  const results = new Set<string>()
  for (let k = from; k < to; k++) {
    const it = items[k] as { index?: unknown; message?: Message }
    if (typeof it.index !== 'number') continue
    const sent = it.message ?? view.message(it.index)
    if (sent.role === 'assistant') for (const c of sent.toolCalls ?? []) calls.add(c.id)
    else if (sent.role === 'tool') results.add(sent.toolCallId)
  }
  const lost = [...calls].filter((id) => !results.has(id))
  const orphaned = [...results].filter((id) => !calls.has(id))
  if (lost.length || orphaned.length)
    fail(
      undefined,
      `that cuts the tool exchange at messages ${view.start(u)} to ${view.end(u) - 1} apart (${lost.length ? `call ${lost[0]} without its result` : `result ${orphaned[0]} without its call`})`,
    )
}

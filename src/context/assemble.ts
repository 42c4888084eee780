import { ContextOverflowError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { requireUserTurn } from '../providers/repair-writes.js'
import { overRequestLimits, withoutMedia } from '../providers/request-limits.js'
import type { ProviderRules } from '../providers/types.js'
import { itemTokens, mandatoryOverflow, trimOldest } from '../strategies/budget.js'
import type { PlanItem, View } from '../strategies/types.js'
import { countOnce } from '../tokens/counter.js'
import { copyPlain } from './copy.js'
import type { Setup } from './options/options.js'
import { checkPlan, planMessage } from './plan-check.js'
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

import { InvalidPlanError } from '../errors.js'
import { messageIssue } from '../messages/check.js'
import type { Message } from '../messages/message.js'
import { inToolExchange } from '../messages/units.js'
import { withoutBlankParts, writtenFault } from '../providers/message-tests.js'
import type { ProviderRules } from '../providers/types.js'
import type { PlanItem, View } from '../strategies/types.js'

/** The message a plan item sends: the view's, as is or replaced, or one the strategy wrote. */
export function planMessage(view: View, item: PlanItem): Message {
  return 'synthetic' in item ? item.synthetic : (item.message ?? view.message(item.index))
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
export function checkPlan(
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

/** An Agents SDK run's input items fitted: grouped into units that go or stay whole, numbered for recall, the newest kept. */

import type { FitResult } from '../context/fit.js'
import type { Message } from '../messages/message.js'
import { fieldsOf } from '../providers/codec-kit.js'
import { numberAs, placesOfOwners } from '../recall/numbering.js'
import { decodeItemsWithCodec, type ItemsMemo, plainItems } from './responses-items.js'
import {
  type AdapterOptions,
  fitWithFeedback,
  frameworkTools,
  knownModel,
  originalsOrEncoded,
  providerFromId,
} from './shared.js'

/** The parts of an Agents SDK agent the filter reads. */
export interface AgentLike {
  model?: unknown
  tools?: readonly unknown[]
}

export function modelName(model: unknown): string | undefined {
  if (typeof model === 'string') return model || undefined
  const { model: name } = fieldsOf(model)
  return typeof name === 'string' ? name : undefined
}

export function fitItems<I>(
  items: readonly I[],
  instructions: string | undefined,
  options: AdapterOptions,
  agent: AgentLike | undefined,
  memo: ItemsMemo,
  sink?: { sent?: FitResult },
): I[] {
  return fitGroups(items, instructions, options, agent, memo, sink).flat()
}

/** `fitItems`, as the units that go or stay whole: a message, an output, a model turn. */
export function fitGroups<I>(
  items: readonly I[],
  instructions: string | undefined,
  options: AdapterOptions,
  agent: AgentLike | undefined,
  memo: ItemsMemo,
  sink?: { sent?: FitResult },
): I[][] {
  const { messages, sources, owner } = decodeItemsWithCodec(items, memo)
  const input: Message[] = instructions
    ? [{ role: 'system', content: instructions }, ...messages]
    : messages
  // Numbered as the caller's items (a model turn by its first item); the instructions apart.
  numberAs(input, itemPlaces(sources, owner, instructions ? 1 : 0))
  const name = modelName(agent?.model)
  const modelId = options.model ?? knownModel(name)
  const result = fitWithFeedback(
    input,
    {
      ...options,
      // Responses rules unless a Claude model says otherwise: reasoning travels with what follows it.
      provider:
        options.provider ??
        (providerFromId(name) === 'anthropic' ? 'anthropic' : 'openai-responses'),
      ...(modelId !== undefined && { model: modelId }),
    },
    frameworkTools(agent?.tools),
  )
  if (sink) sink.sent = result
  const groups = sources.map((g) => g.map((k) => items[k] as I))
  // Changed messages are written in the items' own dialect: the API's `call_id` or the Agents SDK's `callId`.
  const agents = !items.some((i) => i !== null && typeof i === 'object' && 'call_id' in i)
  return originalsOrEncoded(result, groups, instructions ? [-1, ...owner] : owner, (m) => [
    m.flatMap((x) => plainItems(x, agents)) as I[],
  ])
}

/**
 * The caller's number of each fit input message read from items: the index of the first item
 * of its group (-1 for the `lead` messages the adapter put first, and for a group that sends
 * no item).
 */
export function itemPlaces(
  sources: readonly (readonly number[])[],
  owner: readonly number[],
  lead = 0,
): number[] {
  return [...new Array<number>(lead).fill(-1), ...placesOfOwners(owner, 0, (g) => sources[g]?.[0])]
}

type Loose = { type?: unknown; callId?: unknown; call_id?: unknown }
const callIdOf = (i: Loose) => i.callId ?? i.call_id
const isOutput = (i: Loose) => /_(output|result)$/.test(String(i.type))

/**
 * The newest units that hold at most `limit` items, whole: a model turn is never cut, so no
 * item goes without the reasoning item it came with; an output goes only with its call. The
 * newest compaction item stands for the history before it: when it falls before the cut it
 * is kept, first, and counts in the limit.
 */
export function newestUnits<I>(groups: readonly I[][], limit: number): I[] {
  const at = (g: I[]) => g as Loose[]
  let compaction = -1
  groups.forEach((g, k) => {
    if (at(g).some((i) => i?.type === 'compaction')) compaction = k
  })
  const pick = (room: number, from: number): number => {
    let start = groups.length
    let used = 0
    for (let g = groups[start - 1]; g && start > from && used + g.length <= room; ) {
      used += g.length
      g = groups[--start - 1]
    }
    return start
  }
  let start = pick(limit, 0)
  let lead: I[][] = []
  const kept = compaction < start ? groups[compaction] : undefined
  if (kept) {
    start = kept.length <= limit ? pick(limit - kept.length, compaction + 1) : groups.length
    if (kept.length <= limit) lead = [kept]
  }
  const chosen = [...lead, ...groups.slice(start)]
  const called = new Set<unknown>()
  for (const g of chosen)
    for (const i of at(g))
      if (i && !isOutput(i) && callIdOf(i) !== undefined) called.add(callIdOf(i))
  return chosen
    .filter((g) => !at(g).every((i) => i && isOutput(i) && !called.has(callIdOf(i))))
    .flat()
}

import type { Fact, FactKind } from '../messages/fact.js'
import { extractFacts } from '../messages/facts.js'
import { JsonDeep, JsonNumber, JsonObject, type JsonValue, readJson } from '../messages/json.js'
import { contentText, type Message } from '../messages/message.js'
import { requireArgument, requireOptions } from '../options-check.js'
import type { TokenCounter } from '../tokens/counter.js'
import { whenReady } from './scorers.js'
import type { PlanItem, Strategy, View } from './types.js'

export interface LedgerOptions {
  /** Share of the room beside the system prompt kept for the ledger, in (0, 1), at most half of what the newest turn leaves. Default 0.5. */
  share?: number
  /** Tokens the ledger may use at most. Default 1,000. */
  maxTokens?: number
  /** `tool-calls`: only for a history with tool calls (an agent's). Default `always`. */
  when?: 'always' | 'tool-calls'
}

/** Dropped messages read for the ledger, nearest the kept ones first, in times its size. */
const WINDOW = 16
/** ... and never more than this many tokens of them. */
const WINDOW_MAX = 6_000

/** Chosen by leave-one-out on τ-bench (`npm run eval:agent`). */
export const LEDGER_SHARE = 0.5

export const LEDGER_HEADING =
  '[Earlier messages were left out to fit the context window. Facts they held, verbatim, by message and source:]'

/** Values under these keys, or of these shapes, are credentials: a ledger never repeats them. */
const SECRET_KEY =
  /pass(word|wd|phrase)?|secret|token|api_?key|auth|credential|private|cvv|cvc|ssn|pin$/i
const SECRET_VALUE =
  /^(?:sk-[\w-]{8,}|sk_(?:live|test)_\w+|gh[pousr]_\w{20,}|xox[abpr]-[\w-]+|AKIA[0-9A-Z]{16}|AIza[\w-]{30,}|eyJ[\w-]+\.[\w-]+\.[\w-]+|-----BEGIN)/

/** A value written after a credential's name (`password: X`, `my pin is X`, `token=X`) or after `Bearer`. */
const SECRET_IN_TEXT =
  /\b(?:pass(?:word|wd|phrase)?|secrets?|token|api[_ -]?key|auth\w*|credentials?|private[_ -]?key|cvv|cvc|ssn|pin)["']?\s*(?:is|[:=])\s*["']?(?:(?:Bearer|Basic)\s+)?([^\s"',;]+)|\b(?:Bearer|Basic)\s+([^\s"',;]+)/gi

/** The texts of a message the facts are read from: its content, and a call's arguments. */
function textsOf(m: Message): string[] {
  const texts = [contentText(m.content)]
  if (m.role === 'assistant') for (const c of m.toolCalls ?? []) texts.push(c.arguments)
  return texts
}

/** A key, by its words, naming a credential (`accessToken`, `x-api-key`; not `passengers`). */
const SECRET_PARENT =
  /(?:^|_)(?:pass(?:word|wd|phrase|code)?|secrets?|tokens?|api_?keys?|auth(?:orization)?|credentials?|private_?keys?|cvv|cvc|ssn|pin)(?:_|$)/
const secretParent = (key: string) =>
  SECRET_PARENT.test(
    key
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/[-\s]/g, '_')
      .toLowerCase(),
  )

/**
 * Every value under a credential's key, at any depth (`{"credentials": {"value": X}}`), as
 * written: a number is its source text, as the facts list it.
 */
function secretLeaves(value: JsonValue, under: boolean, out: string[], depth = 0): void {
  if (depth > 64) return
  if (typeof value === 'string') {
    if (under) out.push(value)
  } else if (value instanceof JsonNumber) {
    if (under) out.push(value.raw)
  } else if (value instanceof JsonDeep) {
    if (under) out.push(value.text)
  } else if (Array.isArray(value)) {
    for (const v of value) secretLeaves(v, under, out, depth + 1)
  } else if (value instanceof JsonObject) {
    for (const [k, v] of value.entries) {
      const secret = under || secretParent(k)
      if (under) out.push(k)
      secretLeaves(v, secret, out, depth + 1)
    }
  }
}

/** The credentials a message holds, by their key or the words before them: none is listed. */
function secretsOf(m: Message): string[] {
  const out: string[] = []
  for (const text of textsOf(m)) {
    if (!SECRET_KEY.test(text) && !/Bearer|Basic/.test(text)) continue
    for (const match of text.matchAll(SECRET_IN_TEXT)) out.push((match[1] ?? match[2]) as string)
    const t = text.trim()
    // Not JSON: its text was read above.
    const json = /^[[{]/.test(t) ? readJson(t, 64) : undefined
    if (json !== undefined) secretLeaves(json, false, out)
  }
  return out
}

/** Ranked before in the ledger when room is short: what a tool call needs verbatim. */
const KIND_RANK: Record<FactKind, number> = {
  id: 0,
  email: 1,
  date: 2,
  amount: 3,
  url: 4,
  path: 5,
  quantity: 6,
  tool: 7,
}

interface Sourced {
  fact: Fact
  /** View position of the first dropped message holding it (where it came from). */
  at: number
  /** View position of the newest dropped message holding it (ranks newer first). */
  newest: number
  /** Dropped messages holding it: a value the conversation came back to matters more. */
  count: number
  /** Order of first appearance. */
  order: number
}

/** Facts of one message and their keys, computed once per message object. */
const factCache = new WeakMap<Message, { facts: Fact[]; keys: string[] }>()

function factsOf(m: Message, toolName: string | undefined): { facts: Fact[]; keys: string[] } {
  let entry = factCache.get(m)
  if (!entry) {
    const named = m.role === 'tool' && !m.toolName && toolName ? { ...m, toolName } : m
    const secrets = secretsOf(m)
    const facts = extractFacts([named]).filter(
      (f) =>
        f.kind !== 'tool' &&
        !(f.label && SECRET_KEY.test(f.label)) &&
        !SECRET_VALUE.test(f.value) &&
        !secrets.some((s) => s.includes(f.value)),
    )
    entry = { facts, keys: facts.map((f) => `${f.kind}\u0000${f.value}`) }
    factCache.set(m, entry)
  }
  return entry
}

/** Where a message came from, as the ledger names it. */
function sourceOf(m: Message, toolName: string | undefined): string {
  if (m.role === 'tool') return m.toolName ?? toolName ?? 'tool result'
  if (m.role === 'assistant' && m.toolCalls?.length)
    return `call ${m.toolCalls.map((c) => c.name).join(', ')}`
  return m.role
}

/**
 * The ledger's text for the facts of the dropped view positions, within `maxTokens`:
 * identifiers first, newer before older, each fact once, listed under the place and source
 * of the message that first held it. `undefined` when nothing fits or there is nothing.
 */
export function ledgerText(
  view: View,
  dropped: readonly number[],
  maxTokens: number,
): Made | undefined {
  // Only the dropped messages nearest the kept ones, up to WINDOW times the ledger's size:
  // the work per call does not grow with the history.
  let from = dropped.length
  let volume = 0
  const limit = Math.min(WINDOW * maxTokens, WINDOW_MAX)
  while (from > 0 && volume < limit) volume += view.messageTokens(dropped[--from] as number)
  const window = dropped.slice(from)
  // The same window and size give the same ledger: a stable cut asks for it again each call.
  let key = `${maxTokens}:${window[0]}`
  for (const i of window) key += `:${idOf(view.message(i))}@${placeOf(view, i)}`
  return ledgerCache(view.counter, key, () => buildLedger(view, window, maxTokens))
}

/** The place in the caller's history of view position `i` (the view's own when it does not say). */
const placeOf = (view: View, i: number): number => view.origin?.[i] ?? i

/** Objects numbered once, so a cache key can name a message. */
const ids = new WeakMap<object, number>()
let nextId = 0
function idOf(o: object): number {
  let id = ids.get(o)
  if (id === undefined) {
    id = nextId++
    ids.set(o, id)
  }
  return id
}

/**
 * A bounded memo per counter (what a text costs depends on who counts it): `key` -> value,
 * made once, the oldest entry let go past `max`. A stable cut asks the same again each call.
 */
function memoPerCounter<V>(max: number) {
  const byCounter = new WeakMap<TokenCounter, Map<string, V>>()
  return (counter: TokenCounter, key: string, make: () => V): V => {
    let map = byCounter.get(counter)
    if (!map) {
      map = new Map()
      byCounter.set(counter, map)
    }
    if (map.has(key)) return map.get(key) as V
    const value = make()
    if (map.size >= max) map.delete(map.keys().next().value as string)
    map.set(key, value)
    return value
  }
}

/** Ledgers by window and size. */
const ledgerCache = memoPerCounter<Made | undefined>(64)

function buildLedger(view: View, window: readonly number[], maxTokens: number): Made | undefined {
  const seen = new Map<string, Sourced>()
  const sources = new Map<number, string>()
  const callNames = new Map<string, string>()
  for (const i of window) {
    const m = view.message(i)
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) callNames.set(c.id, c.name)
    const toolName = m.role === 'tool' ? callNames.get(m.toolCallId) : undefined
    const { facts, keys } = factsOf(m, toolName)
    if (facts.length === 0) continue
    // Numbered by its place in the caller's history, which a message keeps as the history grows.
    sources.set(i, `message ${placeOf(view, i) + 1}, ${sourceOf(m, toolName)}`)
    for (let f = 0; f < facts.length; f++) {
      const fact = facts[f] as Fact
      const key = keys[f] as string
      const before = seen.get(key)
      if (before) {
        before.newest = i
        before.count++
      } else seen.set(key, { fact, at: i, newest: i, count: 1, order: seen.size })
    }
  }
  if (seen.size === 0) return undefined
  const ranked = [...seen.values()].sort(
    (a, b) =>
      KIND_RANK[a.fact.kind] - KIND_RANK[b.fact.kind] ||
      Math.min(b.count, 3) - Math.min(a.count, 3) ||
      b.newest - a.newest,
  )
  const render = (chosen: Sourced[]): string => {
    const lines = [LEDGER_HEADING]
    let at = -1
    let label: string | undefined
    let line = ''
    for (const s of [...chosen].sort((a, b) => a.at - b.at || a.order - b.order)) {
      if (s.at !== at) {
        if (line) lines.push(line)
        at = s.at
        label = undefined
        line = `${sources.get(at)}:`
      } else line += ','
      // Values under one key in a row share it: `reservations 8JX2WO, NQNU5R`.
      line +=
        s.fact.label && s.fact.label !== label
          ? ` ${s.fact.label} ${s.fact.value}`
          : ` ${s.fact.value}`
      label = s.fact.label
    }
    if (line) lines.push(line)
    return lines.join('\n')
  }
  // Facts go in by rank while the sum of their pieces' counts fits (each piece counted once
  // per process); the text is then counted once, and trimmed in the rare case BPE merges
  // across pieces did not make it smaller.
  const counter = view.counter
  let total = headingTokens(counter)
  const opened = new Set<number>()
  let chosen: Sourced[] = []
  let misses = 0
  for (const s of ranked) {
    const cost =
      pieceTokens(counter, ` ${s.fact.label ?? ''} ${s.fact.value},`) +
      (opened.has(s.at) ? 0 : pieceTokens(counter, `\n${sources.get(s.at)}:`))
    if (total + cost > maxTokens) {
      // Full: a few smaller facts may still go in, not a scan of every one.
      if (++misses >= 16) break
      continue
    }
    total += cost
    opened.add(s.at)
    chosen.push(s)
  }
  while (chosen.length > 0) {
    const text = render(chosen)
    const made = ledgerMessage(counter, text)
    if (made.tokens <= maxTokens) return made
    chosen = chosen.slice(0, Math.floor(chosen.length * 0.9))
  }
  return undefined
}

/** A ledger: its message (one object per text, so the counter's own cache knows it) and tokens. */
interface Made {
  message: Message
  tokens: number
}

/** The ledger message for a text, kept for the last texts (a stable cut makes the same one each call). */
const ledgerMessages = memoPerCounter<Made>(64)
function ledgerMessage(counter: TokenCounter, text: string): Made {
  return ledgerMessages(counter, text, () => {
    const message: Message = { role: 'user', content: text }
    return { message, tokens: counter.countMessage(message) }
  })
}

/** A user message holding the heading alone, counted once per counter. */
const overheads = memoPerCounter<number>(1)
function headingTokens(counter: TokenCounter): number {
  return overheads(counter, LEDGER_HEADING, () =>
    counter.countMessage({ role: 'user', content: LEDGER_HEADING }),
  )
}

/** Tokens of a piece of ledger text, counted once per counter and text. */
const pieceCounts = memoPerCounter<number>(100_000)
function pieceTokens(counter: TokenCounter, text: string): number {
  return pieceCounts(counter, text, () => counter.countText(text))
}

/** The view positions a plan neither sends nor stands for, system messages aside. */
function droppedBy(view: View, plan: readonly PlanItem[]): number[] {
  const covered = new Uint8Array(view.messages.length)
  for (const item of plan) {
    if ('synthetic' in item) for (const k of item.replaces) covered[k] = 1
    else covered[item.index] = 1
  }
  const out: number[] = []
  const messages = view.messages
  for (let i = 0; i < covered.length; i++)
    if (!covered[i] && messages[i]?.role !== 'system') out.push(i)
  return out
}

/** Whether any unit is a tool exchange, newest first (an agent's history finds one at once). */
function hasToolCalls(view: View): boolean {
  for (let u = view.unitCount - 1; u >= 0; u--) if (view.kind(u) === 'exchange') return true
  return false
}

/** The plan with the ledger of what it drops after the system prompt, and the ledger's tokens (0: none). */
function withEntry(
  view: View,
  plan: PlanItem[],
  maxTokens: number,
): { plan: PlanItem[]; tokens: number } {
  const dropped = droppedBy(view, plan)
  const made = dropped.length > 0 ? ledgerText(view, dropped, maxTokens) : undefined
  if (!made) return { plan, tokens: 0 }
  const at = plan.findIndex(
    (item) => 'synthetic' in item || view.message(item.index).role !== 'system',
  )
  const ledger: PlanItem = {
    synthetic: made.message,
    replaces: dropped,
    reason: 'ledger',
  }
  return {
    plan: at < 0 ? [...plan, ledger] : [...plan.slice(0, at), ledger, ...plan.slice(at)],
    tokens: made.tokens,
  }
}

/** Tokens of what a plan sends. */
function planTokens(view: View, plan: readonly PlanItem[]): number {
  let total = 0
  for (const item of plan)
    total +=
      'synthetic' in item
        ? view.counter.countMessage(item.synthetic)
        : item.message
          ? view.counter.countMessage(item.message)
          : view.messageTokens(item.index)
  return total
}

/**
 * The view with `less` tokens fewer available: the inner strategy leaves the ledger its room.
 * The ledger is a user message right after the system prompt, so the kept history need not
 * open with a user turn of its own (a user-first provider's rule is met by the ledger; when no
 * ledger is written after all, assembly still holds the plan to the rule).
 */
function narrowed(view: View, less: number): View {
  // A view made by hand may not have `narrowed`: it is layered over instead.
  return (
    view.narrowed?.(less, true) ??
    (Object.create(view, {
      available: { value: view.available - less },
      userFirst: { value: false },
    }) as View)
  )
}

export function checkLedgerOptions(options: LedgerOptions): Required<LedgerOptions> {
  requireOptions(options, 'ledger', ['share', 'maxTokens', 'when'], {
    name: 'ledger',
    required: true,
  })
  const { share = LEDGER_SHARE, maxTokens = 1000, when = 'always' } = options
  requireArgument(
    typeof share === 'number' && share > 0 && share < 1,
    'ledger',
    'ledger.share',
    'a fraction in (0, 1)',
    share,
  )
  requireArgument(
    Number.isInteger(maxTokens) && maxTokens > 0,
    'ledger',
    'ledger.maxTokens',
    'a token count > 0',
    maxTokens,
  )
  requireArgument(
    when === 'always' || when === 'tool-calls',
    'ledger',
    'ledger.when',
    '"always" or "tool-calls"',
    when,
  )
  return { share, maxTokens, when }
}

/**
 * `inner` with a ledger of what it drops: the inner strategy selects within the room less
 * the ledger's share; the identifiers, dates, amounts and other facts of the messages it
 * left out are then listed in one user message, in place of them (after the system
 * prompt), each under the message (by its place) and source that held it, within that share. The ledger
 * depends only on what was dropped, so it changes when the cut moves and not otherwise.
 */
export function withLedger<S extends Strategy>(inner: S, options: LedgerOptions = {}): S {
  requireArgument(
    !!inner && typeof inner === 'object' && typeof (inner as Strategy).select === 'function',
    'withLedger',
    'strategy',
    'a strategy object such as tokenLimited()',
    inner,
  )
  const { share, maxTokens, when } = checkLedgerOptions(options)
  const select = (view: View): PlanItem[] | Promise<PlanItem[]> => {
    // Nothing is dropped for the budget when everything fits; an agent's history only, when asked.
    if (
      (inner.budgetAware && view.rangeTokens(0, view.unitCount) <= view.available) ||
      (when === 'tool-calls' && !hasToolCalls(view))
    )
      return inner.select(view)
    const m = view.mandatory()
    // Sized by the budget, not by this turn's newest messages, so it stays the same between
    // calls; never more than half the room the newest messages leave.
    const base = view.available - (m.preamble >= 0 ? view.unitSize(m.preamble) : 0)
    const size = Math.min(
      maxTokens,
      Math.floor(base * share),
      Math.floor((view.available - m.tokens) / 2),
    )
    if (!Number.isFinite(size) || size < 32) return inner.select(view)
    // A strategy that does not count drops by its own rule; the budget then comes after.
    if (!inner.budgetAware)
      return whenReady(inner.select(view), (plan) => withEntry(view, plan, size).plan)
    // The room the ledger did not use goes back to messages: the strategy selects again with
    // the ledger's real size, and the ledger of that (smaller) drop takes what room is left.
    return whenReady(inner.select(narrowed(view, size)), (first) => {
      const made = withEntry(view, first, size)
      // Worth a second selection only when a real share of the room is left.
      if (made.tokens === 0 || size - made.tokens < Math.max(32, size / 8)) return made.plan
      return whenReady(inner.select(narrowed(view, made.tokens)), (second) => {
        const room = Math.min(size, view.available - planTokens(view, second))
        const again = withEntry(view, second, room)
        return again.tokens > 0 ? again.plan : second
      }) as PlanItem[] | Promise<PlanItem[]>
    }) as PlanItem[] | Promise<PlanItem[]>
  }
  return { ...inner, select }
}

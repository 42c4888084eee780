// Pinned messages, checked by an oracle written here, apart from src/: for random histories,
// pins, budgets, strategies and entry points, every pinned message is in the output verbatim
// and in order, within the budget, or a ContextOverflowError is thrown, and it is thrown
// exactly when the system prompt, the pinned messages and the newest turn exceed the budget.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ChatContext,
  ContextOverflowError,
  type FitOptions,
  type FitResult,
  fit,
  fitAsync,
  type Message,
  type TokenCounter,
  validate,
} from '../src/index.js'

/** A counter of our own: 4 tokens a message, one per 4 characters of its text, calls included. */
const PRIMING = 3
function textOf(m: Message): string {
  const content =
    typeof m.content === 'string'
      ? m.content
      : (m.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('\n')
  const calls =
    m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => `${c.name}(${c.arguments})`) : []
  return [content, ...calls].join('\n')
}
const tokensOf = (m: Message) => 4 + Math.ceil(textOf(m).length / 4)
const counter: TokenCounter = {
  name: 'oracle-counter',
  exact: true,
  replyPriming: PRIMING,
  countText: (t) => Math.ceil(t.length / 4),
  countMessage: tokensOf,
  countMessages: (ms) => ms.reduce((n, m) => n + tokensOf(m), PRIMING),
  countTools: () => 0,
}

const WORDS = ['flight', 'refund', 'Lisbon', 'never', 'economy', 'HAT204', 'seat', 'under $600']
const sentence = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 30 })
  .map((w) => w.join(' '))

type Step =
  | { kind: 'user' | 'assistant'; text: string; pinned: boolean }
  | { kind: 'exchange'; calls: number; text: string; pinned: boolean }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('user' as const, 'assistant' as const),
    text: sentence,
    pinned: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('exchange' as const),
    calls: fc.integer({ min: 1, max: 2 }),
    text: sentence,
    pinned: fc.boolean(),
  }),
)

interface Case {
  history: Message[]
  /** Input indices chosen as pinned. */
  pinned: Set<number>
}

/**
 * A valid history for every provider: a system prompt, then turns opening with a user
 * message; an exchange is an assistant's calls and their results. Each step is pinned with
 * the chance its flag gives (one in five, below).
 */
function build(steps: Step[], chance: number[]): Case {
  const history: Message[] = [{ role: 'system', content: 'You book flights for the user.' }]
  const pinned = new Set<number>()
  let call = 0
  let needUser = true
  steps.forEach((s, k) => {
    const pin = s.pinned && (chance[k] ?? 1) < 0.25
    if (needUser || s.kind === 'user') {
      if (pin && s.kind === 'user') pinned.add(history.length)
      history.push({ role: 'user', content: s.text })
      needUser = false
      if (s.kind === 'user') return
    }
    if (s.kind === 'assistant') {
      if (pin) pinned.add(history.length)
      history.push({ role: 'assistant', content: s.text })
      return
    }
    if (s.kind === 'exchange') {
      const ids = Array.from({ length: s.calls }, () => `call_${call++}`)
      // Which message of the exchange is pinned: the call, or one of its results.
      const at = history.length + ((chance[k] ?? 0) * 100 < 10 ? 0 : 1)
      if (pin) pinned.add(at)
      history.push({
        role: 'assistant',
        toolCalls: ids.map((id) => ({ id, name: 'search', arguments: `{"q":"${id}"}` })),
      })
      for (const id of ids)
        history.push({ role: 'tool', toolCallId: id, toolName: 'search', content: s.text })
    }
  })
  return { history, pinned }
}

/** Units as the providers' rules make them: a tool call with its results is one. */
function unitsOf(h: readonly Message[]): [number, number][] {
  const out: [number, number][] = []
  for (let i = 0; i < h.length; ) {
    let j = i + 1
    const m = h[i] as Message
    if (m.role === 'assistant' && m.toolCalls?.length)
      while (j < h.length && h[j]?.role === 'tool') j++
    out.push([i, j])
    i = j
  }
  return out
}

/** What must be sent, by the rule the library documents, and its tokens with the reply priming. */
function required(c: Case, userFirst: boolean): { units: [number, number][]; tokens: number } {
  const units = unitsOf(c.history)
  const unitOf = (i: number) => units.findIndex(([a, b]) => a <= i && i < b)
  const must = new Set<number>([0, units.length - 1])
  for (let u = units.length - 1; u > 0; u--)
    if (c.history[(units[u] as [number, number])[0]]?.role === 'user') {
      must.add(u)
      break
    }
  const pinnedUnits = [...c.pinned].map(unitOf).filter((u) => u > 0)
  const oldest = Math.min(...pinnedUnits)
  // Under a user-first provider the oldest pinned unit brings the user turn before it.
  if (userFirst && pinnedUnits.length && c.history[units[oldest]?.[0] as number]?.role !== 'user') {
    let u = oldest - 1
    while (u > 0 && c.history[units[u]?.[0] as number]?.role !== 'user') u--
    if (u > 0) pinnedUnits.push(u)
  }
  for (const u of pinnedUnits) must.add(u)
  let tokens = PRIMING
  for (const u of must) {
    const [a, b] = units[u] as [number, number]
    for (let i = a; i < b; i++) tokens += tokensOf(c.history[i] as Message)
  }
  return { units: [...must].sort((x, y) => x - y).map((u) => units[u] as [number, number]), tokens }
}

/** Each pinned message (and the rest of its unit) in the output as it came in, in order. */
function sendsPinned(c: Case, out: readonly Message[], units: [number, number][]): string[] {
  const problems: string[] = []
  let at = 0
  const pinnedUnits = units.filter(([a, b]) => [...c.pinned].some((i) => a <= i && i < b))
  for (const [a, b] of pinnedUnits)
    for (let i = a; i < b; i++) {
      const want = JSON.stringify(c.history[i])
      let k = at
      while (k < out.length && JSON.stringify(out[k]) !== want) k++
      if (k === out.length) problems.push(`message ${i} is not sent verbatim after position ${at}`)
      else at = k + 1
    }
  return problems
}

type Entry = 'fit' | 'fitAsync' | 'ChatContext'
const STRATEGIES: FitOptions[] = [
  {},
  { stable: true },
  { dropFrom: 'middle' },
  { strategy: 'tokenLimited', ledger: false },
  { strategy: 'buffered', size: 3 },
  { strategy: 'headAndTail', head: 1, tail: 2 },
  { strategy: 'userTurns', maxTurns: 1 },
  { strategy: 'scoreBased' },
  { strategy: 'mostRelevant' },
  { strategy: 'mostRelevant', ledger: true },
  { strategy: 'summarizing', trigger: 0.5 },
  { strategy: 'unbounded' },
]

async function run(
  entry: Entry,
  history: Message[],
  options: FitOptions,
): Promise<{ messages: Message[]; result?: FitResult }> {
  const async = (options as { strategy?: string }).strategy === 'summarizing'
  if (entry === 'fit' && !async) {
    const result = fit(history, options)
    return { messages: result.messages, result }
  }
  if (entry === 'ChatContext') {
    const context = new ChatContext(options as never)
    await context.addMessages(history)
    return { messages: await context.getMessages() }
  }
  const result = await fitAsync(history, options)
  return { messages: result.messages, result }
}

const RUNS = Number(process.env.PROPS_RUNS ?? 60) * 3

describe('pinned messages (oracle apart from src/)', () => {
  it(`are sent verbatim within the budget, or a ContextOverflowError is thrown exactly when system + pinned + newest turn exceed it (${RUNS} runs)`, async () => {
    let overflows = 0
    let sent = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 24 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 24, maxLength: 24 }),
        fc.double({ min: 0.05, max: 1.2, noNaN: true }),
        fc.constantFrom(...STRATEGIES),
        fc.constantFrom<Entry>('fit', 'fitAsync', 'ChatContext'),
        fc.constantFrom('openai' as const, 'anthropic' as const),
        fc.boolean(),
        async (steps, chance, share, strategy, entry, provider, byField) => {
          const c = build(steps, chance)
          const history = c.history.map((m, i) =>
            byField && c.pinned.has(i) ? { ...m, pinned: true } : m,
          )
          const total = history.reduce((n, m) => n + tokensOf(m), PRIMING)
          const budget = Math.max(8, Math.round(total * share))
          const need = required(c, provider === 'anthropic')
          const options = {
            ...strategy,
            budget,
            counter,
            provider,
            ...(!byField && { pin: (_: Message, i: number) => c.pinned.has(i) }),
          } as FitOptions
          const cased = { ...c, history }
          let out: Message[]
          try {
            out = (await run(entry, history, options)).messages
          } catch (e) {
            if (!(e instanceof ContextOverflowError)) throw e
            // unbounded never drops: it throws whenever the whole history is over.
            if ((strategy as { strategy?: string }).strategy === 'unbounded' && total > budget)
              return
            expect(need.tokens, `thrown, but what must be sent fits: ${e.message}`).toBeGreaterThan(
              budget,
            )
            overflows++
            return
          }
          expect(
            need.tokens,
            'what must be sent is over the budget, yet no overflow',
          ).toBeLessThanOrEqual(budget)
          expect(sendsPinned(cased, out, need.units)).toEqual([])
          expect(out.reduce((n, m) => n + tokensOf(m), PRIMING)).toBeLessThanOrEqual(budget)
          expect(validate(out, { provider }).filter((p) => p.severity === 'error')).toEqual([])
          if (c.pinned.size) sent++
        },
      ),
      { numRuns: RUNS, seed: 20261205 },
    )
    // The property met both sides.
    expect(overflows).toBeGreaterThan(0)
    expect(sent).toBeGreaterThan(0)
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import '../../src/compress/index.js'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { type FitOptions, type FitResult, fit, fitAsync } from '../../src/context/fit.js'
import { ContextOverflowError, InvalidInputError } from '../../src/errors.js'
import type { Message } from '../../src/messages/message.js'
import { toAnthropic } from '../../src/providers/anthropic-messages/codec.js'
import { encodeGemini } from '../../src/providers/gemini/codec.js'
import { toOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { encodeOpenAIResponses } from '../../src/providers/openai-responses/codec.js'
import { memoryStore } from '../../src/store/memory-store.js'
import { redisStore } from '../../src/store/redis-store.js'
import { exactCounter } from '../../src/tokens/counters.js'
import { requireInCI } from '../helpers/ci.js'
import { isLedger } from '../helpers/ledger.js'
import { hasRedisServer, startRedis } from '../helpers/redis-server.js'
import { anthropicViolations } from '../oracle/anthropic.js'
import { ledgerIndices, ledgerProblems, sourcesOf } from '../oracle/derived-text.js'
import { geminiViolations } from '../oracle/gemini.js'
import { openAIChatViolations } from '../oracle/openai.js'
import { responsesViolations } from '../oracle/responses.js'
import { deepFreeze, history, RUNS, SEED, strategyOptions } from '../properties/generators.js'
import { hostileHistory, nastyText, storedCountLie } from '../properties/hostile.js'

/**
 * The ledger of dropped messages, attacked: hostile histories with agent tool exchanges whose
 * JSON holds `__proto__`/`constructor` keys, astral characters, ids with dots and planted
 * credentials, on every provider and every entry point. Checked from the outside: the codecs'
 * output against the provider oracles, the ledger's text against the messages it stands for.
 */

type Provider = 'openai' | 'anthropic' | 'gemini' | 'openai-responses'
const providers: Provider[] = ['openai', 'anthropic', 'gemini', 'openai-responses']

/** Credentials planted in the histories: none may ever be in a ledger. */
const SECRETS = [
  'Pw7Zq9Wk2Lm',
  'Cr3dXy7Vb9',
  'Tk5Rr6Yy7Uu',
  'Bz4Qa8Hn2Jd',
  'Nn1Pass2Word',
  'Ak9Ey4Zz7Qq',
]

const code = fc
  .tuple(
    fc.constantFrom('RES', 'ORD', 'PAY', 'HAT'),
    fc.integer({ min: 100, max: 99_999 }),
    fc.constantFrom('', 'X', '.v2', '😀'),
  )
  .map(([p, n, s]) => `${p}${n}${s}`)

/** One agent step: a call with JSON arguments and its JSON result, both hostile. */
const agentStep = fc
  .record({
    callId: fc.constantFrom('call.1', 'call_2', 'toolu.01.a', 'x', 'c 3'),
    ids: fc.array(code, { minLength: 1, maxLength: 4 }),
    secret: fc.nat({ max: SECRETS.length - 1 }),
    note: nastyText,
    proto: fc.boolean(),
    error: fc.boolean(),
  })
  .map(({ callId, ids, secret, note, proto, error }): Message[] => {
    const s = SECRETS[secret] as string
    const args = proto
      ? `{"__proto__":{"reservation_id":"${ids[0]}"},"constructor":{"prototype":${JSON.stringify(Array.from(note).slice(0, 20).join(''))}},"credentials":{"value":"${s}"}}`
      : JSON.stringify({ reservation_id: ids[0], auth: { token: s } })
    const result = JSON.stringify({
      reservations: ids,
      note,
      password: s,
      headers: { Authorization: `Bearer ${s}` },
      nested: { secrets: [{ k: s }] },
    })
    const raw = proto
      ? result.replace('"reservations"', '"__proto__":{"order_id":"ORD77"},"reservations"')
      : result
    return [
      { role: 'user', content: `Look up ${ids[0]} please. My password is ${s}` },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: callId, name: 'get_reservation', arguments: args }],
      },
      {
        role: 'tool',
        toolCallId: callId,
        toolName: 'get_reservation',
        content: raw,
        ...(error && { isError: true }),
      },
    ]
  })

/** Hostile histories with agent exchanges spliced in at random places. */
const agentHistory: fc.Arbitrary<Message[]> = fc
  .tuple(
    fc.oneof(hostileHistory, history),
    fc.array(fc.tuple(agentStep, fc.nat()), { minLength: 1, maxLength: 12 }),
  )
  .map(([base, steps]) => {
    const out = [...base]
    let lead = 0
    while (out[lead]?.role === 'system') lead++
    for (const [msgs, at] of steps) {
      // Only between units: never between a call and its results.
      let k = lead + (at % (out.length - lead + 1))
      while (k < out.length && out[k]?.role === 'tool') k++
      out.splice(k, 0, ...msgs)
    }
    return out
  })

const ledgerOf = (r: FitResult) => r.inserted.filter((i) => i.reason === 'ledger')

/**
 * The ledger's own rules, written here: one user message after the system prompt, standing
 * for messages that are not sent; each line names a message it stands for (by its place in the
 * history) and lists values found in that message; no planted credential.
 */
function checkLedger(input: readonly Message[], r: FitResult): void {
  const ledgers = ledgerOf(r)
  expect(ledgers.length).toBeLessThanOrEqual(1)
  const ins = ledgers[0]
  const sentLedgers = r.messages.filter(isLedger)
  expect(sentLedgers.length).toBe(ledgers.length)
  if (!ins) return
  let lead = 0
  while (r.messages[lead]?.role === 'system') lead++
  expect(ins.position).toBe(lead)
  expect(r.messages[ins.position]).toEqual(ins.message)
  expect(ins.message.role).toBe('user')
  const text = ins.message.content as string
  for (const s of SECRETS) expect(text).not.toContain(s)
  const kept = new Set(r.kept)
  for (const k of ins.replaces) {
    expect(kept.has(k)).toBe(false)
    expect(input[k]?.role).not.toBe('system')
  }
  const heading = text.split('\n')[0] as string
  expect(heading).toMatch(/^\[Earlier messages were left out/)
  const indices = ledgerIndices(text)
  expect(indices.length).toBeGreaterThan(0)
  // Each line names, by caller index, a message the ledger stands for, and quotes only it.
  for (const k of indices) expect(ins.replaces, `message ${k} is one it stands for`).toContain(k)
  expect(ledgerProblems(text, heading, sourcesOf(input))).toEqual([])
}

/** The request each provider's codec writes, against that provider's published rules. */
function providerViolations(p: Provider, messages: readonly Message[]): string[] {
  switch (p) {
    case 'openai':
      return openAIChatViolations(JSON.parse(JSON.stringify(toOpenAIChat([...messages]))))
    case 'anthropic': {
      const { lost: _lost, ...request } = toAnthropic([...messages])
      return anthropicViolations(JSON.parse(JSON.stringify(request)))
    }
    case 'gemini':
      return geminiViolations(JSON.parse(JSON.stringify(encodeGemini([...messages]).output)))
    case 'openai-responses': {
      const out = encodeOpenAIResponses([...messages], { request: true }).output as {
        input: unknown[]
      }
      return responsesViolations(JSON.parse(JSON.stringify(out.input)), { store: true })
    }
  }
}

async function attempt(
  input: readonly Message[],
  options: FitOptions,
): Promise<FitResult | InvalidInputError | ContextOverflowError> {
  try {
    return await fitAsync(input, options)
  } catch (e) {
    if (e instanceof InvalidInputError || e instanceof ContextOverflowError) return e
    throw e
  }
}

const strategy = fc.constantFrom(undefined, ...Object.keys(strategyOptions)).chain((name) =>
  name === undefined
    ? fc.constant({})
    : (strategyOptions[name] as fc.Arbitrary<Record<string, unknown>>).map((o) => ({
        ...o,
        strategy: name,
      })),
)

describe('the ledger under attack', () => {
  it(`every provider accepts the request, within budget, no credential listed, no overflow that ledger: false would not throw (${RUNS} runs)`, async () => {
    let ledgers = 0
    await fc.assert(
      fc.asyncProperty(
        agentHistory,
        strategy,
        fc.integer({ min: 150, max: 6000 }),
        fc.constantFrom(...providers),
        fc.constantFrom(true as const, { share: 0.3 }, { maxTokens: 64 }),
        async (h, s, budget, provider, ledger) => {
          const input = deepFreeze(h)
          const base = { ...s, budget, provider } as FitOptions
          const off = await attempt(input, { ...base, ledger: false })
          const on = await attempt(input, { ...base, ledger } as FitOptions)
          // The ledger turns no fitting history into an error.
          if (!(off instanceof Error)) expect(on).not.toBeInstanceOf(Error)
          if (on instanceof ContextOverflowError) expect(on.required).toBeGreaterThan(on.budget)
          if (on instanceof Error) return
          expect(on.tokens.total + on.tokens.reserve).toBeLessThanOrEqual(budget)
          expect(providerViolations(provider, on.messages)).toEqual([])
          checkLedger(input, on)
          if (ledgerOf(on).length) ledgers++
          // A summary and the ledger never stand for the same message (a placeholder may: it
          // says how many were skipped, the ledger what they held).
          const summarized = on.inserted
            .filter((i) => i.reason === 'summary')
            .flatMap((i) => i.replaces)
          for (const k of ledgerOf(on)[0]?.replaces ?? []) expect(summarized).not.toContain(k)
          expect(({} as Record<string, unknown>).reservation_id).toBeUndefined()
          expect(({} as Record<string, unknown>).order_id).toBeUndefined()
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
    expect(ledgers).toBeGreaterThan(RUNS / 4)
  })

  it(`a summarizing strategy with ledger: true lists no message its summary stands for (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        agentHistory,
        strategyOptions.summarizing as fc.Arbitrary<Record<string, unknown>>,
        fc.integer({ min: 300, max: 4000 }),
        async (h, options, budget) => {
          const input = deepFreeze(h)
          const r = await attempt(input, {
            ...options,
            strategy: 'summarizing',
            budget,
            provider: 'anthropic',
            ledger: true,
          } as FitOptions)
          if (r instanceof Error) return
          checkLedger(input, r)
          const summaries = r.inserted.filter((i) => i.reason !== 'ledger')
          const summarized = new Set(summaries.flatMap((i) => i.replaces))
          const ledger = ledgerOf(r)[0]
          for (const line of ((ledger?.message.content as string) ?? '').split('\n').slice(1)) {
            const n = Number(/^message (\d+) by /.exec(line)?.[1])
            expect(summarized.has(n), line).toBe(false)
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })

  it(`fit, fitAsync, ChatContext one message at a time, fromState(saveState()) and a memory store with lying counts send the same request (${RUNS} runs)`, async () => {
    const counter = exactCounter()
    await fc.assert(
      fc.asyncProperty(
        agentHistory,
        fc.integer({ min: 300, max: 6000 }),
        fc.constantFrom(...providers),
        storedCountLie,
        async (h, budget, provider, lie) => {
          const options = { budget, provider, counter, ledger: true } as const
          let expected: Message[] | Error
          try {
            expected = fit(h, options).messages
          } catch (e) {
            expected = e as Error
          }
          const same = async (what: string, run: () => Promise<FitResult>) => {
            const got = await run().catch((e: Error) => e)
            if (expected instanceof Error) expect(got, what).toBeInstanceOf(expected.constructor)
            else {
              expect(got, what).not.toBeInstanceOf(Error)
              expect((got as FitResult).messages, what).toEqual(expected)
            }
          }
          await same('fitAsync', () => fitAsync(h, options))
          const ctx = new ChatContext(options)
          for (const m of h) await ctx.addMessage(m)
          await same('ChatContext', async () => ctx.fit())
          const restored = ChatContext.fromState(JSON.parse(JSON.stringify(ctx.saveState())), {
            counter,
          })
          // A saved state drops a `__proto__` key inside providerMetadata (outside the ledger):
          // compared with that metadata aside.
          const plain = (ms: readonly Message[]) =>
            ms.map(({ providerMetadata: _m, ...rest }) => rest as Message)
          const back = await Promise.resolve()
            .then(() => restored.fit())
            .catch((e: Error) => e)
          if (expected instanceof Error) expect(back).toBeInstanceOf(expected.constructor)
          else expect(plain((back as FitResult).messages)).toEqual(plain(expected))
          const overStore = async (l: (t: number) => number, ledger: boolean) => {
            const store = memoryStore()
            await store.append(
              'c',
              h.map((message) => ({
                message,
                tokens: l(counter.countMessage(message)),
                counter: counter.name,
              })),
            )
            return new ChatContext({ ...options, ledger, store, id: 'c' })
              .fitAsync()
              .catch((e: Error) => e)
          }
          await same('memory store', async () => {
            const r = await overStore((t) => t, true)
            if (r instanceof Error) throw r
            return r
          })
          // A low count that is plausible is believed for the selection, and the account then
          // refuses what would not fit: the ledger adds no such refusal and never exceeds the budget.
          const lying = await overStore(lie, true)
          if (lying instanceof Error) {
            expect(lying).toBeInstanceOf(ContextOverflowError)
            expect(await overStore(lie, false)).toBeInstanceOf(Error)
          } else {
            expect(lying.tokens.total + lying.tokens.reserve).toBeLessThanOrEqual(budget)
            checkLedger(h, lying)
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })
})

describe('the ledger at scale', () => {
  const filler = (n: number): Message[] =>
    Array.from({ length: n }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `message ${i} ${'lorem ipsum '.repeat(20)}`,
    }))

  it('a tool result of 1 MB of JSON: within budget, its identifiers listed, valid for every provider', () => {
    const rows = Array.from({ length: 12_000 }, (_, i) => ({
      order_id: `ORD${100_000 + i}`,
      __proto__: { polluted: true },
      note: `${'x'.repeat(40)}😀`,
      total_price: i * 1.5,
    }))
    const big = JSON.stringify(rows).replaceAll('"polluted"', '"__proto__"')
    expect(big.length).toBeGreaterThan(1_000_000)
    const h: Message[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'List my orders.' },
      { role: 'assistant', toolCalls: [{ id: 'c.1', name: 'list_orders', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c.1', content: big },
      ...filler(12),
    ]
    for (const provider of providers) {
      const r = fit(h, { budget: 2000, provider })
      expect(r.tokens.total + r.tokens.reserve).toBeLessThanOrEqual(2000)
      expect(providerViolations(provider, r.messages)).toEqual([])
      checkLedger(h, r)
      expect(ledgerOf(r)[0]?.message.content).toMatch(/ORD100000\b/)
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('10,000 dropped messages: the ledger lists the nearest, within its size, and the request fits', () => {
    const h: Message[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'Check every reservation.' },
    ]
    for (let i = 0; i < 5000; i++)
      h.push(
        {
          role: 'assistant',
          toolCalls: [{ id: `c.${i}`, name: 'get', arguments: `{"reservation_id":"R${i}X"}` }],
        },
        { role: 'tool', toolCallId: `c.${i}`, content: `{"order_id":"ORD${i}Z"}` },
      )
    h.push({ role: 'user', content: 'What next?' })
    for (const provider of providers) {
      const r = fit(h, { budget: 3000, provider })
      expect(r.dropped.length).toBeGreaterThan(9_000)
      expect(r.tokens.total + r.tokens.reserve).toBeLessThanOrEqual(3000)
      expect(providerViolations(provider, r.messages)).toEqual([])
      checkLedger(h, r)
      // The facts nearest the kept messages are the ones listed: the newest dropped call.
      const newestDropped = Math.max(...r.dropped.filter((i) => h[i]?.role === 'tool'))
      expect(ledgerOf(r)[0]?.message.content).toContain(`ORD${(newestDropped - 3) / 2}Z`)
    }
  })
})

describe('the ledger over a Redis store', () => {
  const available = requireInCI(hasRedisServer(), 'redis-server')
  it.runIf(available)(
    'a context over Redis sends what fit sends, ledger included, and after a fresh reader',
    async () => {
      const server = await startRedis()
      const counter = exactCounter()
      try {
        const [histories] = fc.sample(fc.array(agentHistory, { minLength: 8, maxLength: 8 }), {
          numRuns: 1,
          seed: SEED,
        })
        let ledgers = 0
        for (const [n, h] of (histories as Message[][]).entries()) {
          const options = {
            budget: 900 + 300 * n,
            provider: providers[n % 4],
            counter,
            ledger: true,
          } as const
          const expected = fit(h, options)
          if (ledgerOf(expected).length) ledgers++
          const store = await redisStore({ url: server.url })
          const writer = new ChatContext({ ...options, store, id: `l${n}` })
          for (const m of h) await writer.addMessage(m)
          expect((await writer.fitAsync()).messages).toEqual(expected.messages)
          const reader = new ChatContext({ ...options, store, id: `l${n}` })
          expect((await reader.fitAsync()).messages).toEqual(expected.messages)
          await store.close?.()
        }
        expect(ledgers).toBeGreaterThan(0)
      } finally {
        await server.stop()
      }
    },
    60_000,
  )
})

// Pinned messages through every entry point: options, transforms, summarizing, the ledger,
// saved state, the stores (memory, Redis, PostgreSQL), the CLI and the adapters. The checks
// read only what the library returns (test/pinned.test.ts holds the oracle over strategies).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../src/cli/main.js'
import {
  ChatContext,
  ContextOverflowError,
  clearToolResults,
  fit,
  fitAsync,
  fromAISDK,
  fromAnthropic,
  fromAutoGen,
  fromGemini,
  fromLangChain,
  fromOpenAIChat,
  fromOpenAIResponses,
  InvalidInputError,
  InvalidOptionError,
  type Message,
  memoryStore,
  summarizing,
  toAISDK,
  toAnthropic,
  toAutoGen,
  toGemini,
  toLangChain,
  toOpenAIChat,
  toOpenAIResponses,
  truncateMessages,
} from '../src/index.js'
import { fitEachStep, fitOpenAIMessages } from '../src/integrations/index.js'
import { postgresStore } from '../src/store/postgres-store.js'
import { redisStore } from '../src/store/redis-store.js'
import { requireInCI } from './helpers/ci.js'
import { hasPostgres, type PostgresServer, startPostgres } from './helpers/postgres-server.js'
import { hasRedisServer, type RedisServer, startRedis } from './helpers/redis-server.js'

const RULE = 'From now on never book basic economy, and keep every flight under $600.'

/** A long agent history whose second message is the user's standing rule. */
function history(turns = 30, pinned = true): Message[] {
  const h: Message[] = [
    { role: 'system', content: 'You book flights.' },
    { role: 'user', content: RULE, ...(pinned && { pinned: true }) },
    { role: 'assistant', content: 'Understood: no basic economy, every flight under $600.' },
  ]
  for (let t = 0; t < turns; t++) {
    h.push({ role: 'user', content: `Find me a flight to city ${t}, any day next week please.` })
    h.push({
      role: 'assistant',
      toolCalls: [{ id: `call_${t}`, name: 'search', arguments: `{"to":"city ${t}"}` }],
    })
    h.push({
      role: 'tool',
      toolCallId: `call_${t}`,
      toolName: 'search',
      content:
        `Flight HAT${100 + t} to city ${t}: $${300 + t} economy, seat 12A, departs 2024-05-${10 + (t % 18)}. `.repeat(
          4,
        ),
    })
    h.push({ role: 'assistant', content: `HAT${100 + t} is $${300 + t}. Shall I book it?` })
  }
  h.push({ role: 'user', content: 'Book the cheapest one.' })
  return h
}

const sent = (messages: readonly Message[], m: Message) =>
  messages.some((x) => JSON.stringify(x) === JSON.stringify(m))

describe('options', () => {
  it('a pinned message is sent verbatim whatever the strategy, and named in the overflow when it cannot fit', () => {
    const h = history()
    for (const options of [
      {},
      { strategy: 'buffered' as const, size: 4 },
      { strategy: 'mostRelevant' as const },
      { strategy: 'userTurns' as const, maxTurns: 1 },
    ]) {
      const r = fit(h, { budget: 900, ...options })
      expect(sent(r.messages, h[1] as Message), JSON.stringify(options)).toBe(true)
      expect(r.kept).toContain(1)
      expect(r.fates[1]?.fate).toBe('kept')
    }
    const e = (() => {
      try {
        fit(h, { budget: 35 })
      } catch (error) {
        return error
      }
    })() as ContextOverflowError
    expect(e).toBeInstanceOf(ContextOverflowError)
    expect(e.breakdown.pinned).toBeGreaterThan(0)
    expect(e.message).toMatch(/the system prompt, the pinned messages and the newest turn/)
    // Without the pin, the same budget fits.
    expect(fit(history(30, false), { budget: 35 }).kept).not.toContain(1)
  })

  it('the pin option chooses by message and index; a wrong one is a typed error', () => {
    const h = history(30, false)
    const r = fit(h, { budget: 900, pin: (m, i) => i === 1 && m.role === 'user' })
    expect(sent(r.messages, h[1] as Message)).toBe(true)
    expect(fit(h, { budget: 900 }).kept).not.toContain(1)
    expect(() => fit(h, { budget: 900, pin: 3 as never })).toThrow(InvalidOptionError)
    expect(() => fit([{ role: 'user', content: 'x', pinned: 'yes' as never }])).toThrow(
      InvalidInputError,
    )
  })

  it('transforms leave a pinned message and its unit as they are', () => {
    const h = history(6, false)
    const pinResult = (_: Message, i: number) => i === 5 // the first search result
    const cleared = fit(h, {
      budget: 100_000,
      transforms: [clearToolResults({ keep: 0 })],
      pin: pinResult,
    })
    expect(cleared.messages[5]).toEqual(h[5])
    expect(cleared.changed.map((c) => c.index)).not.toContain(5)
    expect(cleared.changed.length).toBeGreaterThan(0)
    const cut = fit(h, {
      budget: 100_000,
      transforms: [truncateMessages({ maxTokensPerMessage: 20 })],
      pin: pinResult,
    })
    expect(cut.messages[5]).toEqual(h[5])
  })
})

describe('a pin function behind a system prompt given apart, with a transform', () => {
  // The AI SDK's prepareStep takes the system prompt apart: the messages are numbered as the
  // caller's (the first is 0), and `pin` is asked with those numbers by the transform and by
  // selection alike. Each check fails when either asks it one number off, either way.
  const long = (who: string, k: number) => `${who} ${k}: ${'a long line of words '.repeat(30)}`
  const textOf = (m: unknown) => JSON.stringify((m as { content?: unknown }).content)
  const step = (messages: Message[], options: Parameters<typeof fitEachStep>[0]) =>
    fitEachStep({ system: 'You book flights.', budget: 100_000, ...options })({
      messages: toAISDK(messages),
    })

  it('truncateMessages leaves the pinned message whole, and cuts its neighbours', () => {
    const h: Message[] = Array.from({ length: 7 }, (_, k) => ({
      role: k % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: long(k % 2 === 0 ? 'user' : 'assistant', k),
    }))
    const given = toAISDK(h)
    for (const pinned of [2, 3, 4]) {
      const out = step(h, {
        transforms: [truncateMessages({ maxTokensPerMessage: 20 })],
        pin: (_, i) => i === pinned,
      })
      expect(out.system).toBe('You book flights.')
      expect(out.messages).toHaveLength(h.length)
      out.messages.forEach((m, i) => {
        if (i === pinned) expect(textOf(m)).toBe(textOf(given[i]))
        else if (i < h.length - 1) expect(textOf(m).length).toBeLessThan(textOf(given[i]).length)
      })
    }
  })

  it('clearToolResults leaves the pinned unit`s result, and clears the others', () => {
    const h: Message[] = []
    for (let t = 0; t < 3; t++) {
      h.push({ role: 'user', content: `search ${t}` })
      h.push({
        role: 'assistant',
        toolCalls: [{ id: `c.${t}`, name: 'search', arguments: `{"q":"${t}"}` }],
      })
      h.push({ role: 'tool', toolCallId: `c.${t}`, content: long('result', t) })
    }
    h.push({ role: 'user', content: 'which one?' })
    const given = toAISDK(h)
    const results = [2, 5, 8]
    // The call at 4 and its result at 5 are one unit; the user's 3 and 6 are apart from it.
    for (const [pinned, whole] of [
      [5, 5],
      [4, 5],
      [3, -1],
      [6, -1],
    ] as const) {
      const out = step(h, {
        transforms: [clearToolResults({ keep: 0 })],
        pin: (_, i) => i === pinned,
      })
      for (const r of results)
        if (r === whole) expect(textOf(out.messages[r])).toBe(textOf(given[r]))
        else expect(textOf(out.messages[r])).not.toContain('a long line of words')
    }
  })
})

describe('summarizing and the ledger', () => {
  it('summarizing sends a pinned message verbatim beside its summary, which neither stands for it nor repeats it', async () => {
    const h = history(30)
    const r = await fitAsync(h, { strategy: summarizing({ trigger: 0.5 }), budget: 2500 })
    expect(r.inserted.length).toBeGreaterThan(0)
    expect(sent(r.messages, h[1] as Message)).toBe(true)
    for (const ins of r.inserted) {
      expect(ins.replaces).not.toContain(1)
      expect(JSON.stringify(ins.message)).not.toContain('basic economy')
    }
    expect(r.fates[1]?.fate).toBe('kept')
  })

  it('the ledger does not list what a pinned message holds as dropped', () => {
    const h = history(30, false)
    // A pinned search result: its flight number is sent, so the ledger need not quote it.
    const r = fit(h, { budget: 1500, ledger: true, pin: (_, i) => i === 5 })
    const ledger = r.inserted.find((x) => x.reason === 'ledger')
    expect(ledger).toBeDefined()
    expect(ledger?.replaces).not.toContain(5)
    expect(sent(r.messages, h[5] as Message)).toBe(true)
    expect(JSON.stringify(ledger?.message)).toMatch(/message \d+ by/)
    expect(JSON.stringify(ledger?.message)).not.toMatch(/message 5 by/)
  })
})

/** A pinned history written by one context and read back by another over the same store. */
const roundTrip = async (
  store: Awaited<ReturnType<typeof redisStore>> | ReturnType<typeof memoryStore>,
) => {
  const id = `pinned-${Math.random().toString(36).slice(2)}`
  const h = history(20)
  const writer = new ChatContext({ store, id, budget: 900 })
  await writer.addMessages(h)
  await writer.sync()
  const reader = new ChatContext({ store, id, budget: 900 })
  const out = await reader.getMessages()
  expect(out.find((m) => m.content === RULE)).toEqual(h[1])
  expect(reader.history()[1]?.pinned).toBe(true)
}

describe('saved state and stores', () => {
  it('a saved state keeps pinned: true, and what the pin option chose is saved pinned', async () => {
    const h = history(20, false)
    const context = new ChatContext({ budget: 900, pin: (_, i) => i === 1 })
    await context.addMessages(h)
    const state = context.saveState()
    expect(state.messages[1]?.pinned).toBe(true)
    expect(state.messages[2]?.pinned).toBeUndefined()
    const restored = ChatContext.fromState(JSON.parse(JSON.stringify(state)))
    const out = await restored.getMessages()
    expect(out.some((m) => m.content === RULE)).toBe(true)
  })

  it('memory store', async () => {
    await roundTrip(memoryStore())
  })
})

describe.runIf(requireInCI(hasRedisServer(), 'redis-server'))('redis store', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(async () => {
    await server?.stop()
  })
  it('keeps the flag', async () => {
    const store = await redisStore({ url: server.url })
    await roundTrip(store)
    await store.close()
  })
})

describe.runIf(requireInCI(hasPostgres(), 'PostgreSQL (initdb, pg_ctl)'))('postgres store', () => {
  let server: PostgresServer
  beforeAll(async () => {
    server = await startPostgres()
  }, 180_000)
  afterAll(async () => {
    await server?.stop()
  })
  it('keeps the flag', async () => {
    const store = await postgresStore({ url: server.url })
    await roundTrip(store as never)
    await store.close()
  })
})

describe('CLI', () => {
  const run = async (...argv: string[]) => {
    const out: string[] = []
    const err: string[] = []
    const code = await main(argv, {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      color: false,
    })
    return { code, out: out.join('\n'), err: err.join('\n') }
  }
  const file = (json: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-pinned-'))
    const path = join(dir, 'in.json')
    writeFileSync(path, JSON.stringify(json))
    return { path, out: join(dir, 'out.json') }
  }
  const chat = toOpenAIChat(history(20, false))

  it('--pin INDEX keeps those messages; a bad index is a usage error', async () => {
    const { path, out } = file(chat)
    const r = await run('fit', path, '--budget', '900', '--pin', '1', '--out', out)
    expect(r.code).toBe(0)
    const fitted = JSON.parse(readFileSync(out, 'utf8'))
    expect(fitted.some((m: { content?: string }) => m.content === RULE)).toBe(true)
    const without = await run('fit', path, '--budget', '900', '--out', out)
    expect(without.code).toBe(0)
    expect(
      JSON.parse(readFileSync(out, 'utf8')).some((m: { content?: string }) => m.content === RULE),
    ).toBe(false)
    expect((await run('fit', path, '--budget', '900', '--pin', '999')).code).toBe(2)
    expect((await run('fit', path, '--budget', '900', '--pin', 'x')).code).toBe(2)
    expect((await run('fit', path, '--budget', '35', '--pin', '1')).code).toBe(3)
    expect((await run('fit', path, '--budget', '35')).code).toBe(0)
  })

  it('"pinned": true in the input pins the message, and the output carries no such field', async () => {
    const marked = chat.map((m, i) => (i === 1 ? { ...m, pinned: true } : m))
    const { path, out } = file(marked)
    const r = await run('fit', path, '--budget', '900', '--out', out)
    expect(r.code).toBe(0)
    const text = readFileSync(out, 'utf8')
    expect(text).toContain(RULE)
    expect(text).not.toContain('pinned')
  })
})

describe('adapters', () => {
  const h = history(2)
  const wire = [toOpenAIChat, toOpenAIResponses, toAnthropic, toGemini] as const

  it('no provider wire output carries the field', () => {
    for (const encode of wire)
      expect(JSON.stringify(encode(h)), encode.name).not.toContain('pinned')
  })

  it('a provider message marked pinned: true decodes pinned', () => {
    const marked = (m: object) => m as never
    expect(fromOpenAIChat([marked({ role: 'user', content: 'x', pinned: true })])[0]?.pinned).toBe(
      true,
    )
    expect(
      fromAnthropic({ messages: [marked({ role: 'user', content: 'x', pinned: true })] })[0]
        ?.pinned,
    ).toBe(true)
    expect(
      fromGemini({ contents: [marked({ role: 'user', parts: [{ text: 'x' }], pinned: true })] })[0]
        ?.pinned,
    ).toBe(true)
    expect(
      fromOpenAIResponses([marked({ role: 'user', content: 'x', pinned: true })])[0]?.pinned,
    ).toBe(true)
  })

  it('the framework formats keep the field both ways, in a place their providers do not send', () => {
    const pinnedAt = (ms: readonly Message[]) => ms.flatMap((m, i) => (m.pinned ? [i] : []))
    const want = pinnedAt(h)
    expect(want).toEqual([1])
    const aisdk = toAISDK(h)
    expect(aisdk[1]?.providerOptions).toEqual({ contextWindow: { pinned: true } })
    expect(pinnedAt(fromAISDK(aisdk as never))).toEqual(want)
    const lc = toLangChain(h)
    expect(JSON.stringify(lc[1])).toContain('"additional_kwargs":{"pinned":true}')
    expect(pinnedAt(fromLangChain(lc as never))).toEqual(want)
    expect(pinnedAt(fromAutoGen(toAutoGen(h) as never))).toEqual(want)
    // Unpinned again: the mark goes.
    const unpinned = fromAISDK(aisdk as never).map(({ pinned: _, ...m }) => m as Message)
    expect(JSON.stringify(toAISDK(unpinned))).not.toContain('pinned')
    expect(
      JSON.stringify(
        toLangChain(fromLangChain(lc as never).map(({ pinned: _, ...m }) => m as Message)),
      ),
    ).not.toContain('pinned')
  })

  it('an adapter takes the pin option and sends nothing unknown', () => {
    const plain = toOpenAIChat(history(20, false))
    const { messages } = fitOpenAIMessages(plain, { budget: 900, pin: (_, i) => i === 1 })
    expect(messages.some((m) => (m as { content?: unknown }).content === RULE)).toBe(true)
    expect(JSON.stringify(messages)).not.toContain('pinned')
  })
})

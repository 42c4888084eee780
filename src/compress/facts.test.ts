import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeOpenAI, startFakeOpenAI } from '../../test/helpers/openai-server.js'
import { tauBench } from '../../test/tau-bench.js'
import { ChatContext } from '../context/chat/chat-context.js'
import { fitAsync } from '../context/fit.js'
import { FACTS_HEADING, fitFacts, mentions, renderFacts } from '../messages/fact-list.js'
import { extractFacts, type Fact, factsOfText } from '../messages/facts.js'
import { contentText, type Message } from '../messages/message.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { errorsOf, validate } from '../providers/validate.js'
import { renderReport } from '../report/html.js'
import { exactCounter } from '../tokens/counters.js'
import { openAICompatibleSummarizer } from './openai-compatible.js'
import type { Summarizer } from './summarizer.js'
import { summarizing } from './summarizing.js'
import type { CompressionEvent } from './summarizing-options.js'

const counter = exactCounter()

/** Everything a model reads in a list of messages. */
function sentText(messages: readonly Message[]): string {
  return messages
    .map((m) =>
      [
        contentText(m.content),
        ...(m.role === 'assistant'
          ? (m.toolCalls ?? []).flatMap((c) => [c.name, c.arguments])
          : []),
      ].join('\n'),
    )
    .join('\n')
}

/** A summarizer that keeps nothing exact: the worst case the ledger exists for. */
const vague: Summarizer = {
  name: 'vague',
  summarize: async () => 'The customer and the agent discussed several bookings and payments.',
}

/** The test's own reading of identifiers, apart from the library's. */
function oracleIds(text: string): string[] {
  return [
    ...text.matchAll(
      /\b[A-Z]{3}\d{3}\b|\b[a-z]+_[a-z]+_\d{4}\b|\b[\w.]+@example\.com\b|\b\d{4}-\d{2}-\d{2}\b|\b[A-Z0-9]{6}\b/g,
    ),
  ].map((m) => m[0])
}

describe('extractFacts', () => {
  it('reads identifiers, emails, links, paths, dates, amounts, quantities and tool outcomes, labelled by JSON keys', () => {
    const facts = extractFacts([
      {
        role: 'user',
        content:
          'My id is omar_davis_3817, mail omar.davis@example.com; see https://x.test/a?b=1. The log is at /var/log/app/error.log and src/compress/facts.ts. I paid $1,250.00 on 2024-05-15 and waited 45 min.',
      },
      {
        role: 'assistant',
        toolCalls: [
          { id: 'c1', name: 'get_reservation', arguments: '{"reservation_id":"JG7FMM"}' },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'c1',
        content:
          '{"flights":[{"flight_number":"HAT123","price":1450,"date":"2024-05-20"}],"total_baggages":2,"payment_methods":{"credit_card_7803378":{"source":"credit_card"}}}',
      },
      { role: 'tool', toolCallId: 'c9', toolName: 'cancel', content: 'not allowed', isError: true },
    ])
    const has = (kind: Fact['kind'], value: string, label?: string) =>
      expect(facts).toContainEqual(label ? { kind, value, label } : { kind, value })
    has('id', 'omar_davis_3817')
    has('email', 'omar.davis@example.com')
    has('url', 'https://x.test/a?b=1')
    has('path', '/var/log/app/error.log')
    has('path', 'src/compress/facts.ts')
    has('amount', '$1,250.00')
    has('date', '2024-05-15')
    has('quantity', '45 min')
    has('id', 'JG7FMM', 'reservation_id')
    has('id', 'HAT123', 'flight_number')
    has('amount', '1450', 'price')
    has('date', '2024-05-20', 'date')
    has('id', 'credit_card_7803378', 'payment_methods')
    has('tool', 'get_reservation ok')
    has('tool', 'cancel error')
    // A count of bags is not money, a field name is not an identifier.
    expect(facts.some((f) => f.value === '2')).toBe(false)
    expect(facts.some((f) => f.value === 'payment_methods')).toBe(false)
  })

  it('survives hostile input: __proto__ keys, astral text, empty and whitespace messages, deep JSON, ids with dots', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
    const facts = extractFacts([
      { role: 'user', content: '' },
      { role: 'user', content: '   \n\t ' },
      { role: 'user', content: '😀 order A1B2C3 😀 on 2024-01-02 😀' },
      {
        role: 'tool',
        toolCallId: 'x.y.z',
        content: '{"__proto__":{"order_id":"Q9.Z8"},"constructor":1}',
      },
      { role: 'tool', toolCallId: 'deep', content: deep },
      { role: 'assistant', content: [{ type: 'text', text: 'ref v1.2.3 and build 7f3a9c2' }] },
    ])
    expect(({} as Record<string, unknown>).order_id).toBeUndefined()
    expect(facts).toContainEqual({ kind: 'id', value: 'A1B2C3' })
    expect(facts).toContainEqual({ kind: 'id', value: 'Q9.Z8', label: 'order_id' })
    expect(facts).toContainEqual({ kind: 'date', value: '2024-01-02' })
    expect(facts).toContainEqual({ kind: 'id', value: '7f3a9c2' })
    expect(facts.some((f) => f.value === 'v1.2.3')).toBe(false)
  })

  it('is linear: a 2 MB tool result with no breaks and a 20,000-item JSON list are read quickly and bounded', () => {
    const t0 = performance.now()
    const facts = extractFacts([
      { role: 'tool', toolCallId: 'a', content: 'x'.repeat(2_000_000) },
      { role: 'tool', toolCallId: 'b', content: 'a/'.repeat(300_000) },
      {
        role: 'tool',
        toolCallId: 'c',
        content: JSON.stringify(Array.from({ length: 20_000 }, (_, k) => ({ id: `ID${k}X` }))),
      },
    ])
    expect(performance.now() - t0).toBeLessThan(5000)
    expect(facts.filter((f) => f.kind === 'id').length).toBeLessThanOrEqual(400 * 3)
  })

  it('reads a long `1,2,3,…` run (a CSV tool result) without rescanning it from every digit, and still finds the amount after it', () => {
    // An unbounded digit run before a failing unit made this quadratic: 200 KB took minutes.
    const t0 = performance.now()
    const facts = factsOfText(`${'1,'.repeat(100_000)} total 5 USD for 12,500 km`)
    expect(performance.now() - t0).toBeLessThan(5000)
    expect(facts).toEqual(
      expect.arrayContaining([
        { kind: 'amount', value: '5 USD' },
        { kind: 'quantity', value: '12,500 km' },
      ]),
    )
  })
})

describe('mentions and the facts section', () => {
  it('finds an amount by its digits, whatever its formatting', () => {
    expect(mentions('refund of 1250 dollars', { kind: 'amount', value: '$1,250.00' })).toBe(true)
    expect(mentions('refund of 12500', { kind: 'amount', value: '$1,250.00' })).toBe(false)
    expect(mentions('price 150.0', { kind: 'amount', value: '150', label: 'price' })).toBe(true)
    expect(mentions('cancel failed', { kind: 'tool', value: 'cancel error' })).toBe(true)
    expect(mentions('cancel went fine', { kind: 'tool', value: 'cancel error' })).toBe(false)
  })

  it('fits the most important facts within the room, identifiers first, and never over it', () => {
    const facts: Fact[] = [
      ...Array.from({ length: 40 }, (_, k) => ({ kind: 'quantity' as const, value: `${k} kg` })),
      ...Array.from({ length: 40 }, (_, k) => ({
        kind: 'id' as const,
        value: `RES${k}X`,
        label: 'reservation_id',
      })),
    ]
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 600 }), (room) => {
        const out = fitFacts(facts, room, counter)
        const cost = out.text ? counter.countText(`\n\n${out.text}`) : 0
        expect(cost).toBeLessThanOrEqual(Math.max(0, room))
        expect(out.included.length + out.left.length).toBe(facts.length)
        // No quantity goes in while an identifier is left out.
        if (out.included.some((f) => f.kind === 'quantity'))
          expect(out.left.some((f) => f.kind === 'id')).toBe(false)
        for (const f of out.included) expect(out.text).toContain(f.value)
      }),
      { seed: 3, numRuns: 60 },
    )
  })

  it('a facts section read back gives its facts again (carried into the next summary)', () => {
    const facts: Fact[] = [
      { kind: 'id', value: 'JG7FMM', label: 'reservation_id' },
      { kind: 'date', value: '2024-05-15' },
      { kind: 'email', value: 'a.b@example.com' },
    ]
    const back = factsOfText(renderFacts(facts)).map((f) => f.value)
    expect(back).toEqual(expect.arrayContaining(['JG7FMM', '2024-05-15', 'a.b@example.com']))
  })
})

const longest = tauBench()
  .map((r) => fromOpenAIChat(r.traj))
  .sort((a, b) => counter.countMessages(b) - counter.countMessages(a))
  .slice(0, 6)

describe('the fact ledger in a summary', () => {
  it('with a summarizer that keeps no exact detail, every identifier of the summarized messages is still sent, within budget and valid', async () => {
    for (const h of longest) {
      for (const provider of ['openai', 'anthropic'] as const) {
        const events: CompressionEvent[] = []
        const r = await fitAsync(h, {
          strategy: summarizing({ summarizer: vague, onEvent: (e) => events.push(e) }),
          budget: 4000,
          provider,
          counter,
        })
        expect(errorsOf(validate(r.messages, { provider }))).toEqual([])
        expect(r.tokens.total).toBeLessThanOrEqual(4000)
        const summary = r.inserted[0]
        expect(summary?.reason).toBe('summary')
        const text = sentText(r.messages)
        const replaced = summary?.replaces.map((i) => h[i] as Message) ?? []
        const ids = new Set(oracleIds(sentText(replaced)))
        const missing = [...ids].filter((id) => !text.includes(id))
        expect(missing).toEqual([])
        // The account is true: what it says it re-inserted is in the summary, and nothing is unaccounted.
        const report = summary?.facts
        expect(report).toBeDefined()
        if (!report) continue
        expect(report.kept + report.reinserted.length + report.lost.length).toBe(report.total)
        expect(report.lost).toEqual([])
        expect(report.rate).toBe(1)
        const body = contentText(summary?.message.content)
        expect(body).toContain(FACTS_HEADING)
        for (const f of report.reinserted) expect(body).toContain(f.value)
        expect(events.find((e) => e.type === 'compressed')).toMatchObject({
          facts: { total: report.total, lost: 0 },
        })
      }
    }
  })

  it('when room is short the section keeps what fits, by priority, says what was lost, and the request stays within budget', async () => {
    const h = longest[0] as Message[]
    const r = await fitAsync(h, {
      strategy: summarizing({ summarizer: vague }),
      budget: 2100,
      counter,
    })
    expect(r.tokens.total).toBeLessThanOrEqual(2100)
    const report = r.inserted[0]?.facts
    expect(report?.lost.length).toBeGreaterThan(0)
    expect(report?.rate).toBeLessThan(1)
    const text = sentText(r.messages)
    for (const f of report?.lost ?? []) expect(mentions(text, f)).toBe(false)
    for (const f of report?.reinserted ?? []) expect(text).toContain(f.value)
  })

  it('the HTML report lists the survival rate and each re-inserted fact, escaped', async () => {
    const h = longest[3] as Message[]
    const r = await fitAsync(h, { strategy: summarizing({ summarizer: vague }), budget: 4000 })
    const html = renderReport(h, r, { strategy: r.strategy, budget: 4000 })
    const f = r.inserted[0]?.facts
    expect(f?.reinserted.length).toBeGreaterThan(0)
    expect(html).toContain('<h2>Facts kept through compaction</h2>')
    expect(html).toContain(`<b>${(f?.kept ?? 0) + (f?.reinserted.length ?? 0)} of ${f?.total}</b>`)
    for (const x of f?.reinserted ?? [])
      expect(html).toContain(`<code>${x.value.replace(/&/g, '&#38;')}</code>`)
  })

  it('facts: false sends the summarizer text alone', async () => {
    const r = await fitAsync(longest[0] as Message[], {
      strategy: summarizing({ summarizer: vague, facts: false }),
      budget: 4000,
    })
    expect(contentText(r.inserted[0]?.message.content)).not.toContain(FACTS_HEADING)
    expect(r.inserted[0]?.facts).toBeUndefined()
  })

  it('a running summary carries the facts of the first one, also when the summarizer forgets them', async () => {
    const h = longest[1] as Message[]
    const ctx = new ChatContext({
      strategy: summarizing({ summarizer: vague, trigger: 0.6, leaveLastN: 2 }),
      budget: 4500,
    })
    const half = Math.floor(h.length / 2)
    await ctx.addMessages(h.slice(0, half))
    const first = await ctx.getMessages()
    const firstSummary = first.find((m) => contentText(m.content).startsWith('[Summary'))
    const firstEnd = ctx.summaries()[0]?.replaces[1] ?? 0
    await ctx.addMessages(h.slice(half))
    const out = await ctx.getMessages()
    // A second summary was made, and it superseded the first: the context keeps only it.
    const summaries = ctx.summaries()
    expect(summaries).toHaveLength(1)
    expect(summaries[0]?.replaces[1]).toBeGreaterThan(firstEnd)
    const ids = oracleIds(contentText(firstSummary?.content))
    const text = sentText(out)
    expect(ids.length).toBeGreaterThan(0)
    expect(ids.filter((id) => !text.includes(id))).toEqual([])
  })

  describe('with the OpenAI-compatible summarizer on a loopback server', () => {
    let server: FakeOpenAI
    beforeAll(async () => {
      server = await startFakeOpenAI()
    })
    afterAll(async () => {
      await server.close()
    })

    it('the server summary loses every id; the sent summary gets them back in its facts section', async () => {
      server.fallback = {
        kind: 'reply',
        content: 'The user changed some flights and paid with a card.',
      }
      const h = longest[2] as Message[]
      const r = await fitAsync(h, {
        strategy: summarizing({
          summarizer: openAICompatibleSummarizer({ baseURL: server.url, model: 'fake' }),
        }),
        budget: 4000,
        counter,
      })
      expect(server.requests.length).toBe(1)
      const summary = r.inserted[0]
      const body = contentText(summary?.message.content)
      expect(body).toMatch(
        /\nThe user changed some flights and paid with a card\.\n\n\[Facts from the summarized messages, quoted/,
      )
      const ids = oracleIds(sentText(summary?.replaces.map((i) => h[i] as Message) ?? []))
      expect(ids.length).toBeGreaterThan(5)
      const text = sentText(r.messages)
      expect(ids.filter((id) => !text.includes(id))).toEqual([])
      expect(summary?.facts?.reinserted.length).toBeGreaterThan(5)
      expect(r.tokens.total).toBeLessThanOrEqual(4000)
    })
  })
})

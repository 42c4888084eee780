import { describe, expect, it } from 'vitest'
import { anthropicViolations } from '../../test/oracle/anthropic.js'
import { openAIChatViolations } from '../../test/oracle/openai.js'
import { tauBench } from '../../test/tau-bench.js'
import { ChatContext } from '../context/chat/chat-context.js'
import { fit } from '../context/fit.js'
import { InvalidOptionError } from '../errors.js'
import { type Message, messageText } from '../messages/message.js'
import { toAnthropic } from '../providers/anthropic-messages/codec.js'
import { fromOpenAIChat, toOpenAIChat } from '../providers/openai-chat/codec.js'
import { exactCounter } from '../tokens/counters.js'
import { clearToolResults } from '../transforms/clear-tool-results.js'
import { pipe } from '../transforms/pipe.js'
import { LEDGER_HEADING, withLedger } from './ledger.js'
import { mostRelevant } from './most-relevant.js'
import { entities } from './named-scorers.js'
import { tokenLimited } from './token-limited.js'
import type { View } from './types.js'

const counter = exactCounter()
const trajectory = (k: number) => fromOpenAIChat(tauBench()[k]?.traj ?? [])
const ledgerOf = (r: ReturnType<typeof fit>) => r.inserted.find((i) => i.reason === 'ledger')
const textOf = (ms: readonly Message[]) => ms.map(messageText).join('\n')

describe('the ledger of what was dropped', () => {
  it('keeps the identifiers of dropped turns, counted, within budget, with the message and source', () => {
    const h = trajectory(3)
    const budget = 2200
    const before = fit(h, { budget, ledger: false })
    const after = fit(h, { budget })
    const ledger = ledgerOf(after)
    expect(ledger).toBeDefined()
    expect(ledger?.position).toBe(1)
    expect(after.tokens.total).toBeLessThanOrEqual(budget)
    expect(after.tokens.total).toBe(counter.countMessages(after.messages))
    // Identifiers of dropped tool results: sent now, not sent before.
    const dropped = before.dropped.map((i) => h[i] as Message).filter((m) => m.role === 'tool')
    const ids = [...new Set(textOf(dropped).match(/\b[a-z]+_[a-z]+_\d{3,}\b|\b[A-Z0-9]{6}\b/g))]
    const sentBefore = textOf(before.messages)
    const sentAfter = textOf(after.messages)
    const recovered = ids.filter((id) => !sentBefore.includes(id) && sentAfter.includes(id))
    expect(recovered.length).toBeGreaterThan(0)
    expect(ledger?.message.content).toMatch(/^\[Earlier messages.*\]\nmessage \d+ by \w+/)
    // Every message it stands for is accounted as summarized by it.
    for (const k of ledger?.replaces ?? [])
      expect(after.fates[k]).toMatchObject({ fate: 'summarized', reason: 'ledger' })
  })

  it('the old default is one option away, and a history without tool calls is fitted as before', () => {
    const h = trajectory(5)
    expect(fit(h, { budget: 2500, ledger: false }).messages).toEqual(
      fit(h, { budget: 2500, strategy: tokenLimited(), ledger: false }).messages,
    )
    const chat: Message[] = [{ role: 'system', content: 'Be kind.' }]
    for (let i = 0; i < 60; i++)
      chat.push({ role: i % 2 ? 'assistant' : 'user', content: `order ORD${1000 + i} noted ${i}` })
    expect(fit(chat, { budget: 300 }).messages).toEqual(
      fit(chat, { budget: 300, ledger: false }).messages,
    )
    // Asked for, it lists what was dropped even without tool calls.
    const asked = fit(chat, { budget: 300, ledger: true })
    const listed = ((ledgerOf(asked)?.message.content ?? '') as string).match(/ORD\d+/g) ?? []
    expect(listed.length).toBeGreaterThan(0)
    const droppedText = textOf(asked.dropped.map((i) => chat[i] as Message))
    for (const id of listed) expect(droppedText).toContain(id)
  })

  it('OpenAI and Anthropic accept the request it is in, whatever the cut', () => {
    const h = trajectory(11)
    for (let given = 1800; given <= 6000; given += 300) {
      for (const provider of ['openai', 'anthropic'] as const) {
        // Claude's estimate (the default counter under Anthropic rules) counts more than o200k.
        const budget = provider === 'anthropic' ? 2 * given : given
        const r = fit(h, { budget, provider, ledger: true })
        const problems =
          provider === 'openai'
            ? openAIChatViolations(toOpenAIChat(r.messages))
            : anthropicViolations(toAnthropic(r.messages))
        expect(problems, `${provider} at ${budget}`).toEqual([])
      }
    }
  })

  it('changes only when the cut moves (stable view): the prompt cache breaks no more than the cut', async () => {
    const h = trajectory(20)
    const ctx = new ChatContext({ budget: 2600, stable: true, initialMessages: h.slice(0, 1) })
    let lastLedger: string | undefined
    // The cut: which messages are left out (the newest user turn is sent even past it).
    let lastDropped: string | undefined
    let changes = 0
    let cuts = 0
    for (const m of h.slice(1)) {
      ctx.addMessage(m)
      if (m.role === 'assistant' && m.toolCalls?.length) continue
      const r = await ctx.fit()
      const ledger = ledgerOf(r)?.message.content as string | undefined
      const dropped = r.dropped.join(',')
      if (ledger !== lastLedger) changes++
      if (dropped !== lastDropped) cuts++
      if (ledger !== lastLedger) expect(dropped).not.toBe(lastDropped)
      lastLedger = ledger
      lastDropped = dropped
    }
    expect(cuts).toBeGreaterThan(1)
    expect(changes).toBeLessThanOrEqual(cuts)
  })

  it('never repeats a credential, and invents no value', () => {
    const h: Message[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'Log me in, I am user mia_li_3668.' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'login', arguments: '{"user_id":"mia_li_3668"}' }],
      },
      {
        role: 'tool',
        toolCallId: 'c1',
        content: JSON.stringify({
          session_token: 'tok_9f8e7d6c5b4a39281',
          api_key: 'sk-proj-ABCDEF1234567890',
          password: 'Hunter2Secret9',
          reservation_id: '8JX2WO',
          // A number too large for a double: the credential is found as written.
        }).replace(/}$/, ',"credentials":{"account_id":98765432109876543210}}'),
      },
      { role: 'assistant', content: 'Logged in.' },
      ...Array.from(
        { length: 12 },
        (_, i): Message => ({
          role: i % 2 ? 'assistant' : 'user',
          content: `filler message ${i} ${'lorem ipsum '.repeat(20)}`,
        }),
      ),
    ]
    const r = fit(h, { budget: 700, ledger: true })
    const text = ledgerOf(r)?.message.content as string
    expect(text).toContain('8JX2WO')
    expect(text).toContain('mia_li_3668')
    for (const secret of [
      'tok_9f8e7d6c5b4a39281',
      'sk-proj-ABCDEF1234567890',
      'Hunter2Secret9',
      '98765432109876543210',
    ])
      expect(text).not.toContain(secret)
  })

  it('a saved state brings the ledger setting back: the same request after fromState', async () => {
    const h = trajectory(7)
    const ctx = new ChatContext({ budget: 2400 })
    ctx.addMessages(h)
    const restored = ChatContext.fromState(JSON.parse(JSON.stringify(ctx.saveState())))
    expect(await restored.getMessages()).toEqual(await ctx.getMessages())
    expect(ledgerOf(await restored.fit())).toBeDefined()
    const off = new ChatContext({ budget: 2400, ledger: false })
    off.addMessages(h)
    const back = ChatContext.fromState(JSON.parse(JSON.stringify(off.saveState())))
    expect(ledgerOf(await back.fit())).toBeUndefined()
  })

  it('the strategy inside sees the view its wrapper gave, and a view without narrowed works too', () => {
    const h = trajectory(3)
    const seen: (string | undefined)[] = []
    const inner = tokenLimited()
    const spy = {
      ...inner,
      select: (v: View) => {
        seen.push(v.query)
        return inner.select(v)
      },
    }
    const led = withLedger(spy)
    // A strategy that hands the ledger a view with its own query.
    const wrapping = {
      ...led,
      select: (v: View) => led.select(Object.create(v, { query: { value: 'wrapped query' } })),
    }
    const wrapped = fit(h, { budget: 2200, strategy: wrapping })
    expect(seen.length).toBeGreaterThan(0)
    expect(new Set(seen)).toEqual(new Set(['wrapped query']))
    // A view made without narrowed (by hand, or by older code) is narrowed by a layer over it.
    const bare = {
      ...led,
      select: (v: View) => led.select(Object.create(v, { narrowed: { value: undefined } })),
    }
    const plain = fit(h, { budget: 2200, strategy: bare })
    expect(plain.messages).toEqual(wrapped.messages)
    expect(ledgerOf(plain)).toBeDefined()
  })

  it('refuses a wrong ledger option, naming it', () => {
    const h = trajectory(1)
    expect(() => fit(h, { budget: 2000, ledger: { share: 2 } })).toThrow(/ledger\.share/)
    expect(() => fit(h, { budget: 2000, ledger: { sahre: 0.2 } as never })).toThrow(/share/)
    expect(() => fit(h, { budget: 2000, ledger: 'yes' as never })).toThrow(InvalidOptionError)
    expect(() => fit(h, { budget: 2000, ledger: { when: 'never' } as never })).toThrow(
      /ledger\.when/,
    )
  })
})

describe('entity-aware relevance', () => {
  it('an identifier the newest turn names pulls in the older turn that held it', () => {
    const h: Message[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'What is the status of my parcel?' },
      { role: 'assistant', content: 'Your parcel is PKG48213Z, arriving Monday.' },
      ...Array.from(
        { length: 30 },
        (_, i): Message => ({
          role: i % 2 ? 'assistant' : 'user',
          content: `small talk ${i} about the weather and the football results`,
        }),
      ),
      { role: 'user', content: 'Please send it to my office instead.' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'r1', name: 'reroute', arguments: '{"parcel":"PKG48213Z"}' }],
      },
      { role: 'tool', toolCallId: 'r1', content: '{"status":"rerouted"}' },
    ]
    expect(entities()).toBeTypeOf('function')
    const budget = 200
    const kept = fit(h, { budget, strategy: mostRelevant({ identifiers: 0 }) }).kept
    const without = fit(h, { budget, strategy: mostRelevant({ identifiers: 0, entities: 0 }) }).kept
    expect(kept).toContain(2)
    expect(without).not.toContain(2)
  })
})

describe('clearToolResults({ facts })', () => {
  it('a cleared result keeps its identifiers after the placeholder', () => {
    const h = trajectory(3)
    const r = fit(h, {
      strategy: pipe(clearToolResults({ keep: 1, facts: true }), tokenLimited()),
      budget: 1_000_000,
    })
    const cleared = r.changed.filter((c) => c.reason === 'cleared')
    expect(cleared.length).toBeGreaterThan(0)
    const withFacts = cleared
      .map((c) => messageText(r.messages[c.position] as Message))
      .filter((t) => t.includes('Facts quoted from it: '))
    expect(withFacts.length).toBeGreaterThan(0)
    for (const c of cleared) {
      const sent = messageText(r.messages[c.position] as Message)
      const original = messageText(h[c.index] as Message)
      const quoted = sent.split('Facts quoted from it: ')[1] ?? ''
      // Every value is a JSON string holding text of the result, whole.
      for (const q of quoted.match(/"(?:[^"\\]|\\.)*"/g) ?? [])
        expect(original).toContain(JSON.parse(q) as string)
    }
    expect(() => clearToolResults({ facts: 'yes' as never })).toThrow(InvalidOptionError)
  })
})

it('the heading tests look for is the one the library writes', () => {
  expect(
    LEDGER_HEADING.startsWith('[Earlier messages were left out to fit the context window.'),
  ).toBe(true)
})

it('the ledger shown in docs/strategies.md is the one the bundled example gets at 3,000 tokens', async () => {
  const { readFileSync } = await import('node:fs')
  const { decode } = await import('../formats/detect.js')
  const doc = readFileSync(new URL('../../docs/strategies.md', import.meta.url), 'utf8')
  const shown = /## Agents[\s\S]*?```\n([\s\S]*?)\n```/.exec(doc)?.[1]
  const example = JSON.parse(
    readFileSync(new URL('../../examples/airline-booking.json', import.meta.url), 'utf8'),
  )
  const r = fit(decode(example).messages, { budget: 3000 })
  expect(ledgerOf(r)?.message.content).toBe(shown)
})

it('a credential one message gives is quoted from no other: not in the ledger, not in a cleared result', () => {
  const secret = 'Q7abc12345XYz9'
  const h: Message[] = [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: `Log me in. My password is ${secret}` },
  ]
  for (let k = 0; k < 6; k++) {
    h.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${k}`, name: 'lookup', arguments: `{"order_id":"ORD${1000 + k}"}` }],
    })
    // The result echoes it bare, under a key that names nothing secret.
    h.push({
      role: 'tool',
      toolCallId: `c${k}`,
      content: JSON.stringify({ order_id: `ORD${1000 + k}`, echo: secret, note: 'x'.repeat(400) }),
    })
  }
  h.push({ role: 'user', content: 'Thanks, what next?' })
  const led = fit(h, { budget: 400, ledger: true })
  const ledger = ledgerOf(led)?.message.content as string
  expect(ledger).toContain('ORD100')
  expect(ledger).not.toContain(secret)
  const cleared = fit(h, {
    strategy: pipe(clearToolResults({ keep: 1, facts: true }), tokenLimited()),
    budget: 1_000_000,
  })
  const texts = cleared.changed
    .filter((c) => c.reason === 'cleared')
    .map((c) => messageText(cleared.messages[c.position] as Message))
  expect(texts.join('\n')).toContain('ORD100')
  expect(texts.join('\n')).not.toContain(secret)
})

import fc from 'fast-check'
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { tauBench } from '../../test/tau-bench.js'
import { ChatContext } from '../context/chat/chat-context.js'
import { fit } from '../context/fit.js'
import type { Message } from '../messages/message.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import type { TokenCounter } from '../tokens/counter.js'
import { estimateCounter, exactCounter } from '../tokens/counters.js'
import { tokenLimited } from './token-limited.js'

// The ledger is made once per cut and counted piece by piece: these tests hold it to what a
// count of the whole text says, and to the prompt cache a stable cut promises.

const ledgerOf = (r: ReturnType<typeof fit>) => r.inserted.find((i) => i.reason === 'ledger')

/** Values a fact may hold, the nasty ones among them. */
const value = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    'ORD-2024-0042',
    'res.v2.ABC123',
    'user_10',
    '__proto__',
    'constructor',
    '"quoted"',
    'a\\"b',
    'line\nbreak',
    '\u2028sep',
    '😀🎉 emoji',
    '𝒳𝒴𝒵-42',
    '2024-05-15T10:00:00Z',
    '$1,250.00',
    'mia.li@example.com',
    'https://example.com/a?b=1',
    '/var/log/app.log',
    '<|endoftext|>',
    'x'.repeat(120),
  ),
  fc.string({ unit: 'grapheme', maxLength: 24 }),
  fc.stringMatching(/^[A-Z0-9]{6}$/),
)
const key = fc.constantFrom(
  'reservation_id',
  'user_id',
  'flight.number',
  '__proto__',
  'date',
  'amount',
  'email',
  'note',
  'spreadsheet_id',
)

/** An agent history: a system prompt, then user turns with a tool exchange each. */
const history = fc
  .array(
    fc.record({
      ask: value,
      args: fc.dictionary(key, value, { maxKeys: 3 }),
      result: fc.dictionary(key, value, { maxKeys: 6 }),
      answer: value,
    }),
    { minLength: 6, maxLength: 24 },
  )
  .map((turns): Message[] => {
    const out: Message[] = [{ role: 'system', content: 'You are a booking agent.' }]
    turns.forEach((t, k) => {
      out.push({ role: 'user', content: `turn ${k}: ${t.ask}` })
      const id = `call.${k}.x`
      out.push({
        role: 'assistant',
        content: '',
        toolCalls: [{ id, name: 'get_reservation', arguments: JSON.stringify(t.args) }],
      })
      out.push({ role: 'tool', toolCallId: id, content: JSON.stringify(t.result) })
      out.push({ role: 'assistant', content: t.answer })
    })
    out.push({ role: 'user', content: 'and now?' })
    return out
  })

const counters: [string, TokenCounter][] = [
  ['o200k', exactCounter()],
  ['cl100k', exactCounter({ encoding: 'cl100k_base' })],
  ['estimate (pieces)', estimateCounter()],
  ['estimate (chars)', estimateCounter({ base: 'chars' })],
  ['Claude (measured)', estimateCounter({ model: 'claude-sonnet-4-5' })],
  ['Claude (measured, o200k)', estimateCounter({ model: 'claude-sonnet-4-5', base: 'o200k' })],
  ['Gemini', estimateCounter({ model: 'gemini-2.5-flash' })],
]

describe('the ledger counted piece by piece', () => {
  for (const [name, counter] of counters) {
    it(`${name}: the ledger's count is the count of its whole text`, () => {
      let seen = 0
      fc.assert(
        fc.property(history, fc.integer({ min: 300, max: 1400 }), (h, budget) => {
          let r: ReturnType<typeof fit>
          try {
            r = fit(h, { budget, counter, ledger: true })
          } catch {
            return // the newest turn alone does not fit: not what is tested here
          }
          const ledger = ledgerOf(r)
          if (!ledger) return
          seen++
          const text = ledger.message.content as string
          // The request counted afresh (the result's messages are new objects: no count kept).
          const whole = r.messages.reduce((n, m) => n + counter.countMessage(m), 0)
          expect(r.tokens.messages).toBe(whole)
          // And the ledger by the published rule, apart from the library: 3 per message, the
          // role, the text (a run sliced for speed may add one token a slice, never fewer).
          if (name === 'o200k') {
            const rule = 3 + o200k('user') + o200k(text)
            const counted = counter.countMessage({ role: 'user', content: text })
            expect(counted).toBeGreaterThanOrEqual(rule)
            expect(counted).toBeLessThanOrEqual(rule + Math.ceil(text.length / 48))
          }
          expect(r.tokens.total).toBeLessThanOrEqual(budget)
        }),
        { numRuns: 150 },
      )
      expect(seen).toBeGreaterThan(20)
    })
  }
})

describe('the ledger kept per cut', () => {
  it('a context fed one message at a time writes the ledger a fresh fit of the same history writes', () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 500, max: 1400 }), (h, budget) => {
        const ctx = new ChatContext({ budget, ledger: true, initialMessages: h.slice(0, 1) })
        let last: Message[] | undefined
        for (const m of h.slice(1)) {
          ctx.addMessage(m)
          try {
            last = ctx.getMessagesSync()
          } catch {
            last = undefined
          }
        }
        let fresh: ReturnType<typeof fit> | undefined
        try {
          fresh = fit(structuredClone(h), { budget, ledger: true })
        } catch {
          fresh = undefined
        }
        expect(last === undefined).toBe(fresh === undefined)
        if (last && fresh) expect(last).toEqual(fresh.messages)
      }),
      { numRuns: 40, seed: 7 },
    )
  })

  it('every call of a context fed one message at a time is the request a fresh fit makes, credentials coming and going in the window', () => {
    // Tokens a credential filter knows by their form, and values under a credential's key.
    const token = fc.constantFrom(
      `ghp_${'aB3dE5fG7h'.repeat(3)}123456`,
      'AKIAQWERTYUIOP123456',
      `xoxb-${'1234567890'}-${'0987654321'}-${'AbCdEfGhIjKlMnOpQrStUvWx'}`,
    )
    const secretKey = fc.constantFrom('password', 'api_key', 'access_token')
    const withSecrets = fc
      .tuple(
        history,
        fc.array(fc.tuple(fc.nat(), secretKey, fc.oneof(token, value)), { maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), token), { maxLength: 3 }),
      )
      .map(([h, keyed, bare]): Message[] => {
        const out = structuredClone(h)
        const results = out.filter((m) => m.role === 'tool')
        for (const [at, k, v] of keyed) {
          const m = results[at % results.length] as Message & { content: string }
          m.content = JSON.stringify({ ...JSON.parse(m.content), [k]: v })
        }
        for (const [at, t] of bare) {
          const m = results[at % results.length] as Message & { content: string }
          m.content = JSON.stringify({ ...JSON.parse(m.content), note: `use ${t} from now on` })
        }
        return out
      })
    const tokens = [
      `ghp_${'aB3dE5fG7h'.repeat(3)}123456`,
      'AKIAQWERTYUIOP123456',
      'AbCdEfGhIjKlMnOpQrStUvWx',
    ]
    let withCredential = 0
    for (const [name, counter] of [counters[0], counters[2]] as [string, TokenCounter][])
      fc.assert(
        fc.property(withSecrets, fc.integer({ min: 400, max: 1200 }), (h, budget) => {
          const ctx = new ChatContext({
            budget,
            counter,
            ledger: true,
            initialMessages: h.slice(0, 1),
          })
          for (let n = 2; n <= h.length; n++) {
            ctx.addMessage(h[n - 1] as Message)
            let got: Message[] | undefined
            let fresh: Message[] | undefined
            try {
              got = ctx.getMessagesSync()
            } catch {
              got = undefined
            }
            try {
              // A copy: nothing this history's messages were read for is known to it.
              fresh = fit(structuredClone(h.slice(0, n)), {
                budget,
                counter,
                ledger: true,
              }).messages
            } catch {
              fresh = undefined
            }
            expect(got, `${name}, call ${n}`).toEqual(fresh)
            const ledger = got?.find(
              (m) =>
                m.role === 'user' &&
                typeof m.content === 'string' &&
                m.content.startsWith('[Earlier'),
            )
            for (const t of tokens) expect(JSON.stringify(ledger ?? '')).not.toContain(t)
            // A ledger written while a credential was in the history it quotes from.
            if (
              ledger &&
              tokens.some((t) => h.slice(0, n).some((m) => JSON.stringify(m).includes(t)))
            )
              withCredential++
          }
        }),
        { numRuns: 12, seed: 11, endOnFailure: true },
      )
    // The check above ran on ledgers made beside credentials, not only on none.
    expect(withCredential).toBeGreaterThan(20)
  })

  it('on agent traffic, every call of a context is the request a fresh fit of that history makes', () => {
    // Trajectories 60-64 in one conversation: the cut moves by a message or a few most calls.
    const stream = tauBench()
      .slice(60, 65)
      .flatMap((r, k) => fromOpenAIChat(r.traj).slice(k === 0 ? 0 : 1))
    for (const [budget, stable] of [
      [3000, false],
      [2500, true],
    ] as const) {
      const ctx = new ChatContext({ budget, ...(stable && { stable }) })
      let calls = 0
      let ledgers = 0
      stream.forEach((m, k) => {
        ctx.addMessage(m)
        if (m.role === 'assistant') return
        const got = ctx.getMessagesSync()
        const fresh = fit(structuredClone(stream.slice(0, k + 1)), {
          budget,
          ...(stable && { strategy: tokenLimited({ stable }) }),
        })
        expect(got, `call at message ${k}`).toEqual(fresh.messages)
        calls++
        if (ledgerOf(fresh)) ledgers++
      })
      expect(ledgers).toBeGreaterThan(calls / 2)
    }
  })

  it('under a stable cut the ledger moves the cut no more often: the prefix is kept as often as without it (held-out trajectories)', () => {
    // Trajectories 60-89, one conversation: none of them was looked at to set the rule.
    const stream = tauBench()
      .slice(60, 90)
      .flatMap((r, k) => fromOpenAIChat(r.traj).slice(k === 0 ? 0 : 1))
    const kept = (ledger: boolean) => {
      const ctx = new ChatContext({ budget: 6000, stable: true, ledger })
      let previous: Message[] | undefined
      let calls = 0
      let hits = 0
      let ledgerOnly = 0
      for (const m of stream) {
        ctx.addMessage(m)
        if (m.role === 'assistant') continue
        const view = ctx.getMessagesSync()
        if (previous) {
          calls++
          let common = 0
          while (common < previous.length && view[common] === previous[common]) common++
          if (common === previous.length) hits++
          // The ledger (after the system prompt) changed while every message after it stayed.
          else if (common === 1 && view[2] === previous[2]) ledgerOnly++
        }
        previous = view
      }
      return { share: hits / calls, ledgerOnly }
    }
    const without = kept(false)
    const withLedger = kept(true)
    expect(without.share).toBeGreaterThan(0.8)
    expect(withLedger.share).toBeGreaterThanOrEqual(without.share - 0.02)
    expect(withLedger.ledgerOnly).toBeLessThanOrEqual(2)
  })
})

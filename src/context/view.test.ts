import { describe, expect, it } from 'vitest'
import type { Message } from '../messages/message.js'
import { tokenLimited } from '../strategies/token-limited.js'
import type { Strategy, View } from '../strategies/types.js'
import { ChatContext } from './chat-context.js'
import { fit } from './fit.js'

const call = (id: string): Message => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id, name: 'lookup', arguments: '{"q":"x"}' }],
})
const result = (id: string, text: string): Message => ({
  role: 'tool',
  toolCallId: id,
  content: text,
})

/** A history with every unit kind: preamble, messages, exchanges, a system message mid-way. */
function history(): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You help with bookings.' }]
  for (let k = 0; k < 12; k++) {
    out.push({ role: 'user', content: `Question ${k} 🧭 about HAT${k}` })
    if (k % 3 === 0) out.push(call(`c.${k}`), result(`c.${k}`, `found ${k}`))
    if (k === 5) out.push({ role: 'system', content: 'Be brief.' })
    out.push({ role: 'assistant', content: `Answer ${k}` })
  }
  return out
}

/** What a strategy written against the view's arrays sees, and what the methods say. */
function probe(seen: { arrays?: unknown; methods?: unknown }): Strategy {
  const base = tokenLimited()
  return {
    ...base,
    select(view: View) {
      const n = view.unitCount
      seen.methods = {
        units: Array.from({ length: n }, (_, u) => ({
          kind: view.kind(u),
          start: view.start(u),
          end: view.end(u),
          complete: true,
        })),
        tokens: view.messages.map((_, i) => view.messageTokens(i)),
        unitTokens: Array.from({ length: n }, (_, u) => view.unitSize(u)),
        unitPrefix: Array.from({ length: n + 1 }, (_, k) => view.rangeTokens(0, k)),
      }
      seen.arrays = {
        units: view.units,
        tokens: view.tokens,
        unitTokens: view.unitTokens,
        unitPrefix: view.unitPrefix,
      }
      return base.select(view)
    },
  }
}

describe('View', () => {
  it('its arrays, made on first read, say what its methods say', () => {
    const seen: { arrays?: unknown; methods?: unknown } = {}
    fit(history(), { strategy: probe(seen), budget: 100_000 })
    expect(seen.arrays).toEqual(seen.methods)
    const { units } = seen.methods as { units: { kind: string }[] }
    expect(new Set(units.map((u) => u.kind))).toEqual(new Set(['system', 'message', 'exchange']))
  })

  it('units tile the messages in order, and the sums add up, in fit and in ChatContext', () => {
    for (const run of ['fit', 'context'] as const) {
      const seen: { arrays?: unknown; methods?: unknown } = {}
      const h = history()
      if (run === 'fit') fit(h, { strategy: probe(seen), budget: 100_000 })
      else new ChatContext({ strategy: probe(seen), budget: 100_000, initialMessages: h }).fit()
      const m = seen.methods as {
        units: { start: number; end: number }[]
        tokens: number[]
        unitPrefix: number[]
      }
      let at = 0
      for (const u of m.units) {
        expect(u.start).toBe(at)
        expect(u.end).toBeGreaterThan(u.start)
        at = u.end
      }
      expect(at).toBe(m.tokens.length)
      const total = m.tokens.reduce((a, b) => a + b, 0)
      expect(m.unitPrefix.at(-1)).toBe(total)
      expect(m.unitPrefix[0]).toBe(0)
    }
  })

  it('names a unit or message outside the view in a RangeError', () => {
    let view: View | undefined
    const base = tokenLimited()
    fit(history(), {
      budget: 100_000,
      strategy: {
        ...base,
        select(v: View) {
          view = v
          return base.select(v)
        },
      },
    })
    const v = view as View
    for (const bad of [-1, v.unitCount, v.unitCount + 5]) {
      expect(() => v.start(bad)).toThrow(RangeError)
      expect(() => v.end(bad)).toThrow(RangeError)
      expect(() => v.kind(bad)).toThrow(RangeError)
      expect(() => v.unitSize(bad)).toThrow(RangeError)
    }
    expect(() => v.messageTokens(v.messages.length)).toThrow(RangeError)
    expect(Number.isNaN(v.rangeTokens(0, v.unitCount + 1))).toBe(true)
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { userTurn } from '../../../test/helpers/turns.js'
import { RUNS, SEED } from '../../../test/properties/generators.js'
import { storedCountLie } from '../../../test/properties/hostile.js'
import { fitWithFeedback } from '../../integrations/shared.js'
import type { Message } from '../../messages/message.js'
import { errorsOf, validate } from '../../providers/validate.js'
import { tokenLimited } from '../../strategies/token-limited.js'
import { exactCounter } from '../../tokens/counters.js'
import { ChatContext } from '../chat/chat-context.js'
import { type Calibration, calibrate, HOLD } from './calibration.js'
import { ProviderFeedback } from './learned-limit.js'

/** A deterministic agent conversation: turns of varied length, a tool exchange every third turn. */
function conversation(turns: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are an airline agent. Keep it short.' }]
  for (let k = 0; k < turns; k++) {
    out.push({ role: 'user', content: userTurn(k, 40 + ((k * 37) % 120)) })
    if (k % 3 === 0) {
      out.push({
        role: 'assistant',
        content: '',
        toolCalls: [{ id: `call.${k}`, name: 'lookup', arguments: JSON.stringify({ q: k }) }],
      })
      out.push({
        role: 'tool',
        toolCallId: `call.${k}`,
        content: userTurn(k + 1000, 30 + ((k * 53) % 200)),
      })
    }
    out.push({ role: 'assistant', content: userTurn(k + 5000, 20 + ((k * 29) % 80)) })
  }
  return out
}

/** The provider's figure: our count times `scale`, with a fixed ±`noise` sequence. */
function billedAs(scale: number, noise: number) {
  let k = 0
  return (counted: number) => {
    const wobble = ((((k++ * 7919) % 31) - 15) / 15) * noise
    return Math.round(counted * scale * (1 + wobble))
  }
}

const BUDGET = 6000
const stable = () => tokenLimited({ stable: { evictAtLeast: 1500 } })

/**
 * A ChatContext with a stable view, usage recorded after every call as the adapters do: the
 * share of calls whose sent list starts with the previous call's list, and each call's billed
 * size.
 */
function replayContext(bill: ((counted: number) => number) | undefined) {
  const counter = exactCounter()
  const ctx = new ChatContext({ strategy: stable(), budget: BUDGET, counter })
  let previous: Message[] | undefined
  let calls = 0
  let hits = 0
  const billed: number[] = []
  for (const m of conversation(300)) {
    ctx.addMessage(m)
    if (m.role === 'system' || (m.role === 'assistant' && !m.toolCalls)) continue
    const view = ctx.getMessagesSync()
    expect(errorsOf(validate(view))).toEqual([])
    if (previous) {
      calls++
      if (previous.every((p, i) => view[i] === p)) hits++
    }
    previous = view
    if (bill) {
      const promptTokens = bill(counter.countMessages(view))
      billed.push(promptTokens)
      ctx.recordUsage({ promptTokens })
    }
  }
  return { kept: hits / calls, billed }
}

/** The same through an adapter's path: a plain array fitted with a ProviderFeedback. */
function replayFeedback(bill: (counted: number) => number) {
  const counter = exactCounter()
  const feedback = new ProviderFeedback()
  const history: Message[] = []
  let previous: string[] | undefined
  let calls = 0
  let hits = 0
  for (const m of conversation(300)) {
    history.push(m)
    if (m.role === 'system' || (m.role === 'assistant' && !m.toolCalls)) continue
    const r = fitWithFeedback(history, { strategy: stable(), budget: BUDGET, counter, feedback })
    const sent = r.messages.map((x) => JSON.stringify(x))
    if (previous) {
      calls++
      if (previous.every((p, i) => sent[i] === p)) hits++
    }
    previous = sent
    feedback.recordUsage({ promptTokens: bill(r.tokens.total) })
  }
  return hits / calls
}

describe('usage calibration keeps a stable view stable', () => {
  const without = replayContext(undefined).kept

  it.each([
    [1, 0.015],
    [1.17, 0.015],
    [1.17, 0.025],
    [1.35, 0.02],
    [0.9, 0.015],
  ])(
    'provider counts ×%s (noise ±%s): the prefix is kept in at least 85% of calls',
    (scale, noise) => {
      const { kept, billed } = replayContext(billedAs(scale, noise))
      expect(without).toBeGreaterThanOrEqual(0.85)
      expect(kept).toBeGreaterThanOrEqual(0.85)
      // Held factors still fit: after the first reports, what the provider billed is within the
      // budget (less the reply's reserve, 0 here), give or take the noise of one report.
      for (const b of billed.slice(3)) expect(b).toBeLessThanOrEqual(BUDGET * (1 + noise))
    },
  )

  it('through ProviderFeedback, as the adapters record usage, the prefix is kept too', () => {
    expect(replayFeedback(billedAs(1.17, 0.015))).toBeGreaterThanOrEqual(0.85)
    expect(replayFeedback(billedAs(1, 0.015))).toBeGreaterThanOrEqual(0.85)
  })
})

describe('calibrate', () => {
  const first = calibrate({ ratio: undefined, factor: 1 }, 1200, 1000, 0.02)

  it('takes the first plausible figure at once: half the margin, then HOLD above it', () => {
    expect(first.ratio).toBeCloseTo(1.2)
    expect(first.factor).toBeCloseTo(1.2 * 1.01 * (1 + HOLD))
  })

  it('holds the factor while it covers the smoothed ratio within HOLD', () => {
    const next = calibrate(first, 1190, 1000, 0.02)
    expect(next.ratio).toBeCloseTo(1.195)
    expect(next.factor).toBe(first.factor)
    const higher = calibrate(first, 1220, 1000, 0.02)
    expect(higher.factor).toBe(first.factor)
    const lower = calibrate(first, 1160, 1000, 0.02)
    expect(lower.factor).toBe(first.factor)
  })

  it('rises as soon as the ratio passes the factor, to the top of the band', () => {
    const next = calibrate(first, 1300, 1000, 0.02)
    expect(next.ratio).toBeCloseTo(1.25)
    expect(next.factor).toBeCloseTo(1.25 * 1.01 * (1 + HOLD))
  })

  it('falls once the factor wastes more than HOLD of the room', () => {
    let c: Calibration = first
    for (let k = 0; k < 6; k++) c = calibrate(c, 1000, 1000, 0.02)
    expect(c.ratio).toBeLessThan(1.01)
    expect(c.factor).toBeLessThanOrEqual(Math.max(1, (c.ratio as number) * 1.01) * (1 + 2 * HOLD))
    expect(c.factor).toBeGreaterThanOrEqual(1)
  })

  it('never goes below 1 nor above the largest believed ratio', () => {
    expect(calibrate(first, 600, 1000).factor).toBeGreaterThanOrEqual(1)
    let c: Calibration = { ratio: undefined, factor: 1 }
    for (let k = 0; k < 5; k++) c = calibrate(c, 3990, 1000)
    expect(c.factor).toBeLessThanOrEqual(4)
    // Figures outside [0.5, 4] of the count are not believed.
    expect(calibrate(first, 5000, 1000)).toBe(first)
    expect(calibrate(first, 400, 1000)).toBe(first)
    expect(calibrate(first, Number.NaN, 1000)).toBe(first)
  })
})

describe('calibrate over any sequence of reports, lies included', () => {
  it('the factor stays in [1, 4], covers the ratio it keeps, and a figure not believed changes nothing', () => {
    const report = fc.oneof(
      fc.tuple(fc.integer({ min: 1, max: 50_000 }), storedCountLie).map(([n, lie]) => ({
        counted: n,
        promptTokens: lie(n) as unknown,
      })),
      fc.record({
        counted: fc.integer({ min: 0, max: 50_000 }),
        promptTokens: fc.oneof(
          fc.double(),
          fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, '1200', null, undefined),
        ) as fc.Arbitrary<unknown>,
      }),
      fc
        .tuple(fc.integer({ min: 100, max: 50_000 }), fc.double({ min: 0.5, max: 4, noNaN: true }))
        .map(([n, r]) => ({ counted: n, promptTokens: Math.round(n * r) as unknown })),
    )
    fc.assert(
      fc.property(fc.array(report, { maxLength: 40 }), (reports) => {
        let c: Calibration = { ratio: undefined, factor: 1 }
        for (const r of reports) {
          const next = calibrate(c, r.promptTokens, r.counted)
          const measured =
            typeof r.promptTokens === 'number' && r.counted > 0 ? r.promptTokens / r.counted : NaN
          if (!(measured >= 0.5 && measured <= 4)) {
            expect(next).toBe(c)
            continue
          }
          expect(next.factor).toBeGreaterThanOrEqual(1)
          expect(next.factor).toBeLessThanOrEqual(4)
          // Covers the smoothed ratio (up to the largest factor believed), never far above it.
          expect(next.factor).toBeGreaterThanOrEqual(Math.min(4, next.ratio as number))
          const target = Math.min(4, Math.max(1, (next.ratio as number) * 1.01))
          expect(next.factor).toBeLessThanOrEqual(target * (1 + 2 * HOLD) + 1e-9)
          c = next
        }
      }),
      { numRuns: RUNS, seed: SEED },
    )
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import '../../src/compress/index.js'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { type FitOptions, type FitResult, fitAsync } from '../../src/context/fit.js'
import { strategyNames } from '../../src/context/options/registry.js'
import { ContextOverflowError, InvalidInputError } from '../../src/errors.js'
import type { Message } from '../../src/messages/message.js'
import { fromAnthropic, toAnthropic } from '../../src/providers/anthropic-messages/codec.js'
import { fromOpenAIChat, toOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { repair } from '../../src/providers/repair.js'
import { errorsOf, validate } from '../../src/providers/validate.js'
import { exactCounter, providerCounter } from '../../src/tokens/counters.js'
import { meaning } from '../meaning.js'
import { ledgerIndices, ledgerProblems, sourcesOf } from '../oracle/derived-text.js'
import { deepFreeze, history, RUNS, SEED, strategyOptions } from './generators.js'

const counter = exactCounter()
/** The counter a fit uses when no model is named: Claude's estimate under Anthropic rules. */
const countedBy = (p: 'openai' | 'anthropic') =>
  p === 'anthropic' ? providerCounter('anthropic') : counter
const provider = fc.constantFrom('openai' as const, 'anthropic' as const)
const budget = fc.integer({ min: 40, max: 6000 })

describe('every named strategy has an options generator', () => {
  it('so a new strategy cannot go untested', () => {
    expect(strategyNames().filter((n) => !(n in strategyOptions))).toEqual([])
  })
})

function checkResult(
  input: readonly Message[],
  r: FitResult,
  p: 'openai' | 'anthropic',
  b: number,
) {
  expect(errorsOf(validate(r.messages, { provider: p }))).toEqual([])
  expect(r.tokens.total + r.tokens.reserve).toBeLessThanOrEqual(b)
  expect(r.tokens.total).toBe(countedBy(p).countMessages(r.messages))
  // Chronological: kept indices ascend and appear in that order.
  const positions = r.kept.map((i) => r.fates[i]?.position as number)
  expect(positions).toEqual([...positions].sort((x, y) => x - y))
  // The preamble stays (repair never removes it), first.
  let lead = 0
  while (input[lead]?.role === 'system') lead++
  for (let i = 0; i < lead; i++) expect(r.messages[i]).toEqual(input[i])
  // Kept unchanged messages are identical to their input; synthetic ones say what they replace.
  r.fates.forEach((f, i) => {
    if (f.fate === 'kept') expect(r.messages[f.position as number]).toEqual(input[i])
  })
  for (const ins of r.inserted) {
    expect(ins.replaces.length).toBeGreaterThan(0)
    for (const k of ins.replaces) expect(r.fates[k]?.fate).toBe('summarized')
    if (ins.reason === 'ledger') checkLedger(input, ins)
  }
}

/**
 * A ledger invents nothing: past its heading, every line is a record the oracle reads, naming
 * a message it stands for, by its role and tool, and quoting only what that message holds.
 */
function checkLedger(input: readonly Message[], ins: FitResult['inserted'][number]) {
  expect(ins.message.role).toBe('user')
  const text = ins.message.content as string
  const heading = text.split('\n')[0] as string
  expect(heading).toMatch(/^\[Earlier messages were left out/)
  expect(ledgerProblems(text, heading, sourcesOf(input))).toEqual([])
  for (const k of ledgerIndices(text)) expect(ins.replaces).toContain(k)
}

const ledger = fc.constantFrom(undefined, true, false, 'auto' as const, { share: 0.3 })

describe.each(Object.keys(strategyOptions))('%s: the invariants on random histories', (name) => {
  it(`valid for the provider, within budget or a right overflow error, order and preamble kept, input untouched (${RUNS} runs)`, async () => {
    let fitted = 0
    let ledgers = 0
    await fc.assert(
      fc.asyncProperty(
        history,
        strategyOptions[name] as fc.Arbitrary<Record<string, unknown>>,
        budget,
        provider,
        ledger,
        async (h, options, b, p, l) => {
          const input = deepFreeze(h)
          try {
            const r = await fitAsync(input, {
              ...options,
              strategy: name,
              budget: b,
              provider: p,
              ...(l !== undefined && { ledger: l }),
            } as FitOptions)
            checkResult(input, r, p, b)
            fitted++
            if (r.inserted.some((i) => i.reason === 'ledger')) ledgers++
          } catch (e) {
            // Anthropic needs a user message; a history without one is refused by name.
            // The strategy chose nothing sendable: refused by name, never an empty request.
            if (e instanceof InvalidInputError && /nothing to send/.test(e.message)) return
            if (e instanceof InvalidInputError && p === 'anthropic') {
              expect(repair(input, { provider: p }).messages.some((m) => m.role === 'user')).toBe(
                false,
              )
              return
            }
            if (!(e instanceof ContextOverflowError)) throw e
            expect(e.required).toBeGreaterThan(e.budget)
            expect(Object.values(e.breakdown).reduce((x, y) => x + y, 0)).toBe(e.required)
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
    // The generator is not all overflows: most cases exercise a real selection.
    expect(fitted).toBeGreaterThan(RUNS * 0.4)
    // The ledger is exercised wherever a strategy drops for the budget.
    if (['tokenLimited', 'scoreBased', 'mostRelevant'].includes(name))
      expect(ledgers).toBeGreaterThan(0)
  })
})

describe('state and codecs on random histories', () => {
  it(`saveState -> JSON -> loadState gives the same view (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(history, fc.integer({ min: 1500, max: 8000 }), async (h, b) => {
        const ctx = new ChatContext({ budget: b })
        await ctx.addMessages(h)
        const before = await ctx.getMessages().catch((e) => e)
        const other = new ChatContext({ budget: b })
        other.loadState(JSON.parse(JSON.stringify(ctx.saveState())))
        const after = await other.getMessages().catch((e) => e)
        if (before instanceof Error) expect(after).toBeInstanceOf(Error)
        else expect(after).toEqual(before)
      }),
      { numRuns: RUNS, seed: SEED },
    )
  })

  it(`OpenAI and Anthropic codecs keep the meaning of repaired histories (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(history, (h) => {
        const valid = repair(h, { provider: 'anthropic' }).messages
        expect(meaning(fromOpenAIChat(JSON.parse(JSON.stringify(toOpenAIChat(valid)))))).toEqual(
          meaning(valid),
        )
        const { lost: _lost, ...anthropic } = toAnthropic(
          valid.filter(
            (m, i) => m.role !== 'system' || valid.slice(0, i).every((x) => x.role === 'system'),
          ),
        )
        const back = fromAnthropic(JSON.parse(JSON.stringify(anthropic)))
        const again = repair(back, { provider: 'anthropic' }).messages
        // Nothing left (a lone assistant turn Anthropic refuses) is no request: validate says so.
        if (again.length === 0) {
          expect(() => validate(again, { provider: 'anthropic' })).toThrow(InvalidInputError)
          return
        }
        // Repair never invents a user message: a history without one stays without one.
        expect(
          errorsOf(validate(again, { provider: 'anthropic' })).filter(
            (p) => p.code !== 'no-user-turn',
          ),
        ).toEqual([])
      }),
      { numRuns: RUNS, seed: SEED },
    )
  })
})

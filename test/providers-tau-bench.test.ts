import { describe, expect, it } from 'vitest'
import { type FitOptions, fit } from '../src/context/fit.js'
import { ContextOverflowError } from '../src/errors.js'
import { decode } from '../src/formats/detect.js'
import { encodeGemini } from '../src/providers/gemini/codec.js'
import { encodeOpenAIResponses } from '../src/providers/openai-responses/codec.js'
import { errorsOf, validate } from '../src/providers/validate.js'
import { counterFor } from '../src/tokens/counters.js'
import { dropThoughts } from '../src/transforms/drop-thoughts.js'
import { chatToGemini, chatToResponses } from './oracle/build.js'
import { geminiViolations } from './oracle/gemini.js'
import { responsesViolations } from './oracle/responses.js'
import { tauBench } from './tau-bench.js'

const BUDGETS = [1500, 3000, 6000, 12000]
const STRATEGIES = ['tokenLimited', 'userTurns', 'headAndTail', 'scoreBased'] as const
const options = (s: (typeof STRATEGIES)[number]) =>
  s === 'userTurns' ? { maxTurns: 2 } : s === 'headAndTail' ? { head: 2, tail: 6 } : {}

type Json = Record<string, unknown>

describe('τ-bench as Responses histories (reasoning with encrypted_content, compaction items)', () => {
  it('every trajectory, every budget and strategy: the oracle accepts what is sent, within budget', () => {
    let fitted = 0
    let overflows = 0
    tauBench().forEach((r, t) => {
      const source = chatToResponses(r.traj, String(t), {
        ...(t % 5 === 0 && { compactAfter: 6 }),
        someUnencrypted: t % 3 === 0,
      })
      const decoded = decode(JSON.parse(JSON.stringify(source)))
      expect(decoded.format).toBe('openai-responses')
      for (const budget of BUDGETS) {
        const strategy = STRATEGIES[(t + budget) % STRATEGIES.length] as (typeof STRATEGIES)[number]
        let result: ReturnType<typeof fit>
        try {
          result = fit(decoded.messages, {
            budget,
            provider: 'openai-responses',
            strategy,
            ...options(strategy),
            // Every other trajectory with the ledger of what was dropped.
            ...(t % 2 === 0 && { ledger: true }),
            ...(t % 4 === 1 && { transforms: [dropThoughts({ keepLast: 1 })] }),
          } as FitOptions)
        } catch (e) {
          if (!(e instanceof ContextOverflowError)) throw e
          expect(e.required).toBeGreaterThan(budget)
          overflows++
          continue
        }
        fitted++
        expect(result.tokens.total).toBeLessThanOrEqual(budget)
        expect(errorsOf(validate(result.messages, { provider: 'openai-responses' }))).toEqual([])
        for (const store of [true, false]) {
          const ids = store ? 'preserve' : t % 2 ? 'omit' : 'preserve'
          const { output } = encodeOpenAIResponses(result.messages, { request: true, store, ids })
          const req = output as { instructions?: string; input: Json[] }
          expect(req.instructions).toBe(source.instructions)
          const problems = responsesViolations(req.input, { store }, source.input as Json[])
          expect(
            problems,
            `trajectory ${t}, budget ${budget}, ${strategy}, store ${store}, ids ${ids}`,
          ).toEqual([])
        }
      }
    })
    // Most cases are a real selection; only the smallest budget is below some system prompts.
    expect(fitted).toBeGreaterThan((fitted + overflows) * 0.7)
  })

  it('the full history round-trips to the very same request', () => {
    for (const [t, r] of tauBench().slice(0, 50).entries()) {
      const source = chatToResponses(r.traj, String(t), { compactAfter: t % 2 ? 4 : undefined })
      const { output } = encodeOpenAIResponses(decode(source).messages, { request: true })
      expect(output).toEqual(source)
    }
  })
})

describe('τ-bench as Gemini histories (thought parts, signatures, calls with and without ids)', () => {
  const counter = counterFor('gemini-2.5-pro')
  it('every trajectory, every budget and strategy: the oracle accepts what is sent, signatures byte for byte, within budget', () => {
    let fitted = 0
    let overflows = 0
    tauBench().forEach((r, t) => {
      const source = chatToGemini(r.traj, String(t), { noIds: t % 2 === 0 })
      const decoded = decode(JSON.parse(JSON.stringify(source)))
      expect(decoded.format).toBe('gemini')
      for (const budget of BUDGETS) {
        const strategy = STRATEGIES[(t + budget) % STRATEGIES.length] as (typeof STRATEGIES)[number]
        let result: ReturnType<typeof fit>
        try {
          result = fit(decoded.messages, {
            budget,
            provider: 'gemini',
            strategy,
            ...options(strategy),
            // Every other trajectory with the ledger of what was dropped.
            ...(t % 2 === 0 && { ledger: true }),
            ...(t % 4 === 1 && { transforms: [dropThoughts()] }),
          } as FitOptions)
        } catch (e) {
          if (!(e instanceof ContextOverflowError)) throw e
          expect(e.required).toBeGreaterThan(budget)
          overflows++
          continue
        }
        fitted++
        // Counted by Gemini's estimate (o200k × its safety factor) unless told otherwise.
        expect(result.tokens.total).toBe(counter.countMessages(result.messages))
        expect(result.tokens.total).toBeLessThanOrEqual(budget)
        expect(errorsOf(validate(result.messages, { provider: 'gemini' }))).toEqual([])
        const { output } = encodeGemini(result.messages)
        expect(output.systemInstruction).toEqual(source.systemInstruction)
        const problems = geminiViolations(output, source.contents as Json[])
        expect(problems, `trajectory ${t}, budget ${budget}, ${strategy}`).toEqual([])
      }
    })
    // Most cases are a real selection; only the smallest budget is below some system prompts.
    expect(fitted).toBeGreaterThan((fitted + overflows) * 0.7)
  })

  it('the full history round-trips to the very same request', () => {
    for (const [t, r] of tauBench().slice(0, 50).entries()) {
      const source = chatToGemini(r.traj, String(t), { noIds: t % 2 === 0 })
      expect(encodeGemini(decode(source).messages).output).toEqual(source)
    }
  })
})

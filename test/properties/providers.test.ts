import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import '../../src/compress/index.js'
import { type FitOptions, fitAsync } from '../../src/context/fit.js'
import { ContextOverflowError, InvalidInputError } from '../../src/errors.js'
import { decode } from '../../src/formats/detect.js'
import type { Message } from '../../src/messages/message.js'
import { encodeGemini } from '../../src/providers/gemini/codec.js'
import { toOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { encodeOpenAIResponses } from '../../src/providers/openai-responses/codec.js'
import { repair } from '../../src/providers/repair.js'
import { errorsOf, validate } from '../../src/providers/validate.js'
import { chatToGemini, chatToResponses } from '../oracle/build.js'
import { geminiViolations } from '../oracle/gemini.js'
import { responsesViolations } from '../oracle/responses.js'
import { deepFreeze, history, RUNS, SEED, strategyOptions } from './generators.js'
import { hostileHistory } from './hostile.js'

type Json = Record<string, unknown>

/** Unknown fields a provider may add, hostile keys among them: kept, never obeyed. */
const hostile = JSON.parse('{"__proto__":{"polluted":true},"constructor":"x","x-extra":[1]}')

function sprinkle(items: Json[], every: number): Json[] {
  return items.map((x, i) => (i % every === 0 ? { ...x, ...hostile } : x))
}

const strategy = fc.constantFrom(...Object.keys(strategyOptions)).chain((name) =>
  (strategyOptions[name] as fc.Arbitrary<Json>).map((options) => ({
    ...options,
    strategy: name,
  })),
)
const budget = fc.integer({ min: 40, max: 6000 })

describe('Responses and Gemini histories: the invariants on random histories', () => {
  it(`Responses: lossless on its own data; every fit passes the oracle (store true and false), within budget, input untouched (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        history,
        strategy,
        budget,
        fc.record({
          compactAfter: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
          someUnencrypted: fc.boolean(),
          every: fc.integer({ min: 2, max: 6 }),
        }),
        async (h, name, b, opts) => {
          const chat = JSON.parse(JSON.stringify(toOpenAIChat(h))) as Json[]
          const built = chatToResponses(chat, 'p', opts)
          const source = { ...built, input: sprinkle(built.input as Json[], opts.every) }
          const decoded = decode(source)
          expect(decoded.format).toBe('openai-responses')
          expect(encodeOpenAIResponses(decoded.messages, { request: true }).output).toEqual(source)
          const input = deepFreeze(decoded.messages)
          try {
            const r = await fitAsync(input, {
              ...name,
              budget: b,
              provider: 'openai-responses',
            } as FitOptions)
            expect(r.tokens.total + r.tokens.reserve).toBeLessThanOrEqual(b)
            expect(errorsOf(validate(r.messages, { provider: 'openai-responses' }))).toEqual([])
            for (const store of [true, false]) {
              const out = encodeOpenAIResponses(r.messages, { request: true, store }).output as {
                input: Json[]
              }
              expect(responsesViolations(out.input, { store }, source.input)).toEqual([])
            }
          } catch (e) {
            if (!(e instanceof ContextOverflowError)) throw e
            expect(e.required).toBeGreaterThan(e.budget)
          }
          expect(({} as Json).polluted).toBeUndefined()
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })

  it(`Gemini: lossless on its own data; every fit passes the oracle, signatures byte for byte, within budget (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        history,
        strategy,
        budget,
        fc.record({ noIds: fc.boolean(), every: fc.integer({ min: 2, max: 6 }) }),
        async (h, name, b, opts) => {
          const chat = JSON.parse(JSON.stringify(toOpenAIChat(h))) as Json[]
          const built = chatToGemini(chat, 'p', opts)
          const source = { ...built, contents: sprinkle(built.contents as Json[], opts.every) }
          const decoded = decode(source)
          expect(decoded.format).toBe('gemini')
          expect(encodeGemini(decoded.messages).output).toEqual(source)
          const input = deepFreeze(decoded.messages)
          try {
            const r = await fitAsync(input, {
              ...name,
              budget: b,
              provider: 'gemini',
            } as FitOptions)
            expect(r.tokens.total + r.tokens.reserve).toBeLessThanOrEqual(b)
            expect(errorsOf(validate(r.messages, { provider: 'gemini' }))).toEqual([])
            const out = encodeGemini(r.messages).output
            // Gemini refuses empty contents: a fit never returns a list that encodes to none.
            expect(out.contents.length).toBeGreaterThan(0)
            expect(geminiViolations(out, source.contents)).toEqual([])
          } catch (e) {
            if (e instanceof InvalidInputError) {
              // Refused only when no user turn survives the provider's repair.
              expect(String(e.message)).toMatch(/no user message/)
              const kept = repair(input, { provider: 'gemini' }).messages
              expect(kept.some((m) => m.role === 'user')).toBe(false)
            } else {
              if (!(e instanceof ContextOverflowError)) throw e
              expect(e.required).toBeGreaterThan(e.budget)
            }
          }
          expect(({} as Json).polluted).toBeUndefined()
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })

  it(`histories from other formats (foreign thoughts, refusals, images in replies and tool results): what is kept is sent, and only what is sent is counted (${RUNS} runs)`, async () => {
    const png = { type: 'image' as const, data: 'iVBORw0KGgo=', mediaType: 'image/png' }
    const hasPng = (m: Message) =>
      Array.isArray(m.content) && m.content.some((p) => p.type === 'image' && p.data === png.data)
    // Some tool results hold an image, alone or after their text.
    const withImages = fc
      .tuple(hostileHistory, fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }))
      .map(([h, flags]) =>
        h.map((m, k): Message => {
          if (m.role !== 'tool' || !flags[k % 30]) return m
          const text = typeof m.content === 'string' ? m.content : ''
          return { ...m, content: k % 2 ? [png] : [{ type: 'text', text }, png] }
        }),
      )
    let imagesSent = 0
    await fc.assert(
      fc.asyncProperty(withImages, strategy, budget, async (h, name, b) => {
        const input = deepFreeze(h)
        for (const provider of ['openai-responses', 'gemini'] as const) {
          let r: Awaited<ReturnType<typeof fitAsync>>
          try {
            r = await fitAsync(input, { ...name, budget: b, provider } as FitOptions)
          } catch (e) {
            if (e instanceof ContextOverflowError || e instanceof InvalidInputError) continue
            throw e
          }
          if (r.messages.length === 0) continue
          expect(r.tokens.total + r.tokens.reserve).toBeLessThanOrEqual(b)
          const { output, lost } =
            provider === 'gemini'
              ? encodeGemini(r.messages)
              : encodeOpenAIResponses(r.messages, { request: true })
          // Nothing the result keeps is dropped on the way out.
          expect(
            lost.filter((l) => /reasoning|empty message|part of an assistant/.test(l.what)),
          ).toEqual([])
          const wire = JSON.stringify(output)
          for (const m of r.messages) {
            if (m.role === 'assistant' && m.refusal && provider === 'openai-responses')
              expect(wire).toContain(JSON.stringify(m.refusal))
            // A Responses output message holds only text: a kept reply holds nothing else.
            if (m.role === 'assistant' && provider === 'openai-responses')
              expect(
                typeof m.content === 'string' || (m.content ?? []).every((p) => p.type === 'text'),
              ).toBe(true)
            if (m.role === 'tool' && hasPng(m)) {
              expect(wire.split(png.data).length - 1).toBe(
                r.messages.filter((x) => x.role === 'tool' && hasPng(x)).length,
              )
              imagesSent++
              break
            }
          }
          if (provider === 'gemini')
            expect(geminiViolations(output as { contents: unknown[] })).toEqual([])
          else expect(responsesViolations((output as { input: unknown[] }).input)).toEqual([])
        }
      }),
      { numRuns: RUNS, seed: SEED },
    )
    expect(imagesSent).toBeGreaterThan(0)
  })
})

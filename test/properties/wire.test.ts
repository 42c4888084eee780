// The wire output, checked against the providers' published rules (test/oracle), on
// histories built to break it (hostile.ts). Never the library's own validate().
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import '../../src/compress/index.js'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { type FitOptions, type FitResult, fitAsync } from '../../src/context/fit.js'
import { strategyNames } from '../../src/context/options/registry.js'
import { ContextOverflowError, InvalidInputError } from '../../src/errors.js'
import type { Message } from '../../src/messages/message.js'
import { toAnthropic } from '../../src/providers/anthropic-messages/codec.js'
import { fromOpenAIChat, toOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { memoryStore } from '../../src/store/memory-store.js'
import type { TokenCounter } from '../../src/tokens/counter.js'
import { exactCounter, providerCounter } from '../../src/tokens/counters.js'
import { truncateMessages } from '../../src/transforms/truncate-messages.js'
import { anthropicViolations } from '../oracle/anthropic.js'
import { openAIChatViolations } from '../oracle/openai.js'
import { deepFreeze, RUNS, SEED, strategyOptions } from './generators.js'
import { hostileHistory, storedCountLie } from './hostile.js'

const counter = exactCounter()
const provider = fc.constantFrom('openai' as const, 'anthropic' as const)
const budget = fc.integer({ min: 60, max: 5000 })

/** The request body each provider would get for these messages. */
function violations(messages: Message[], p: 'openai' | 'anthropic'): string[] {
  if (p === 'openai')
    return openAIChatViolations(JSON.parse(JSON.stringify(toOpenAIChat(messages))))
  const { lost: _lost, ...request } = toAnthropic(messages)
  return anthropicViolations(JSON.parse(JSON.stringify(request)))
}

/** A user message carrying images or files a tool returned (OpenAI chat takes none in a tool message). */
const movedMedia = (messages: readonly Message[]) =>
  messages.some(
    (m) =>
      m.role === 'user' &&
      Array.isArray(m.content) &&
      m.content[0]?.type === 'text' &&
      / returned by /.test(m.content[0].text),
  )

const hasUser = (h: readonly Message[]) =>
  h.some(
    (m) =>
      m.role === 'user' &&
      (typeof m.content === 'string'
        ? /\S/.test(m.content)
        : m.content.some((p) => p.type !== 'text' || /\S/.test(p.text))),
  )

/** A result, or one of the two typed refusals with its reason checked. */
function checkOutcome(
  input: readonly Message[],
  p: 'openai' | 'anthropic',
  b: number,
  outcome: FitResult | unknown,
  // The counter a fit uses when none is given: Claude's estimate under Anthropic rules.
  used: TokenCounter = p === 'anthropic' ? providerCounter('anthropic') : counter,
): boolean {
  if (outcome instanceof ContextOverflowError) {
    expect(outcome.required).toBeGreaterThan(outcome.budget)
    return false
  }
  if (outcome instanceof InvalidInputError && input.length === 0) {
    // Empty means empty: no history is no request.
    expect(outcome.field).toBe('messages')
    return false
  }
  if (outcome instanceof InvalidInputError) {
    // Nothing left to send (the input had nothing, or the strategy chose nothing), or
    // (Anthropic) no user message with something in it.
    if (/nothing to send/.test(outcome.message)) expect(outcome.field).toBe('messages')
    else {
      expect(p).toBe('anthropic')
      expect(hasUser(input)).toBe(false)
    }
    return false
  }
  if (outcome instanceof Error) throw outcome
  const r = outcome as FitResult
  // The module's fit refuses an empty history (above); a ChatContext with nothing added
  // yet sends nothing.
  if (input.length === 0) {
    expect(r.messages).toEqual([])
    return false
  }
  expect(violations(r.messages, p)).toEqual([])
  expect(r.tokens.total + r.tokens.reserve).toBeLessThanOrEqual(b)
  expect(r.tokens.total).toBe(used.countMessages(r.messages))
  return true
}

describe.each(strategyNames())('%s on hostile histories', (name) => {
  it(`the wire output passes the provider oracle, within budget, or a typed refusal (${RUNS} runs)`, async () => {
    let sent = 0
    let moved = 0
    await fc.assert(
      fc.asyncProperty(
        hostileHistory,
        (strategyOptions[name] ?? fc.constant({})) as fc.Arbitrary<Record<string, unknown>>,
        budget,
        provider,
        async (h, options, b, p) => {
          const input = deepFreeze(h)
          const outcome = await fitAsync(input, {
            ...options,
            strategy: name,
            budget: b,
            provider: p,
          } as FitOptions).catch((e: unknown) => e)
          if (checkOutcome(input, p, b, outcome)) {
            sent++
            if (p === 'openai' && movedMedia((outcome as FitResult).messages)) moved++
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
    expect(sent).toBeGreaterThan(RUNS * 0.3)
    // Tool results with images reach OpenAI chat, moved to a user message.
    expect(moved).toBeGreaterThan(0)
  })
})

describe('truncation at every cap on astral text', () => {
  it(`never a lone surrogate on the wire (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileHistory,
        fc.integer({ min: 1, max: 80 }),
        fc.constantFrom('head' as const, 'tail' as const, 'both' as const),
        provider,
        async (h, cap, keep, p) => {
          const input = deepFreeze(h)
          const outcome = await fitAsync(input, {
            strategy: 'unbounded',
            provider: p,
            transforms: [truncateMessages({ maxTokensPerMessage: cap, keep })],
          }).catch((e: unknown) => e)
          checkOutcome(input, p, Number.POSITIVE_INFINITY, outcome)
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })
})

describe('lying stored counts', () => {
  it(`a context over a store holding wrong counts still sends at most its budget (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileHistory,
        fc.array(storedCountLie, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 200, max: 3000 }),
        provider,
        async (h, lies, b, p) => {
          const store = memoryStore()
          await store.append(
            'c',
            h.map((message, k) => ({
              message,
              tokens: (lies[k % lies.length] as (t: number) => number)(
                counter.countMessage(message),
              ),
              counter: counter.name,
            })),
          )
          const ctx = new ChatContext({ store, id: 'c', budget: b, counter, provider: p })
          const outcome = await ctx.fitAsync().catch((e: unknown) => e)
          checkOutcome(h, p, b, outcome, counter)
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })
})

describe('JSON with keys that are properties of every object', () => {
  const key = fc.constantFrom('__proto__', 'constructor', 'toString', 'role', 'content', 'valueOf')
  it(`decoding gives messages or InvalidInputError, never another error (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(key, key, fc.constantFrom('"x"', '{}', '[]', 'null', '"user"')), {
          minLength: 1,
          maxLength: 4,
        }),
        (pairs) => {
          const messages = pairs.map(
            ([role, k, v]) => `{"role": ${JSON.stringify(role)}, ${JSON.stringify(k)}: ${v}}`,
          )
          const json = JSON.parse(`[${messages.join(',')}]`)
          try {
            const decoded = fromOpenAIChat(json)
            expect(decoded.length).toBe(pairs.length)
          } catch (e) {
            expect(e).toBeInstanceOf(InvalidInputError)
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })
})

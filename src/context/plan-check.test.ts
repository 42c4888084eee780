import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { anthropicViolations } from '../../test/oracle/anthropic.js'
import { openAIChatViolations } from '../../test/oracle/openai.js'
import { RUNS, SEED } from '../../test/properties/generators.js'
import { tauBench } from '../../test/tau-bench.js'
import { ContextOverflowError, InvalidInputError, InvalidPlanError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { toAnthropic } from '../providers/anthropic-messages/codec.js'
import { fromOpenAIChat, toOpenAIChat } from '../providers/openai-chat/codec.js'
import type { PlanItem, Strategy } from '../strategies/types.js'
import { ChatContext } from './chat-context.js'
import { fit } from './fit.js'

/** A strategy that returns whatever plan it is given, as outside code may. */
const custom = (plan: (n: number) => unknown): Strategy => ({
  name: 'custom',
  options: {},
  budgetAware: true,
  select: (view) => plan(view.messages.length) as PlanItem[],
})

const history = fromOpenAIChat(tauBench()[0]?.traj ?? [])
/** Index of an assistant message with a call, and of its result. */
const call = history.findIndex((m) => m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0)
/** The messages of that exchange: the call and every result after it. */
let exchangeEnd = call + 1
while (history[exchangeEnd]?.role === 'tool') exchangeEnd++
const wholeExchange = (first: PlanItem) => [
  { index: 0 },
  first,
  ...Array.from({ length: exchangeEnd - call - 1 }, (_, k) => ({ index: call + 1 + k })),
]

describe("a custom strategy's plan is checked before anything is sent", () => {
  const cases: [string, (n: number) => unknown][] = [
    ['a message named twice', () => [{ index: 0 }, { index: 1 }, { index: 1 }]],
    ['out of order', () => [{ index: 0 }, { index: 2 }, { index: 1 }]],
    ['out of range', (n) => [{ index: 0 }, { index: n }]],
    ['a negative index', () => [{ index: -1 }]],
    ['a null item', () => [{ index: 0 }, null]],
    ['not a list', () => ({ index: 0 })],
    ['a fractional index', () => [{ index: 0.5 }]],
    ['a call without its result', () => [{ index: 0 }, { index: call }]],
    ['a result without its call', () => [{ index: 0 }, { index: call + 1 }]],
    [
      'a synthetic message between a tool call and its results',
      () => [
        { index: 0 },
        { index: call },
        { synthetic: { role: 'user', content: 'note' }, replaces: [], reason: 'summary' },
        ...Array.from({ length: exchangeEnd - call - 1 }, (_, k) => ({ index: call + 1 + k })),
      ],
    ],
    [
      'a message outside an exchange rewritten as a tool result',
      () => [{ index: 0, message: { role: 'tool', toolCallId: 'zzz', content: 'ok' } }],
    ],
    [
      'a message outside an exchange rewritten with a tool call',
      () => [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'zzz', name: 'f', arguments: '{}' }],
          },
        },
      ],
    ],
    [
      'a whole exchange whose call message is replaced by one without the calls',
      () => wholeExchange({ index: call, message: { role: 'assistant', content: 'done' } }),
    ],
    [
      'a synthetic message with an unanswered call',
      () => [
        { index: 0 },
        {
          synthetic: {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'x', name: 'f', arguments: '{}' }],
          },
          replaces: [1],
          reason: 'summary',
        },
      ],
    ],
    [
      'a synthetic tool result',
      () => [
        { index: 0 },
        {
          synthetic: { role: 'tool', toolCallId: 'x', content: 'ok' },
          replaces: [1],
          reason: 'summary',
        },
      ],
    ],
    [
      'a synthetic message that is not one',
      () => [{ index: 0 }, { synthetic: { role: 'user' }, replaces: [1], reason: 'summary' }],
    ],
    ['a replacement message that is not one', () => [{ index: 0, message: { role: 'nobody' } }]],
  ]
  for (const [what, plan] of cases) {
    it(`${what}: an InvalidPlanError from fit, getMessages and fitAsync, nothing sent`, async () => {
      expect(() => fit(history, { strategy: custom(plan), budget: 100_000 })).toThrow(
        InvalidPlanError,
      )
      const ctx = new ChatContext({ strategy: custom(plan), budget: 100_000 })
      await ctx.addMessages(history)
      await expect(ctx.getMessages()).rejects.toBeInstanceOf(InvalidPlanError)
      expect(() => ctx.getMessagesSync()).toThrow(/strategy custom returned a plan/)
    })
  }

  it(`random plans: either the request passes the providers' rules, or a typed error (${RUNS} runs)`, () => {
    const all = history.map((_, i) => i)
    const note = {
      synthetic: { role: 'user', content: 'Earlier: the user booked HAT136.' },
      replaces: [1],
      reason: 'placeholder',
    }
    /** What a strategy might send instead of a message: plain, a stray result, a stray call. */
    const rewrites: Message[] = [
      { role: 'assistant', content: 'Done.' },
      { role: 'tool', toolCallId: 'stray', content: 'ok' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'stray', name: 'f', arguments: '{}' }] },
    ]
    fc.assert(
      fc.property(
        fc.record({
          // Dense sorted subsets take whole exchanges; free lists name anything, in any order.
          picks: fc.oneof(
            fc.subarray(all),
            fc.array(fc.integer({ min: -2, max: history.length + 2 }), { maxLength: 40 }),
          ),
          sorted: fc.boolean(),
          notes: fc.array(fc.nat(), { maxLength: 3 }),
          changed: fc.array(fc.tuple(fc.nat(), fc.nat({ max: rewrites.length - 1 })), {
            maxLength: 3,
          }),
          nulls: fc.array(fc.nat(), { maxLength: 1 }),
        }),
        ({ picks, sorted, notes, changed, nulls }) => {
          const indices = sorted ? [...picks].sort((a, b) => a - b) : picks
          const items: unknown[] = indices.map((index) => ({ index }))
          for (const [at, r] of changed)
            if (items.length) {
              const k = at % items.length
              items[k] = { ...(items[k] as object), message: rewrites[r] }
            }
          // Notes and nulls anywhere: between a call and its results too.
          for (const at of notes) items.splice(at % (items.length + 1), 0, note)
          for (const at of nulls) items.splice(at % (items.length + 1), 0, null)
          for (const provider of ['openai', 'anthropic'] as const) {
            let messages: Message[]
            try {
              messages = fit(history, {
                strategy: custom(() => items),
                budget: 100_000,
                provider,
              }).messages
            } catch (e) {
              expect(
                e instanceof InvalidPlanError ||
                  e instanceof ContextOverflowError ||
                  e instanceof InvalidInputError,
              ).toBe(true)
              continue
            }
            if (provider === 'openai')
              expect(openAIChatViolations(toOpenAIChat(messages))).toEqual([])
            else {
              const { lost: _lost, ...request } = toAnthropic(messages)
              expect(anthropicViolations(request)).toEqual([])
            }
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })
})

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
import { ChatContext } from './chat/chat-context.js'
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

  describe('what every request carries, and what the strategy wrote, for the provider', () => {
    const all = (except: number[] = []) =>
      history.map((_, index) => ({ index })).filter((it) => !except.includes(it.index))
    const n = history.length
    const newestUser = history.map((m) => m.role).lastIndexOf('user')
    const replaceLast = (message: unknown) => [...all([n - 1]), { index: n - 1, message }]
    /** The exchange after the first one, its call and result rewritten to the first one's id. */
    const second = history.findIndex((m, i) => i > call && m.role === 'assistant' && m.toolCalls)
    const firstId = (history[call] as { toolCalls: { id: string }[] }).toolCalls[0]?.id as string
    const reused = () =>
      all().map((it) =>
        it.index === second
          ? {
              index: second,
              message: {
                role: 'assistant',
                content: '',
                toolCalls: [{ id: firstId, name: 'f', arguments: '{}' }],
              },
            }
          : it.index === second + 1
            ? { index: second + 1, message: { role: 'tool', toolCallId: firstId, content: 'ok' } }
            : it,
      )

    it('a plan without the system prompt, the newest user message or the newest message is an InvalidPlanError naming it', () => {
      expect(() => fit(history, { budget: 1e6, strategy: custom(() => all([0])) })).toThrow(
        /system message 0/,
      )
      expect(() =>
        fit(history, { budget: 1e6, strategy: custom(() => all([newestUser])) }),
      ).toThrow(/newest user message/)
      const withReply = [...history, { role: 'assistant', content: 'ok' } as Message]
      expect(() => fit(withReply, { budget: 1e6, strategy: custom(() => all()) })).toThrow(
        /newest message/,
      )
    })

    it('a summary standing for the newest messages carries them; a strategy with its own window is asked only for the system prompt', () => {
      const summary = {
        synthetic: { role: 'user', content: 'Earlier: the user asked.' },
        replaces: [n - 2, n - 1],
        reason: 'summary',
      }
      expect(
        fit(history, { budget: 1e6, strategy: custom(() => [...all([n - 2, n - 1]), summary]) })
          .messages,
      ).toHaveLength(n - 1)
      const windowed = { ...custom(() => all([n - 1])), ownWindow: true }
      expect(fit(history, { budget: 1e6, strategy: windowed }).messages).toHaveLength(n - 1)
      expect(() =>
        fit(history, { budget: 1e6, strategy: { ...windowed, select: () => all([0]) } }),
      ).toThrow(InvalidPlanError)
    })

    it('an empty message where the provider refuses it is an InvalidPlanError; OpenAI chat takes an empty user message', () => {
      const blank = { role: 'user', content: '  ' }
      expect(() =>
        fit(history, {
          budget: 1e6,
          strategy: custom(() => replaceLast(blank)),
          provider: 'anthropic',
        }),
      ).toThrow(/user message is empty, which Anthropic refuses/)
      expect(() =>
        fit(history, {
          budget: 1e6,
          strategy: custom(() => replaceLast({ role: 'user', content: '' })),
          provider: 'gemini',
        }),
      ).toThrow(InvalidPlanError)
      expect(
        fit(history, { budget: 1e6, strategy: custom(() => replaceLast(blank)) }).messages.at(-1),
      ).toEqual(blank)
      const emptyReply = { role: 'assistant', content: '' }
      const plan = () => [
        ...all([n - 1]),
        { synthetic: emptyReply, replaces: [], reason: 'summary' },
        { index: n - 1 },
      ]
      expect(() => fit(history, { budget: 1e6, strategy: custom(plan) })).toThrow(
        /assistant message is empty/,
      )
    })

    it('an assistant turn of reasoning only is an InvalidPlanError for every provider', () => {
      const thoughts = { role: 'assistant', content: '', thought: 'let me think' }
      const plan = () => [
        ...all([n - 1]),
        { synthetic: thoughts, replaces: [], reason: 'summary' },
        { index: n - 1 },
      ]
      for (const provider of ['openai', 'anthropic', 'gemini', 'openai-responses'] as const)
        expect(() => fit(history, { budget: 1e6, strategy: custom(plan), provider })).toThrow(
          /only reasoning/,
        )
    })

    it('a blank text part beside other content is taken out where the provider refuses it, the message kept', () => {
      const parts = {
        role: 'user',
        content: [
          { type: 'text', text: ' ' },
          { type: 'text', text: 'Book it.' },
        ],
      }
      const r = fit(history, {
        budget: 1e6,
        strategy: custom(() => replaceLast(parts)),
        provider: 'anthropic',
      })
      expect(r.messages.at(-1)?.content).toEqual([{ type: 'text', text: 'Book it.' }])
      const { lost: _lost, ...request } = toAnthropic(r.messages)
      expect(anthropicViolations(request)).toEqual([])
      expect(
        fit(history, { budget: 1e6, strategy: custom(() => replaceLast(parts)) }).messages.at(-1),
      ).toEqual(parts)
    })

    it('a call id twice: an InvalidPlanError where the provider refuses it', () => {
      expect(second).toBeGreaterThan(call)
      expect(() =>
        fit(history, { budget: 1e6, strategy: custom(reused), provider: 'anthropic' }),
      ).toThrow(/call id .* is already used in the request, which Anthropic refuses/)
      // OpenAI chat takes an id a later exchange reuses (real traces do it).
      expect(
        openAIChatViolations(
          toOpenAIChat(fit(history, { budget: 1e6, strategy: custom(reused) }).messages),
        ),
      ).toEqual([])
      const twice = () =>
        all().map((it) =>
          it.index === second
            ? {
                index: second,
                message: {
                  role: 'assistant',
                  content: '',
                  toolCalls: [
                    { id: 'x', name: 'f', arguments: '{}' },
                    { id: 'x', name: 'f', arguments: '{}' },
                  ],
                },
              }
            : it.index === second + 1
              ? { index: second + 1, message: { role: 'tool', toolCallId: 'x', content: 'ok' } }
              : it,
        )
      expect(() => fit(history, { budget: 1e6, strategy: custom(twice) })).toThrow(
        /call id x twice/,
      )
    })
  })
})

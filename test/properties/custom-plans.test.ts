import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fit } from '../../src/context/fit.js'
import { ContextOverflowError, InvalidInputError, InvalidPlanError } from '../../src/errors.js'
import type { Message } from '../../src/messages/message.js'
import { toAnthropic } from '../../src/providers/anthropic-messages/codec.js'
import { encodeGemini } from '../../src/providers/gemini/codec.js'
import { toOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { encodeOpenAIResponses } from '../../src/providers/openai-responses/codec.js'
import type { PlanItem, Strategy, View } from '../../src/strategies/types.js'
import { anthropicViolations } from '../oracle/anthropic.js'
import { geminiViolations } from '../oracle/gemini.js'
import { openAIChatViolations } from '../oracle/openai.js'
import { responsesViolations } from '../oracle/responses.js'
import { history, RUNS, SEED } from './generators.js'

/** One change to the plan that sends everything: what outside strategies get wrong. */
type Op =
  | {
      kind: 'drop' | 'duplicate' | 'swap' | 'empty' | 'blank' | 'thoughts' | 'blankPart'
      at: number
    }
  | { kind: 'synthetic'; at: number; role: 'user' | 'assistant'; replaces: number }
  | { kind: 'reuseId'; at: number; from: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constantFrom(
      'drop',
      'duplicate',
      'swap',
      'empty',
      'blank',
      'thoughts',
      'blankPart',
    ) as fc.Arbitrary<'drop'>,
    at: fc.nat(),
  }),
  fc.record({
    kind: fc.constant('synthetic' as const),
    at: fc.nat(),
    role: fc.constantFrom('user' as const, 'assistant' as const),
    replaces: fc.nat(),
  }),
  fc.record({ kind: fc.constant('reuseId' as const), at: fc.nat(), from: fc.nat() }),
)

/** Rewrites item `k` of the plan with `message` (the index it names stays). */
function rewrite(plan: PlanItem[], k: number, message: Message): void {
  const item = plan[k]
  if (item && 'index' in item) plan[k] = { index: item.index, message }
}

/** The plan that sends the whole view, changed by `ops` in turn. */
function planOf(view: View, ops: readonly Op[]): PlanItem[] {
  const n = view.messages.length
  const plan: PlanItem[] = view.messages.map((_, index) => ({ index }))
  const exchanges: number[] = []
  view.messages.forEach((m, i) => {
    if (m.role === 'assistant' && m.toolCalls?.length) exchanges.push(i)
  })
  for (const o of ops) {
    const len = plan.length
    const k = len ? o.at % len : 0
    const item = plan[k]
    const message = item && ('synthetic' in item ? item.synthetic : view.message(item.index))
    switch (o.kind) {
      case 'drop':
        plan.splice(k, 1)
        break
      case 'duplicate':
        if (item) plan.splice(k, 0, item)
        break
      case 'swap':
        if (k + 1 < len) plan.splice(k, 2, plan[k + 1] as PlanItem, item as PlanItem)
        break
      case 'empty':
        if (message && message.role !== 'tool')
          rewrite(plan, k, { ...message, content: '' } as Message)
        break
      case 'blank':
        if (message?.role === 'user' || message?.role === 'system')
          rewrite(plan, k, { role: message.role, content: ' \n ' })
        break
      case 'thoughts':
        if (message?.role === 'assistant' && !message.toolCalls?.length)
          rewrite(plan, k, { role: 'assistant', content: '', thought: 'Let me check the fare.' })
        break
      case 'blankPart':
        if (message?.role === 'user')
          rewrite(plan, k, {
            role: 'user',
            content: [
              { type: 'text', text: '' },
              { type: 'text', text: 'Book the flight.' },
            ],
          })
        break
      case 'synthetic':
        plan.splice(k, 0, {
          synthetic: { role: o.role, content: `Earlier: the user booked HAT${o.at % 1000}.` },
          replaces: n ? [o.replaces % n] : [],
          reason: 'summary',
        })
        break
      case 'reuseId': {
        // The call of one exchange and the result of its first call take another's first id.
        const target = exchanges[o.at % Math.max(1, exchanges.length)]
        const source = exchanges[o.from % Math.max(1, exchanges.length)]
        if (target === undefined || source === undefined || target === source) break
        const call = view.message(target) as Extract<Message, { role: 'assistant' }>
        const id = (view.message(source) as typeof call).toolCalls?.[0]?.id as string
        const first = call.toolCalls?.[0]?.id
        const calls = call.toolCalls?.map((c, j) => (j === 0 ? { ...c, id } : c))
        for (let p = 0; p < plan.length; p++) {
          const it = plan[p] as PlanItem
          if (!('index' in it)) continue
          if (it.index === target)
            plan[p] = { index: target, message: { ...call, toolCalls: calls } }
          const m = view.message(it.index)
          if (m.role === 'tool' && it.index > target && m.toolCallId === first)
            plan[p] = { index: it.index, message: { ...m, toolCallId: id } }
        }
        break
      }
    }
  }
  return plan
}

/**
 * Whether the plan carries what every request must: each system message of the preamble,
 * the newest user message and the newest message, named or replaced by a message of its own.
 */
function carriesMandatory(view: View, plan: readonly PlanItem[]): boolean {
  const n = view.messages.length
  if (n === 0) return true
  const { preamble, lastUser } = view.mandatory()
  const need = [n - 1]
  if (preamble >= 0) for (let i = view.start(preamble); i < view.end(preamble); i++) need.push(i)
  if (lastUser >= 0) need.push(view.start(lastUser))
  const carried = new Set<number>()
  for (const it of plan) {
    if ('index' in it) carried.add(it.index)
    else for (const r of it.replaces) carried.add(r)
  }
  return need.every((i) => carried.has(i))
}

/** A strategy sending `planOf(view, ops)`, noting whether that plan carries what it must. */
function custom(ops: readonly Op[], seen: { carries: boolean }): Strategy {
  return {
    name: 'custom',
    options: {},
    budgetAware: true,
    select(view) {
      const plan = planOf(view, ops)
      seen.carries = carriesMandatory(view, plan)
      return plan
    },
  }
}

const PROVIDERS = ['openai', 'anthropic', 'gemini', 'openai-responses'] as const

/** What the provider's oracle refuses in the request these messages make. */
function refused(provider: (typeof PROVIDERS)[number], messages: Message[]): string[] {
  if (provider === 'openai') return openAIChatViolations(toOpenAIChat(messages))
  if (provider === 'anthropic') {
    const { lost: _lost, ...request } = toAnthropic(messages)
    return anthropicViolations(request)
  }
  if (provider === 'gemini')
    return geminiViolations(encodeGemini(messages).output as { contents: unknown[] })
  const out = encodeOpenAIResponses(messages, { request: true }).output as { input: unknown[] }
  return responsesViolations(out.input)
}

describe('custom plans: drops, duplicates, reorders, messages of their own, bad rewrites', () => {
  it(`never give a request the provider refuses: an InvalidPlanError or a valid request (${RUNS} runs)`, () => {
    const seen = { sent: 0, refusedPlan: 0 }
    fc.assert(
      fc.property(history, fc.array(op, { maxLength: 4 }), (h, ops) => {
        for (const provider of PROVIDERS) {
          let messages: Message[]
          const plan = { carries: true }
          try {
            messages = fit(h, { strategy: custom(ops, plan), budget: 1_000_000, provider }).messages
          } catch (e) {
            // The plan that sends everything is never refused.
            if (ops.length === 0) expect(e).not.toBeInstanceOf(InvalidPlanError)
            if (e instanceof InvalidPlanError) {
              expect(e.strategy).toBe('custom')
              seen.refusedPlan++
            } else
              expect(e instanceof ContextOverflowError || e instanceof InvalidInputError).toBe(true)
            continue
          }
          seen.sent++
          expect(refused(provider, messages)).toEqual([])
          // The oracle does not know what the conversation needs: the plan check does.
          expect(plan.carries).toBe(true)
        }
      }),
      { numRuns: RUNS, seed: SEED },
    )
    // Both ways out are taken: the property is not passing on refusals alone.
    expect(seen.sent).toBeGreaterThan(0)
    expect(seen.refusedPlan).toBeGreaterThan(0)
  })
})

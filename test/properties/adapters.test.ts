import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ContextOverflowError, InvalidInputError } from '../../src/errors.js'
import { toAISDK } from '../../src/formats/ai-sdk.js'
import { fitMiddleware } from '../../src/integrations/ai-sdk.js'
import { fitModelInput } from '../../src/integrations/openai-agents.js'
import { isLedger } from '../helpers/ledger.js'
import { history, RUNS, SEED } from './generators.js'

/**
 * The Agents SDK filter on generated item histories, checked against the Responses API's
 * rules written here apart from the library: every function call has its output after it
 * and every output its call before it, reasoning is never the last item of what is sent,
 * the newest user message is sent, items keep their order, and a history whose calls are
 * all answered comes back as the caller's own objects.
 */

type Item = Record<string, unknown>

const awkward = fc.constantFrom('', '   ', '\n', '🛫𝔘', 'a'.repeat(300), '__proto__', 'ok')
const text = fc.oneof(awkward, fc.string({ maxLength: 200 }), fc.lorem({ maxCount: 60 }))

const turn = (k: number) =>
  fc
    .record({
      user: text,
      parts: fc.boolean(),
      reasoning: fc.boolean(),
      said: fc.option(text, { nil: undefined }),
      calls: fc.integer({ min: 0, max: 2 }),
      answered: fc.boolean(),
      hostile: fc.boolean(),
    })
    .map((t): Item[] => {
      const items: Item[] = [
        t.parts
          ? { type: 'message', role: 'user', content: [{ type: 'input_text', text: t.user }] }
          : { role: 'user', content: t.user },
      ]
      if (t.reasoning) items.push({ type: 'reasoning', id: `rs.${k}`, content: [] })
      if (t.said !== undefined)
        items.push({
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: t.said }],
        })
      const ids = Array.from({ length: t.calls }, (_, c) => `call.${k}.${c}`)
      for (const id of ids)
        items.push({
          type: 'function_call',
          callId: id,
          name: 'lookup',
          arguments: t.hostile ? '{"__proto__":{"x":1},"constructor":"y"}' : '{"q":"a.b"}',
        })
      if (t.answered || k % 3 !== 0)
        for (const id of ids)
          items.push({
            type: 'function_call_result',
            callId: id,
            name: 'lookup',
            status: 'completed',
            output: { type: 'text', text: `result ${id}` },
          })
      return items
    })

const histories = fc
  .integer({ min: 1, max: 12 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, k) => turn(k))))
  .map((turns) => turns.flat())

function checkResponsesRules(sent: Item[]) {
  const called = new Set<string>()
  const answered = new Set<string>()
  for (const item of sent) {
    if (item.type === 'function_call') called.add(item.callId as string)
    if (item.type === 'function_call_result') {
      expect(called.has(item.callId as string)).toBe(true)
      answered.add(item.callId as string)
    }
  }
  for (const id of called) expect(answered.has(id)).toBe(true)
  expect(sent[sent.length - 1]?.type).not.toBe('reasoning')
}

describe('fitModelInput on generated item histories', () => {
  it('passes the Responses rules, keeps order and the newest user turn', () => {
    fc.assert(
      fc.property(histories, fc.integer({ min: 200, max: 5000 }), (items, budget) => {
        const complete = items.every(
          (i) =>
            i.type !== 'function_call' ||
            items.some((o) => o.type === 'function_call_result' && o.callId === i.callId),
        )
        const filter = fitModelInput({ budget })
        let sent: Item[]
        try {
          sent = filter({ modelData: { input: items, instructions: 'Be brief.' } }).input
        } catch (e) {
          // Only when the newest turn alone does not fit, and then as the typed error.
          expect(e).toBeInstanceOf(ContextOverflowError)
          return
        }
        checkResponsesRules(sent)
        const newestUser = [...items].reverse().find((i) => i.role === 'user')
        if (complete) {
          // The caller's own objects, in their order.
          let at = -1
          for (const item of sent) {
            // The one message the library writes: the ledger of what was left out.
            if (isLedger(item)) continue
            const k = items.indexOf(item)
            expect(k).toBeGreaterThan(at)
            at = k
          }
          expect(sent).toContain(newestUser)
        } else {
          expect(JSON.stringify(sent)).toContain(JSON.stringify(newestUser?.content))
        }
      }),
      { numRuns: RUNS, seed: SEED },
    )
  })

  it('refuses what is not an item with a typed error naming the item', () => {
    const filter = fitModelInput({ budget: 1000 })
    expect(() => filter({ modelData: { input: [{ role: 'user', content: 'hi' }, 7] } })).toThrow(
      /item 1|message 1|index 1/,
    )
    expect(() =>
      filter({ modelData: { input: [{ type: 'function_call', name: 'x', arguments: '{}' }] } }),
    ).toThrow(/callId/)
    expect(() => filter({ modelData: { input: [{ role: 'robot', content: 'x' }] } })).toThrow(
      /role/,
    )
  })
})

type PromptMessage = { role: string; content: string | Item[] }

/** The AI SDK prompt rules, written apart: a tool result follows its call, a call has its result. */
function checkPromptRules(prompt: PromptMessage[], provider: string) {
  const called = new Set<string>()
  const answered = new Set<string>()
  for (const m of prompt) {
    if (m.role !== 'system') expect(Array.isArray(m.content)).toBe(true)
    for (const part of Array.isArray(m.content) ? m.content : []) {
      if (part.type === 'tool-call') called.add(part.toolCallId as string)
      if (part.type === 'tool-result') {
        expect(m.role).toBe('tool')
        expect(called.has(part.toolCallId as string)).toBe(true)
        answered.add(part.toolCallId as string)
      }
    }
  }
  for (const id of called) expect(answered.has(id)).toBe(true)
  const first = prompt.find((m) => m.role !== 'system')
  // Anthropic and Gemini open the conversation with a user turn.
  if ((provider === 'anthropic' || provider === 'google') && first) expect(first.role).toBe('user')
}

describe('fitMiddleware on generated prompts (orphans, unanswered calls, reused ids)', () => {
  it("passes the prompt rules for the provider its id names; kept entries are the caller's", async () => {
    await fc.assert(
      fc.asyncProperty(
        history,
        fc.integer({ min: 100, max: 6000 }),
        fc.constantFrom('openai.chat', 'anthropic.messages', 'google.generative-ai'),
        async (messages, budget, providerId) => {
          const prompt = toAISDK(messages).map((m) =>
            typeof m.content === 'string' && m.role !== 'system'
              ? { ...m, content: [{ type: 'text', text: m.content }] }
              : m,
          ) as PromptMessage[]
          const middleware = fitMiddleware({ budget })
          let out: PromptMessage[]
          try {
            const params = await middleware.transformParams({
              params: { prompt },
              model: { provider: providerId, modelId: 'x', doGenerate: async () => ({}) },
            })
            out = params.prompt as PromptMessage[]
          } catch (e) {
            // Or, with nothing a provider takes (Anthropic: no user message), refused by name.
            if (e instanceof InvalidInputError && /no user message|nothing to send/.test(e.message))
              return
            expect(e).toBeInstanceOf(ContextOverflowError)
            return
          }
          checkPromptRules(out, providerId.split('.')[0] as string)
          const own = out.filter((m) => prompt.includes(m))
          let at = -1
          for (const m of own) {
            const k = prompt.indexOf(m)
            expect(k).toBeGreaterThan(at)
            at = k
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })
})

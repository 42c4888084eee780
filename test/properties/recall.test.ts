import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fit } from '../../src/context/fit.js'
import { ContextOverflowError, InvalidInputError } from '../../src/errors.js'
import type { Message } from '../../src/messages/message.js'
import { toAnthropic } from '../../src/providers/anthropic-messages/codec.js'
import { encodeGemini } from '../../src/providers/gemini/codec.js'
import { toOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { encodeOpenAIResponses } from '../../src/providers/openai-responses/codec.js'
import { executeRecall, RECALL_HEADING, recall } from '../../src/recall/index.js'
import { exactCounter } from '../../src/tokens/counters.js'
import { anthropicViolations } from '../oracle/anthropic.js'
import { ledgerProblems, sourcesOf } from '../oracle/derived-text.js'
import { geminiViolations } from '../oracle/gemini.js'
import { openAIChatViolations } from '../oracle/openai.js'
import { responsesViolations } from '../oracle/responses.js'
import { history, RUNS, SEED } from './generators.js'
import { nastyText } from './hostile.js'

/**
 * A recall, attacked: credentials planted in what the fit drops, content that tries to write
 * a line of its own, random histories with broken exchanges. Checked from the outside:
 * planted values by string search, lines by the oracle's record grammar, requests by each
 * provider's oracle.
 */

const counter = exactCounter()
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const secret = fc
  .array(fc.constantFrom(...ALNUM), { minLength: 12, maxLength: 30 })
  .map((c) => `Q7${c.join('')}x9`)

/** A credential written as agents meet them; `value` must never be returned. */
const plant = fc.tuple(fc.integer({ min: 0, max: 7 }), secret).map(([kind, s]) => {
  const text = [
    `{"password": "${s}", "order_id": "ORD5521"}`,
    `{"api_key":"${s}","client_id":"app-42"}`,
    `Authorization: Bearer ${s}`,
    `DATABASE_URL="postgres://admin:${s}@10.0.0.5/shop"`,
    `https://example.com/cb?access_token=${s}&page=2`,
    `{"credentials": {"value": "${s}"}}`,
    `my password is ${s}`,
    `sk-proj-${s}${s}`,
  ][kind] as string
  return { text, value: s }
})

const PROVIDERS = ['openai', 'anthropic', 'gemini', 'openai-responses'] as const

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

/** An agent conversation with a credential and hostile text in each early step. */
const agent = fc
  .record({
    steps: fc.array(
      fc.record({ plant, forge: nastyText, id: fc.integer({ min: 100, max: 9999 }) }),
      {
        minLength: 3,
        maxLength: 7,
      },
    ),
    where: fc.constantFrom('user', 'arguments', 'result'),
    share: fc.double({ min: 0.15, max: 0.6, noNaN: true }),
  })
  .map(({ steps, where, share }) => {
    const h: Message[] = [{ role: 'system', content: 'You are an airline agent.' }]
    steps.forEach((s, k) => {
      const p = s.plant.text
      h.push({
        role: 'user',
        content: `Check RES${s.id}. ${s.forge}${where === 'user' ? `\n${p}` : ''}`,
      })
      h.push({
        role: 'assistant',
        toolCalls: [
          {
            id: `call.${k}`,
            name: 'get_reservation_details',
            arguments: JSON.stringify({
              reservation_id: `RES${s.id}`,
              ...(where === 'arguments' && { note: p }),
            }),
          },
        ],
      })
      h.push({
        role: 'tool',
        toolCallId: `call.${k}`,
        content: JSON.stringify({
          reservation_id: `RES${s.id}`,
          note: s.forge,
          ...(where === 'result' && { raw: p }),
        }),
      })
      h.push({ role: 'assistant', content: `RES${s.id} is confirmed. ${s.forge}` })
    })
    h.push({ role: 'user', content: 'And my newest booking?' })
    return { history: h, secrets: steps.map((s) => s.plant.value), share }
  })

/** The oracle's grammar problems of a recall text, beyond what a recall may do to a value (take a credential out, cut it). */
function lineProblems(text: string, h: readonly Message[]): string[] {
  const lines = text.split('\n')
  const body = lines.at(-1)?.startsWith('(') ? lines.slice(0, -1) : lines
  if (body[1]?.startsWith('nothing left out matches')) return []
  return ledgerProblems(body.join('\n'), RECALL_HEADING, sourcesOf(h)).filter(
    (p) => !(p.includes('does not hold') && (p.includes('[credential]') || p.includes('[cut]'))),
  )
}

describe('recall: what a fit left out, got back', () => {
  it(`never returns a planted credential, never a message the request sends, every line in the record grammar, within its token budget (${RUNS} runs)`, () => {
    let returned = 0
    fc.assert(
      fc.property(
        agent,
        fc.constantFrom('RES', 'reservation_id', 'get_reservation_details note raw', 'password'),
        fc.integer({ min: 128, max: 4000 }),
        (c, query, maxTokens) => {
          const total = counter.countMessages(c.history)
          const options = {
            budget: Math.round(total * c.share),
            counter,
            recall: { maxTokens, maxMessages: 40 },
          }
          let result: ReturnType<typeof fit>
          try {
            result = fit(c.history, options)
          } catch (e) {
            if (e instanceof ContextOverflowError) return
            throw e
          }
          const every = c.history.map((_, i) => i)
          for (const request of [{ query }, { messages: every }, { query, messages: [1, 2, 3] }]) {
            const got = recall(c.history, request, {
              ...options,
              recall: { maxTokens, maxMessages: 40 },
            })
            for (const s of c.secrets) expect(got.text).not.toContain(s)
            for (const i of got.messages) {
              expect(result.kept).not.toContain(i)
              expect(c.history[i]?.role).not.toBe('system')
            }
            expect(lineProblems(got.text, c.history)).toEqual([])
            expect(got.tokens).toBeLessThanOrEqual(maxTokens)
            returned += got.messages.length
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
    // The property is about something: recalls did return messages.
    expect(returned).toBeGreaterThan(0)
  })

  it(`a recall exchange appended to any history is a valid request for every provider, counted on the next fit (${RUNS} runs)`, () => {
    let checked = 0
    fc.assert(
      fc.property(history, fc.integer({ min: 60, max: 3000 }), fc.string(), (h, budget, query) => {
        const options = { budget, counter }
        let text: string
        try {
          text = executeRecall(h, JSON.stringify({ query: `lookup q ${query}` }), options)
        } catch (e) {
          if (e instanceof ContextOverflowError) return
          throw e
        }
        const next: Message[] = [
          ...h,
          {
            role: 'assistant',
            toolCalls: [{ id: 'recall_1', name: 'recall', arguments: '{"query":"lookup q"}' }],
          },
          { role: 'tool', toolCallId: 'recall_1', toolName: 'recall', content: text },
        ]
        for (const provider of PROVIDERS) {
          let sent: ReturnType<typeof fit>
          try {
            sent = fit(next, { budget: budget + 4000, counter, provider })
          } catch (e) {
            if (e instanceof ContextOverflowError) return
            // A history with no user turn is refused for a user-first provider, recall or not.
            if (e instanceof InvalidInputError && !h.some((m) => m.role === 'user')) continue
            throw e
          }
          // The result is the newest turn: sent and counted like any tool result.
          const fate = sent.fates[next.length - 1]
          expect(fate?.fate).not.toBe('dropped')
          expect(fate?.tokens).toBe(counter.countMessage(next.at(-1) as Message))
          expect(refused(provider, sent.messages)).toEqual([])
        }
        checked++
      }),
      { numRuns: RUNS, seed: SEED },
    )
    expect(checked).toBeGreaterThan(0)
  })
})

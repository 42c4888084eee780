import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { userTurn } from '../../test/helpers/turns.js'
import { exactCounter } from '../tokens/counters.js'
import { fitInputProcessor } from './mastra.js'

/**
 * Every part kind a Mastra message (content format 2) may hold: the parts of the AI SDK 4
 * `UIMessage` that `@mastra/core` types them as, read from the installed package's type
 * definitions (a kind a later version adds fails the coverage check until it has a case here).
 * The processor hands back Mastra's own message objects: a message with any part kind passes
 * through as the caller's own object when it fits, and goes only whole.
 */

/** The part `type`s of `UIMessage['parts']` in the AI SDK 4 that `@mastra/core` resolves. */
function sdkPartKinds(): string[] {
  const require = createRequire(mastraEntry())
  const file = require.resolve('@ai-sdk/ui-utils').replace(/index\.(m?js|cjs)$/, 'index.d.ts')
  const text = readFileSync(file, 'utf8')
  const union = /parts: Array<([A-Za-z| ]+)>;/.exec(text)?.[1] ?? ''
  return union.split('|').map((name) => {
    const body = new RegExp(`type ${name.trim()} = \\{\\s*type: '([a-z-]+)'`).exec(text)
    return body?.[1] ?? `? ${name.trim()}`
  })
}

/** `@mastra/core`'s own AI SDK 4 (the one its message types name), resolved from inside it. */
function mastraEntry(): string {
  const require = createRequire(import.meta.url)
  return require.resolve('@mastra/core/agent')
}

const words = (k: number, n: number) => `${userTurn(k, n)} 𝔘𝔫𝔦 🧳`
let made = 0
function message(role: 'user' | 'assistant', parts: unknown[]) {
  made++
  return {
    id: `m${made}`,
    role,
    createdAt: new Date(Date.UTC(2025, 0, 1) + made * 1000),
    threadId: 'thread-1',
    resourceId: 'user-1',
    content: { format: 2 as const, parts },
  }
}
type Mastra = ReturnType<typeof message>

const units: Record<string, () => Mastra> = {
  text: () => message('user', [{ type: 'text', text: words(1, 60) }]),
  reasoning: () =>
    message('assistant', [
      {
        type: 'reasoning',
        reasoning: words(2, 40),
        details: [
          { type: 'text', text: words(2, 40), signature: 'sig.1' },
          { type: 'redacted', data: 'enc.1' },
        ],
      },
      { type: 'text', text: 'The seat is 14C.' },
    ]),
  'tool-invocation': () =>
    message('assistant', [
      { type: 'step-start' },
      {
        type: 'tool-invocation',
        toolInvocation: {
          state: 'result',
          toolCallId: 'call.1',
          toolName: 'lookup',
          args: { query: '𝔘' },
          result: words(3, 60),
        },
      },
      { type: 'text', text: 'Found it.' },
    ]),
  source: () =>
    message('assistant', [
      { type: 'text', text: words(4, 30) },
      {
        type: 'source',
        source: {
          sourceType: 'url',
          id: 'src.1',
          url: 'https://example.com/fares',
          title: 'Fares',
        },
      },
    ]),
  file: () =>
    message('user', [
      { type: 'text', text: 'This receipt:' },
      { type: 'file', mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB' },
    ]),
  'step-start': () =>
    message('assistant', [{ type: 'step-start' }, { type: 'text', text: words(5, 40) }]),
}

/** An older turn, the unit, and the newest question (a user unit answered before it). */
function history(unit: Mastra): Mastra[] {
  const out = [
    message('user', [{ type: 'text', text: words(20, 300) }]),
    message('assistant', [{ type: 'text', text: 'Noted.' }]),
  ]
  out.push(unit)
  if (unit.role === 'user') out.push(message('assistant', [{ type: 'text', text: 'Looking.' }]))
  out.push(message('user', [{ type: 'text', text: 'And the seat?' }]))
  return out
}

const processInput = (messages: Mastra[], budget: number) =>
  fitInputProcessor({ counter: exactCounter(), budget, reserve: 0 }).processInput({ messages })

describe('Mastra message parts: every kind the SDK defines', () => {
  it('the installed version defines no part kind without a case here', () => {
    const kinds = sdkPartKinds()
    expect(kinds.length).toBeGreaterThanOrEqual(6)
    expect(kinds.filter((k) => !(k in units))).toEqual([])
  })

  it.each(Object.entries(units))(
    '%s: passes through as the caller’s own object when it fits',
    (_kind, make) => {
      const input = history(make())
      const out = processInput(input, 100_000)
      expect(out.length).toBe(input.length)
      for (const [i, m] of out.entries()) expect(m).toBe(input[i])
    },
  )

  it.each(Object.entries(units))('%s: at every budget, gone only whole', (_kind, make) => {
    const unit = make()
    const before = JSON.stringify(unit)
    const input = history(unit)
    let dropped = 0
    let sent = 0
    for (let budget = 10; budget <= 2500; budget += 10) {
      let out: Mastra[]
      try {
        out = processInput(input, budget)
      } catch (error) {
        expect((error as Error).name).toBe('ContextOverflowError')
        continue
      }
      sent++
      if (!out.includes(unit)) dropped++
      // Nothing of the unit is sent apart from it: no message written in its place holds its parts.
      for (const m of out) if (m !== unit) expect(m.id).not.toBe(unit.id)
      expect(out.at(-1)).toBe(input.at(-1))
    }
    expect(JSON.stringify(unit)).toBe(before)
    expect(sent).toBeGreaterThan(0)
    expect(dropped).toBeGreaterThan(0)
  })
})

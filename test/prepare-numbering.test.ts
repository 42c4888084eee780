// The numbers a fit's views read messages by, when an adapter numbered the input: made once
// per arrangement of the messages, not once per transform and again for the final view.
import { describe, expect, it, vi } from 'vitest'
import {
  clearToolResults,
  type Message,
  type Transform,
  toAISDK,
  truncateMessages,
} from '../src/index.js'
import { fitEachStep } from '../src/integrations/index.js'

const calls = vi.hoisted(() => ({ shown: 0, prepare: 0 }))

vi.mock('../src/recall/numbering.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/recall/numbering.js')>()
  return {
    ...real,
    shownOrigin: (...args: Parameters<typeof real.shownOrigin>) => {
      calls.shown++
      return real.shownOrigin(...args)
    },
  }
})
vi.mock('../src/context/prepare.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/context/prepare.js')>()
  return {
    ...real,
    prepare: (...args: Parameters<typeof real.prepare>) => {
      calls.prepare++
      return real.prepare(...args)
    },
  }
})

function history(): Message[] {
  const h: Message[] = []
  for (let t = 0; t < 4; t++) {
    h.push({ role: 'user', content: `search ${t} __proto__ 𝒳` })
    h.push({
      role: 'assistant',
      toolCalls: [{ id: `c.${t}`, name: 'search', arguments: `{"q":"${t}"}` }],
    })
    h.push({ role: 'tool', toolCallId: `c.${t}`, content: `result ${t} `.repeat(60) })
  }
  h.push({ role: 'user', content: 'which one?' })
  return h
}

describe('the numbering of a fit`s views', () => {
  const step = (transforms: Transform[]) => {
    calls.shown = 0
    calls.prepare = 0
    const out = fitEachStep({ system: 'You book flights.', budget: 100_000, transforms })({
      messages: toAISDK(history()),
    })
    return out
  }

  it('transforms that change nothing: one numbering for every view of the fit', () => {
    const out = step([
      truncateMessages({ maxTokensPerMessage: 10_000 }),
      clearToolResults({ keep: 100 }),
      truncateMessages({ maxTokensPerMessage: 20_000 }),
    ])
    expect(out.messages).toHaveLength(13)
    expect(calls.prepare).toBeGreaterThan(0)
    expect(calls.shown).toBe(calls.prepare)
  })

  it('a transform that changes messages: one numbering before it, one after', () => {
    const out = step([
      clearToolResults({ keep: 1 }),
      truncateMessages({ maxTokensPerMessage: 10_000 }),
    ])
    expect(JSON.stringify(out.messages[2])).not.toContain('result 0 result 0')
    expect(JSON.stringify(out.messages[11])).toContain('result 3 result 3')
    expect(calls.prepare).toBeGreaterThan(0)
    expect(calls.shown).toBe(2 * calls.prepare)
  })
})

import { describe, expect, it } from 'vitest'
import type { Message } from '../messages/message.js'
import { fromOpenAIChat } from '../providers/openai-chat/codec.js'
import { counterFor, estimateCounter, exactCounter } from './counters.js'
import { findModel } from './models.js'

// The OpenAI cookbook ("How to count tokens with tiktoken") publishes these messages and
// the prompt_tokens the API reported for them: external truth, not our own numbers.
const cookbookMessages = fromOpenAIChat([
  {
    role: 'system',
    content:
      'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.',
  },
  {
    role: 'system',
    name: 'example_user',
    content: 'New synergies will help drive top-line growth.',
  },
  {
    role: 'system',
    name: 'example_assistant',
    content: 'Things working well together will increase revenue.',
  },
  {
    role: 'system',
    name: 'example_user',
    content:
      "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
  },
  {
    role: 'system',
    name: 'example_assistant',
    content: "Let's talk later when we're less busy about how to do better.",
  },
  {
    role: 'user',
    content:
      "This late pivot means we don't have time to boil the ocean for the client deliverable.",
  },
])

const weatherTool = {
  name: 'get_current_weather',
  description: 'Get the current weather in a given location',
  parameters: {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
      unit: {
        type: 'string',
        description: 'The unit of temperature to return',
        enum: ['celsius', 'fahrenheit'],
      },
    },
    required: ['location'],
  },
}
const weatherMessages = fromOpenAIChat([
  {
    role: 'system',
    content: 'You are a helpful assistant that can answer to questions about the weather.',
  },
  { role: 'user', content: "What's the weather like in San Francisco?" },
])

describe('exact counter: the cookbook figures', () => {
  it('counts the named-messages example as the API did: 124 on gpt-4o, gpt-4o-mini', () => {
    expect(counterFor('gpt-4o').countMessages(cookbookMessages)).toBe(124)
    expect(counterFor('gpt-4o-mini').countMessages(cookbookMessages)).toBe(124)
  })

  it('counts the same example as the API did: 129 on gpt-4 and gpt-3.5-turbo (cl100k)', () => {
    expect(counterFor('gpt-4').countMessages(cookbookMessages)).toBe(129)
    expect(counterFor('gpt-3.5-turbo').countMessages(cookbookMessages)).toBe(129)
  })

  it('counts the function-calling example as the API did: 101 on gpt-4o, 105 on gpt-4', () => {
    for (const [model, expected] of [
      ['gpt-4o', 101],
      ['gpt-4o-mini', 101],
      ['gpt-4', 105],
      ['gpt-3.5-turbo', 105],
    ] as const) {
      const c = counterFor(model)
      expect(c.countMessages(weatherMessages) + c.countTools([weatherTool]), model).toBe(expected)
    }
  })
})

describe('exact counter: text', () => {
  const c = exactCounter()
  it('counts special-token text as text instead of throwing', () => {
    expect(c.countText('hi <|endoftext|> there')).toBeGreaterThan(3)
  })

  it('counts a long run without spaces in chunks, quickly, never below the true count', () => {
    const blob = 'a'.repeat(100_000)
    const t0 = performance.now()
    const n = c.countText(blob)
    // Not a timing target: a guard that the quadratic path is not taken (it takes ~10 s).
    expect(performance.now() - t0).toBeLessThan(3000)
    expect(n).toBeGreaterThanOrEqual(12_500)
  })

  it('caches per message: counting twice returns the same number', () => {
    const m: Message = { role: 'user', content: 'hello there' }
    expect(c.countMessage(m)).toBe(c.countMessage(m))
    expect(c.countMessage(m)).toBe(3 + 1 + 2)
  })

  it('counts tool calls and tool results', () => {
    const plain: Message = { role: 'assistant', content: '' }
    const withCall: Message = {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'c1', name: 'get_user', arguments: '{"user_id":"mia_li_3668"}' }],
    }
    expect(c.countMessage(withCall) - c.countMessage(plain)).toBeGreaterThan(
      c.countText('get_user') + c.countText('{"user_id":"mia_li_3668"}'),
    )
  })
})

describe('images', () => {
  const c = exactCounter({ model: 'gpt-4o' })
  const img = (width: number, height: number, detail?: 'low' | 'high') =>
    ({
      role: 'user',
      content: [
        { type: 'image', url: 'https://x/y.png', width, height, ...(detail && { detail }) },
      ],
    }) as Message
  const base = c.countMessage({ role: 'user', content: [] })

  it('prices low detail at 85', () => {
    expect(c.countMessage(img(4096, 4096, 'low')) - base).toBe(85)
  })
  it('prices high detail by 512-px tiles after scaling (1024x1024: 4 tiles, 765)', () => {
    expect(c.countMessage(img(1024, 1024, 'high')) - base).toBe(765)
  })
  it('prices 2048x4096 as 6 tiles (1105), per the published example', () => {
    expect(c.countMessage(img(2048, 4096, 'high')) - base).toBe(1105)
  })
  it('reads the size of inline PNG data', () => {
    const png = Buffer.alloc(24)
    png.writeUInt32BE(0x89504e47, 0)
    png.writeUInt32BE(512, 16)
    png.writeUInt32BE(512, 20)
    const m: Message = {
      role: 'user',
      content: [{ type: 'image', data: png.toString('base64'), mediaType: 'image/png' }],
    }
    expect(c.countMessage(m) - base).toBe(85 + 170)
  })
  it('prices Claude images at width x height / 750', () => {
    const claude = counterFor('claude-sonnet-4-5')
    const empty = claude.countMessage({ role: 'user', content: [] })
    const m = img(1000, 750)
    // 1000 x 750 / 750 = 1000, not weighted as text is.
    expect(claude.countMessage(m) - empty).toBeGreaterThanOrEqual(1000)
  })
})

describe('estimate counter and model table', () => {
  it('the former Claude estimate (o200k pieces × 1.6, one option away) never under-counts o200k', () => {
    const est = estimateCounter({ model: 'claude-sonnet-4-6', estimate: 'factor' })
    const exact = exactCounter()
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(50)
    expect(est.countText(text)).toBeGreaterThan(exact.countText(text))
    expect(est.exact).toBe(false)
  })
  it('matches dated ids and provider prefixes to the listed model', () => {
    expect(findModel('gpt-4o-2024-08-06')?.id).toBe('gpt-4o')
    expect(findModel('gpt-4o-mini-2024-07-18')?.id).toBe('gpt-4o-mini')
    expect(findModel('anthropic/claude-sonnet-4-5-20250929')?.id).toBe('claude-sonnet-4-5')
    expect(findModel('not-a-model')).toBeUndefined()
  })
  it('refuses an unknown model with a typed error', () => {
    expect(() => counterFor('nope-1')).toThrow(/unknown model/)
    expect(() => exactCounter({ model: 'claude-haiku-4-5' })).toThrow(/no public tokenizer/)
  })
})

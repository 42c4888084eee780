// Summarizer failures fall back, and an API key never reaches an error message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { summarizerFromJSON } from '../../src/compress/index.js'
import { openAICompatibleSummarizer } from '../../src/compress/openai-compatible.js'
import { summarizing } from '../../src/compress/summarizing.js'
import type { CompressionEvent } from '../../src/compress/summarizing-options.js'
import { fitAsync } from '../../src/context/fit.js'
import { InvalidOptionError } from '../../src/errors.js'
import type { Message } from '../../src/messages/message.js'
import { type FakeOpenAI, startFakeOpenAI } from '../helpers/openai-server.js'

const history: Message[] = Array.from({ length: 30 }, (_, k) => ({
  role: k % 2 ? 'assistant' : 'user',
  content: `turn ${k}: ${'the booking, the refund and the baggage rules '.repeat(8)}`,
}))

describe('a summarizer that throws something that is not an Error', () => {
  it.each([undefined, null, 42, 'plain text', { code: 1 }])(
    '%j: the fit falls back',
    async (thrown) => {
      const events: CompressionEvent[] = []
      const r = await fitAsync(history, {
        budget: 800,
        strategy: summarizing({
          summarizer: {
            name: 'broken',
            summarize: async () => {
              throw thrown
            },
          },
          onEvent: (e) => events.push(e),
        }),
      })
      expect(r.tokens.total).toBeLessThanOrEqual(800)
      const fallback = events.find((e) => e.type === 'fallback')
      expect(fallback).toBeDefined()
      expect(typeof (fallback as { reason: string }).reason).toBe('string')
    },
  )
})

const KEY = 'sk-proj-Ab12-Cd34_Ef56-Gh78-Ij90-Kl12-Mn34-Op56'

describe('an API key an HTTP header cannot carry', () => {
  it.each([
    [
      'a line break inside it',
      `${KEY.slice(0, 20)}\n${KEY.slice(20)}`,
      /line break at character 21/,
    ],
    ['a carriage return inside it', `${KEY.slice(0, 9)}\r\n${KEY.slice(9)}`, /line break/],
    ['a NUL inside it', `${KEY.slice(0, 9)}\0${KEY.slice(9)}`, /NUL/],
    ['a character above U+00FF', `${KEY}\u2028x`, /outside Latin-1/],
  ])('is an option error naming the key and the fault (%s), never the key', (_, apiKey, fault) => {
    for (const make of [
      () => openAICompatibleSummarizer({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', apiKey }),
      () => summarizerFromJSON({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', apiKey }),
    ]) {
      let error: unknown
      try {
        make()
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(InvalidOptionError)
      expect(error).toMatchObject({ option: 'apiKey' })
      const message = (error as Error).message
      expect(message).toMatch(fault)
      expect(message).toMatch(/not a valid HTTP header value/)
      expect(message).not.toMatch(/cannot reach/)
      for (let k = 0; k + 8 <= KEY.length; k++) expect(message).not.toContain(KEY.slice(k, k + 8))
    }
  })

  it('white space around the key is not a fault: fetch drops it, and the request goes out', async () => {
    const server = await startFakeOpenAI()
    try {
      const summarizer = openAICompatibleSummarizer({
        baseURL: server.url,
        apiKey: `  ${KEY}\n`,
        model: 'm',
        retries: 0,
      })
      await expect(
        summarizer.summarize({ messages: history.slice(0, 2), maxTokens: 100 }),
      ).resolves.toBeTruthy()
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`)
    } finally {
      await server.close()
    }
  })
})

describe('the API key stays out of every error', () => {
  it.each([
    ['baseUrl for baseURL', { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', apiKey: KEY }],
    ['a missing model', { baseURL: 'http://127.0.0.1:1/v1', apiKey: KEY }],
    ['a key in an unknown field', { url: 'x', token: KEY }],
  ])('a mistyped config (%s)', (_, spec) => {
    let message = ''
    try {
      summarizerFromJSON(spec)
    } catch (e) {
      message = (e as Error).message
    }
    expect(message).not.toBe('')
    expect(message).not.toContain(KEY)
    expect(message).not.toContain(KEY.slice(0, 12))
  })

  let server: FakeOpenAI
  beforeAll(async () => {
    server = await startFakeOpenAI()
  })
  afterAll(async () => {
    await server.close()
  })

  const escaped = (s: string) =>
    [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
  const halfEscaped = (s: string) => s.replaceAll('-', '\\u002d')
  it.each([
    [
      'echoed in a long body, cut at 200 characters',
      `${'x'.repeat(160)} Authorization: Bearer ${KEY} rejected`,
    ],
    [
      'JSON-escaped (\\u002d)',
      JSON.stringify({ error: { message: `bad key ${halfEscaped(KEY)}` } }),
    ],
    ['every character escaped', `{"error":"bad key ${escaped(KEY)}"}`],
    ['percent-encoded', `bad key ${encodeURIComponent(KEY).replaceAll('-', '%2D')}`],
    ['in a Basic header', `Authorization: Basic ${btoa(`user:${KEY}`)}`],
  ])('an HTTP 401 body with the key %s', async (_, body) => {
    server.queue.push({ kind: 'status', status: 401, body })
    const summarizer = openAICompatibleSummarizer({
      baseURL: server.url,
      apiKey: KEY,
      model: 'm',
      retries: 0,
    })
    const error = await summarizer
      .summarize({ messages: history.slice(0, 2), maxTokens: 100 })
      .catch((e: Error) => e)
    const message = (error as Error).message
    expect(message).toMatch(/HTTP 401/)
    // Not the key, and no run of 8 of its characters (a cut key is a leaked key).
    for (let k = 0; k + 8 <= KEY.length; k++) expect(message).not.toContain(KEY.slice(k, k + 8))
    // Found in whatever form it came: the escaped forms are replaced too, not passed through.
    expect(message).toContain('[redacted]')
  })
})

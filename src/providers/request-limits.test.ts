import { describe, expect, it } from 'vitest'
import { anthropicViolations } from '../../test/oracle/anthropic.js'
import { ChatContext } from '../context/chat/chat-context.js'
import { fit } from '../context/fit.js'
import type { ContentPart, Message } from '../messages/message.js'
import { toAnthropic } from './anthropic-messages/codec.js'
import { repair } from './repair.js'
import { overRequestLimits, pdfPages } from './request-limits.js'
import { validate } from './validate.js'

/** A tiny PNG, inline. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'

/**
 * An agent that looks at a screen: each step a user turn with a screenshot (every third one
 * sent by URL), or a tool call whose result is one, `count` images in all.
 */
function screenshots(count: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You operate a browser.' }]
  for (let k = 0; k < count; k++) {
    const image: ContentPart =
      k % 3 === 0
        ? { type: 'image', url: `https://example.com/shot-${k}.png` }
        : { type: 'image', data: PNG, mediaType: 'image/png' }
    if (k % 2 === 0) {
      out.push({ role: 'user', content: [{ type: 'text', text: `Step ${k}: what now?` }, image] })
      out.push({ role: 'assistant', content: `Clicking button ${k}.` })
    } else {
      out.push({
        role: 'assistant',
        content: '',
        toolCalls: [{ id: `shot_${k}`, name: 'screenshot', arguments: '{}' }],
      })
      out.push({ role: 'tool', toolCallId: `shot_${k}`, content: [image] })
    }
  }
  out.push({ role: 'user', content: 'Done?' })
  return out
}

const imagesIn = (messages: readonly Message[]) =>
  messages.reduce(
    (n, m) =>
      n + (Array.isArray(m.content) ? m.content.filter((p) => p.type === 'image').length : 0),
    0,
  )
const placeholders = (messages: readonly Message[]) =>
  messages.flatMap((m, i) =>
    Array.isArray(m.content) &&
    m.content.some((p) => p.type === 'text' && p.text.startsWith('[image omitted'))
      ? [i]
      : [],
  )

describe('per-request limits are provider rules', () => {
  const history = screenshots(113)

  it('113 images for Anthropic: validate names the 13 oldest, which the oracle refuses as they are', () => {
    expect(imagesIn(history)).toBe(113)
    const { lost: _lost, ...request } = toAnthropic(history)
    expect(anthropicViolations(request)).toContain(
      'messages: 113 images, over the 100 one request may carry',
    )
    const over = validate(history, { provider: 'anthropic' }).filter(
      (p) => p.code === 'over-request-limit',
    )
    expect(over).toHaveLength(13)
    expect(over.every((p) => p.severity === 'error')).toBe(true)
    const firstImages = history.flatMap((m, i) =>
      Array.isArray(m.content) && m.content.some((p) => p.type === 'image') ? [i] : [],
    )
    expect(over.map((p) => p.index)).toEqual(firstImages.slice(0, 13))
    // OpenAI takes 500 and Gemini 3,000: nothing over.
    for (const provider of ['openai', 'openai-responses', 'gemini'] as const)
      expect(validate(history, { provider }).some((p) => p.code === 'over-request-limit')).toBe(
        false,
      )
  })

  it('repair and fit send the 13 oldest as a short text each, no message lost, and the oracle takes the request', () => {
    const repaired = repair(history, { provider: 'anthropic' })
    expect(imagesIn(repaired.messages)).toBe(100)
    expect(repaired.messages).toHaveLength(history.length)
    expect(repaired.changed.filter((c) => c.code === 'over-request-limit')).toHaveLength(13)

    const r = fit(history, { provider: 'anthropic', budget: 1_000_000 })
    expect(r.messages).toHaveLength(history.length)
    expect(imagesIn(r.messages)).toBe(100)
    const omitted = placeholders(r.messages)
    expect(omitted).toHaveLength(13)
    // The oldest go: every placeholder comes before every image left.
    const lastOmitted = Math.max(...omitted)
    const firstKept = r.messages.findIndex(
      (m) => Array.isArray(m.content) && m.content.some((p) => p.type === 'image'),
    )
    expect(lastOmitted).toBeLessThan(firstKept)
    expect(r.changed.filter((c) => c.reason === 'media-omitted')).toHaveLength(13)
    const { lost: _lost, ...request } = toAnthropic(r.messages)
    expect(anthropicViolations(request)).toEqual([])
    // The other providers keep every image.
    expect(imagesIn(fit(history, { provider: 'openai', budget: 1_000_000 }).messages)).toBe(113)
  })

  it('ChatContext and a budgeted fit keep to the limit too', async () => {
    const ctx = new ChatContext({ provider: 'anthropic', budget: 1_000_000 })
    await ctx.addMessages(history)
    expect(imagesIn(await ctx.getMessages())).toBe(100)
    const small = fit(history, { provider: 'anthropic', budget: 60_000 })
    expect(imagesIn(small.messages)).toBeLessThanOrEqual(100)
    expect(small.tokens.total).toBeLessThanOrEqual(60_000)
  })

  it('inline bytes: the oldest inline images go until the request is under 32 MB for Anthropic', () => {
    const big = 'A'.repeat(12_000_000)
    const h: Message[] = [0, 1, 2].flatMap((k) => [
      {
        role: 'user',
        content: [
          { type: 'text', text: `Photo ${k}` },
          { type: 'image', data: big, mediaType: 'image/png' },
        ],
      } as Message,
      { role: 'assistant', content: 'Seen.' } as Message,
    ])
    expect([...overRequestLimits(h, { inlineBytes: 32_000_000 }).keys()]).toEqual([0])
    const fixed = repair(h, { provider: 'anthropic' }).messages
    expect(imagesIn(fixed)).toBe(2)
    expect(placeholders(fixed)).toEqual([0])
    // OpenAI counts decoded image bytes (50 MB): 27 MB is within it.
    expect(overRequestLimits(h, { imageBytes: 50_000_000 }).size).toBe(0)
  })
})

/** A PDF of `pages` pages (a page tree, one leaf page object each), as base64. */
function pdf(pages: number, label: string): string {
  const kids = Array.from({ length: pages }, (_, k) => `${k + 3} 0 R`).join(' ')
  const objects = [
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    `2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj`,
    ...Array.from(
      { length: pages },
      (_, k) => `${k + 3} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj`,
    ),
  ]
  const body = `%PDF-1.4\n% ${label}\n${objects.join('\n')}\ntrailer << /Root 1 0 R >>\n%%EOF\n`
  return Buffer.from(body, 'latin1').toString('base64')
}

const pdfTurn = (k: number, pages: number): Message[] => [
  {
    role: 'user',
    content: [
      { type: 'text', text: `Contract ${k}: any clause about fees?` },
      {
        type: 'file',
        data: pdf(pages, `contract ${k}`),
        mediaType: 'application/pdf',
        filename: `c${k}.pdf`,
      },
    ],
  },
  { role: 'assistant', content: `Contract ${k} read.` },
]

const pdfsIn = (messages: readonly Message[]) =>
  messages.flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((p) => p.type === 'file') : [],
  )

describe('PDF pages per request (Anthropic: 100)', () => {
  // 40 + 40 + 40 = 120 pages: the oldest PDF goes, 80 stay.
  const history: Message[] = [0, 1, 2].flatMap((k) => pdfTurn(k, 40))
  history.push({ role: 'user', content: 'Compare them.' })

  it('the page counter reads leaf pages, not the tree node, and 0 for a PDF by URL', () => {
    const part = ((history[0] as Message).content as ContentPart[])[1] as ContentPart
    expect(pdfPages(part)).toBe(40)
    expect(
      pdfPages({ type: 'file', url: 'https://example.com/c.pdf', mediaType: 'application/pdf' }),
    ).toBe(0)
    expect(pdfPages({ type: 'file', data: 'not base64 ✗', mediaType: 'application/pdf' })).toBe(0)
    expect(pdfPages({ type: 'file', data: pdf(3, 'x'), mediaType: 'text/plain' })).toBe(0)
  })

  it('the oracle refuses 120 pages; validate names the oldest PDF; fit sends it as a short text, nothing lost', () => {
    const { lost: _lost, ...request } = toAnthropic(history)
    expect(anthropicViolations(request)).toContain(
      'messages: 120 PDF pages, over the 100 one request may carry',
    )
    const over = validate(history, { provider: 'anthropic' }).filter(
      (p) => p.code === 'over-request-limit',
    )
    expect(over.map((p) => p.index)).toEqual([0])
    expect(over[0]?.message).toContain('100 PDF pages')
    const r = fit(history, { provider: 'anthropic', budget: 1_000_000 })
    expect(r.messages).toHaveLength(history.length)
    expect(pdfsIn(r.messages)).toHaveLength(2)
    const first = r.messages[0]?.content as ContentPart[]
    expect(first.some((p) => p.type === 'text' && p.text.startsWith('[file c0.pdf omitted'))).toBe(
      true,
    )
    expect(r.changed.filter((c) => c.reason === 'media-omitted')).toHaveLength(1)
    const { lost: _l, ...sent } = toAnthropic(r.messages)
    expect(anthropicViolations(sent)).toEqual([])
    // The other providers publish no page limit for one request: every PDF goes.
    expect(pdfsIn(fit(history, { provider: 'openai', budget: 1_000_000 }).messages)).toHaveLength(3)
  })

  it("PDFs by URL are not read: their pages are the provider's to refuse (a documented gap)", () => {
    const byUrl: Message[] = [0, 1, 2].flatMap((k) => [
      {
        role: 'user',
        content: [
          { type: 'text', text: `Contract ${k}` },
          { type: 'file', url: `https://example.com/c${k}.pdf`, mediaType: 'application/pdf' },
        ],
      } as Message,
      { role: 'assistant', content: 'Read.' } as Message,
    ])
    expect(overRequestLimits(byUrl, { pdfPages: 100 }).size).toBe(0)
  })
})

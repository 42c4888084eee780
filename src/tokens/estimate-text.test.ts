import fc from 'fast-check'
import { countTokens as o200kReference } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { dataStrings } from '../../test/helpers/data-strings.js'
import { nastyText } from '../../test/properties/hostile.js'
import { estimateText, pricePieces } from './estimate-text.js'

const asText = { disallowedSpecial: new Set<string>() }

describe('the table-free estimate', () => {
  it('on τ-bench and LoCoMo texts of 200 characters or more: 1.1-1.25 times o200k overall, at least 0.99 times it for 99% of texts', () => {
    const texts = [
      ...dataStrings('tau-bench/gpt-4o-airline.json.gz', 200),
      ...dataStrings('locomo/locomo-dev.json.gz', 200),
    ]
    expect(texts.length).toBeGreaterThan(2000)
    let estimated = 0
    let exact = 0
    const ratios: number[] = []
    for (const t of texts) {
      const e = estimateText(t)
      const x = o200kReference(t, asText)
      estimated += e
      exact += x
      ratios.push(e / x)
    }
    ratios.sort((a, b) => a - b)
    expect(estimated / exact).toBeGreaterThan(1.1)
    expect(estimated / exact).toBeLessThan(1.25)
    expect(ratios[Math.floor(ratios.length / 100)]).toBeGreaterThanOrEqual(0.99)
  })

  it('is 0 for empty text, at least 1 for any other, and never above the UTF-8 byte count', () => {
    expect(estimateText('')).toBe(0)
    fc.assert(
      fc.property(fc.oneof(nastyText, fc.string({ unit: 'binary', maxLength: 80 })), (t) => {
        const n = estimateText(t)
        if (t === '') expect(n).toBe(0)
        else expect(n).toBeGreaterThanOrEqual(1)
        expect(n).toBeLessThanOrEqual(new TextEncoder().encode(t).length)
      }),
      { numRuns: 300, seed: 20261125 },
    )
  })

  it('a long run of one character is counted by its length, not as one piece', () => {
    expect(estimateText('a'.repeat(70_000))).toBeGreaterThanOrEqual(10_000)
    expect(estimateText(' '.repeat(8000))).toBeGreaterThanOrEqual(1000)
  })
})

describe('pieces priced by class', () => {
  // Prices far apart, so the total shows how many units of each class were counted.
  const apart = {
    word: 1,
    digits: 10,
    space: 100,
    punctuation: 1000,
    nonAscii: 10_000,
    json: 100_000,
  }
  const zero = { word: 0, digits: 0, space: 0, json: 0, punctuation: 0, nonAscii: 0 }

  it('counts the units of each class as cut by hand', () => {
    // 'Hello' ' world' ' ' '123' ',' ' ok' '!': 3 words, 1 space, 1 run of digits, 1 JSON mark
    // (',') and 1 other punctuation.
    expect(pricePieces('Hello world 123, ok!', apart)).toBe(3 + 10 + 100 + 1000 + 100_000)
    // 'café' is one piece of 5 bytes (2 units); an astral emoji is 4 bytes (2 units).
    expect(pricePieces('café', apart)).toBe(20_000)
    expect(pricePieces('😀', apart)).toBe(20_000)
    // A word of 15 letters: 1 + 15 / 7 units; 1234567: three runs of digits; '\n\n' one of space.
    expect(pricePieces('Internationally', apart)).toBe(3)
    expect(pricePieces('1234567', apart)).toBe(30)
    expect(pricePieces('\n\n', apart)).toBe(100)
    expect(pricePieces('', apart)).toBe(0)
    // JSON's own marks, with or without white space, are a class of their own; a piece that
    // mixes them with any other mark is punctuation.
    // '{"' 'a' '":' ' ' '1' '},' ' []': JSON marks in 2 + 2 + 2 + 3 bytes (1 + 1 + 1 + 2 units).
    expect(pricePieces('{"a": 1}, []', apart)).toBe(1 + 10 + 100 + 5 * 100_000)
    expect(pricePieces('});', apart)).toBe(2000)
    expect(pricePieces(' =>', apart)).toBe(2000)
  })

  it('at 1 each it is the o200k-piece estimate, and it is linear in the prices', () => {
    const one = { word: 1, digits: 1, space: 1, json: 1, punctuation: 1, nonAscii: 1 }
    const twice = { word: 2, digits: 2, space: 2, json: 2, punctuation: 2, nonAscii: 2 }
    fc.assert(
      fc.property(fc.oneof(nastyText, fc.string({ unit: 'binary', maxLength: 80 })), (t) => {
        expect(pricePieces(t, one)).toBe(estimateText(t))
        expect(pricePieces(t, twice)).toBe(2 * estimateText(t))
        // Each class's units, summed, are the whole.
        const classes = Object.keys(one) as (keyof typeof one)[]
        const parts = classes.map((c) => pricePieces(t, { ...zero, [c]: 1 }))
        expect(parts.reduce((a, b) => a + b, 0)).toBe(estimateText(t))
      }),
      { numRuns: 300, seed: 20261126 },
    )
  })
})

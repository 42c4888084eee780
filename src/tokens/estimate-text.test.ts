import fc from 'fast-check'
import { countTokens as o200kReference } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { dataStrings } from '../../test/helpers/data-strings.js'
import { nastyText } from '../../test/properties/hostile.js'
import { estimateText } from './estimate-text.js'

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

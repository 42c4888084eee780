import fc from 'fast-check'
import { countTokens as cl100kReference } from 'gpt-tokenizer/encoding/cl100k_base'
import { countTokens as o200kReference } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { dataStrings } from '../../test/helpers/data-strings.js'
import { nastyText } from '../../test/properties/hostile.js'
import { bpeCounter, PATTERNS, readRankTable } from './bpe.js'
import cl100kTable from './data/cl100k_base.js'
import o200kTable from './data/o200k_base.js'

// The reference is gpt-tokenizer (counts identical to OpenAI's tiktoken), with special-token
// text counted as text, as the library counts user text.
const asText = { disallowedSpecial: new Set<string>() }
const o200k = bpeCounter(readRankTable(o200kTable), PATTERNS.o200k_base)
const cl100k = bpeCounter(readRankTable(cl100kTable), PATTERNS.cl100k_base)

describe('byte-pair counts from the compact rank tables', () => {
  it('hold every rank of both encodings', () => {
    expect(readRankTable(o200kTable).offsets.length - 1).toBe(199_998)
    expect(readRankTable(cl100kTable).offsets.length - 1).toBe(100_256)
  })

  it('equal the reference on every τ-bench text and every LoCoMo turn, in both encodings', () => {
    const texts = [
      ...dataStrings('tau-bench/gpt-4o-airline.json.gz', 1),
      ...dataStrings('locomo/locomo-dev.json.gz', 1).slice(0, 4000),
    ]
    expect(texts.length).toBeGreaterThan(10_000)
    let differ = 0
    for (const t of texts) {
      if (o200k(t) !== o200kReference(t, asText)) differ++
      if (cl100k(t) !== cl100kReference(t, asText)) differ++
    }
    expect(differ).toBe(0)
  })

  it('equal the reference on hostile text: empty, white space, astral, joined emoji, special tokens, long runs', () => {
    fc.assert(
      fc.property(fc.array(nastyText, { maxLength: 4 }), (parts) => {
        const t = parts.join('\n')
        expect(o200k(t)).toBe(o200kReference(t, asText))
        expect(cl100k(t)).toBe(cl100kReference(t, asText))
      }),
      { numRuns: 150, seed: 20261125 },
    )
  })

  it('equal the reference on arbitrary Unicode, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (t) => {
        expect(o200k(t)).toBe(o200kReference(t, asText))
        expect(cl100k(t)).toBe(cl100kReference(t, asText))
      }),
      { numRuns: 400, seed: 20261125 },
    )
  })
})

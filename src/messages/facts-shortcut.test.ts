import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readLocomo } from '../../test/locomo-data.js'
import { RUNS, SEED } from '../../test/properties/generators.js'
import { tauBench } from '../../test/tau-bench.js'
import { everyFactOfText, factsOfText } from './facts.js'

// A text with no digit, `@`, `/` or `\` is not read at all. These check that skipping it loses
// nothing: the facts of a text are those every pattern finds, on real texts and on texts made
// of the pieces each pattern looks for, with the characters that make a fact often left out.

const firstFacts = (text: string) => factsOfText(text)
const everyFact = (text: string) => everyFactOfText(text)

/** Pieces each pattern reads: most hold no digit, `@`, `/` or `\`, some hold exactly one. */
const PIECES = [
  'ann@example.com',
  'ann',
  '@',
  'example.com',
  'https://x.io/a',
  'http:',
  '//',
  'www.site.org',
  'data:image/png;base64,QUJD',
  'data:',
  'DATA:text/plain,AB12',
  '/usr/lib/x.txt',
  '~/notes.md',
  'C:\\Temp\\a.log',
  '\\',
  'arn:aws:s3:::bucket',
  'urn:isbn:',
  'de ad be ef ca fe',
  'dead beef cafe face fade',
  'June 3rd, 2023',
  'June',
  'Sept.',
  '$',
  '€',
  '12',
  '١٢٣',
  'AB١٢',
  'ABC',
  'XYZW',
  '%',
  'USD',
  'kg',
  'nights',
  'v',
  '.',
  ':',
  '-',
  '_',
  ',',
  ' ',
  '\n',
  'Ñandú',
  '𝔘',
  '注文',
  '😀',
  'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9w',
  'aGVsbG8gd29ybGQgaGVsbG8gd29ybGQgaGVsbG8gd29ybGQgaGVs',
  // A blob of exactly the shortest length read as one, split into runs by `+` and `/`.
  'aB3dE9gH+kL2nP7qR/sT5vW8xY1zA4cD6fG0hJ2k',
]

describe('the shortcut for texts without a fact character', () => {
  it('finds what every pattern finds, on texts made of the patterns’ pieces', () => {
    let skipped = 0
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }), (parts) => {
        const text = parts.join('')
        if (!/[\p{Nd}@/\\]/u.test(text)) skipped++
        expect(firstFacts(text)).toEqual(everyFact(text))
      }),
      { numRuns: RUNS * 20, seed: SEED },
    )
    // Both kinds of text were tried: the shortcut taken and not.
    expect(skipped).toBeGreaterThan(RUNS)
  })

  it('finds what every pattern finds in a text that is each piece alone', () => {
    for (const piece of PIECES) expect(firstFacts(piece)).toEqual(everyFact(piece))
  })

  it('finds what every pattern finds, in every text of the τ-bench and LoCoMo data', () => {
    const texts: string[] = []
    for (const r of tauBench().slice(0, 60))
      for (const m of r.traj) {
        if (typeof m.content === 'string') texts.push(m.content)
        for (const c of (m.tool_calls as { function: { arguments: string } }[] | undefined) ?? [])
          texts.push(c.function.arguments)
      }
    const data = readLocomo() as { conversation: Record<string, unknown> }[]
    for (const sample of data)
      for (const turns of Object.values(sample.conversation))
        if (Array.isArray(turns)) for (const t of turns) texts.push(String(t.text ?? ''))
    // Each JSON string value too: a tool result's values are read one by one.
    for (const t of [...texts])
      for (const m of t.matchAll(/"((?:[^"\\]|\\.)*)"/g)) texts.push(m[1] as string)
    let found = 0
    for (const t of texts) {
      const facts = firstFacts(t)
      found += facts.length
      expect(facts).toEqual(everyFact(t))
    }
    expect(texts.length).toBeGreaterThan(5000)
    expect(found).toBeGreaterThan(1000)
  })
})

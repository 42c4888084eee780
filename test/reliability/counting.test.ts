import fc from 'fast-check'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { textCounter } from '../../src/tokens/encodings.js'
import { countInRuns, MAX_RUN } from '../../src/tokens/runs.js'

const plain = (t: string) => countTokens(t, { disallowedSpecial: new Set() })
const count = textCounter('o200k_base')

/** The longest run of one kind of character in `text`, in UTF-8 bytes. */
function longestRun(text: string): number {
  const kind = (ch: string) =>
    /[\p{L}\p{M}]/u.test(ch) ? 'L' : /\p{N}/u.test(ch) ? 'N' : /\s/u.test(ch) ? 'S' : 'O'
  let best = 0
  let run = 0
  let last = ''
  for (const ch of text) {
    const k = kind(ch)
    const bytes = new TextEncoder().encode(ch).length
    if (k === 'N') {
      run = 0
      last = k
      continue
    }
    run = k === last ? run + bytes : bytes
    last = k
    best = Math.max(best, run)
  }
  return best
}

const hostile: [string, string][] = [
  ['40,000 U+3000', '\u3000'.repeat(40_000)],
  ['100,000 spaces', ' '.repeat(100_000)],
  ['1,999-letter words', `${'abcdefghijklmnopqrstuvwxyz'.repeat(77).slice(0, 1999)} `.repeat(50)],
  ['a long run of punctuation', '-=+*'.repeat(5_000)],
  ['emoji without a break', '😀🎉👍🏽'.repeat(3_000)],
  ['CJK without punctuation', '日本語の文章を書く'.repeat(2_000)],
  ['tabs and newlines', '\t\n \r\n'.repeat(10_000)],
]

describe('counting hands the tokenizer no long run', () => {
  it.each(hostile)('%s: every slice counted has runs of at most MAX_RUN bytes', (_, text) => {
    const slices: string[] = []
    countInRuns(text, (s) => {
      slices.push(s)
      return 0
    })
    expect(slices.join('')).toBe(text)
    for (const s of slices) expect(longestRun(s)).toBeLessThanOrEqual(MAX_RUN)
  })

  it('40,000 U+3000 are counted at once (a hang guard: 13-17 s when runs were not split)', () => {
    expect(count('\u3000'.repeat(40_000))).toBeGreaterThan(0)
  }, 5_000)
})

describe('the total stays an upper bound, exact when there is nothing to split', () => {
  const pieces = fc.oneof(
    fc.constantFrom('the ', 'refund ', 'Lisbon, ', '€120. ', '✈️ ', '日本語', '\n', '  ', '42 '),
    fc.integer({ min: 1, max: 300 }).map((n) => 'a'.repeat(n)),
    fc.integer({ min: 1, max: 300 }).map((n) => ' '.repeat(n)),
    fc.integer({ min: 1, max: 200 }).map((n) => '\u3000'.repeat(n)),
    fc.integer({ min: 1, max: 100 }).map((n) => '😀'.repeat(n)),
    fc.integer({ min: 1, max: 200 }).map((n) => '-'.repeat(n)),
    fc.stringMatching(/^[a-zA-Z]{20,200}$/),
  )
  it('never below the plain count (300 random texts)', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
        const text = parts.join('')
        expect(count(text)).toBeGreaterThanOrEqual(plain(text))
      }),
      { numRuns: 300, seed: 17 },
    )
  })
  it('equal to the plain count for prose', () => {
    const prose =
      'Your flight to Lisbon leaves at 09:40 from gate 12; the refund of €120 goes back to the card ending 4242. '.repeat(
        200,
      )
    expect(count(prose)).toBe(plain(prose))
  })
})

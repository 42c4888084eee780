import { countTokens as o200kReference } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it, vi } from 'vitest'

/**
 * Fresh copies of the modules, without the loader the test setup adds: what a runtime with
 * no synchronous loader (a browser, a worker) gets from the root entry.
 */
async function fresh() {
  vi.resetModules()
  const encodings = await import('./encodings.js')
  const counters = await import('./counters.js')
  const errors = await import('../errors.js')
  return { ...encodings, ...counters, ...errors }
}

const asText = { disallowedSpecial: new Set<string>() }

describe('encodings load when first needed', () => {
  it('without a loader, an exact count is a typed error that says to call loadEncoding, and making the counter is not', async () => {
    const { exactCounter, EncodingNotLoadedError } = await fresh()
    const counter = exactCounter({ model: 'gpt-4o' })
    expect(() => counter.countText('hello')).toThrow(EncodingNotLoadedError)
    expect(() => counter.countText('hello')).toThrow(/await loadEncoding\("o200k_base"\)/)
    // Empty text needs no table.
    expect(counter.countText('')).toBe(0)
  })

  it('after loadEncoding, counts are synchronous and the reference figures', async () => {
    const { exactCounter, counterFor, loadEncoding } = await fresh()
    const counter = exactCounter()
    await loadEncoding()
    const text = 'Héllo 👩‍👩‍👧 𝒳𝒴 <|endoftext|> done'
    expect(counter.countText(text)).toBe(o200kReference(text, asText))
    // cl100k is another table: not loaded by loading o200k.
    expect(() => counterFor('gpt-4').countText('hello')).toThrow(/cl100k_base/)
    await loadEncoding('cl100k_base')
    expect(counterFor('gpt-4').countText('hello world')).toBe(2)
  })

  it('loadEncoding refuses an unknown encoding with a typed error', async () => {
    const { loadEncoding, InvalidOptionError } = await fresh()
    await expect(loadEncoding('p50k_base' as never)).rejects.toThrow(InvalidOptionError)
  })

  it('a loader is asked on the first exact count only, once per encoding; one that finds nothing passes to the next', async () => {
    const { exactCounter, addEncodingLoader } = await fresh()
    const asked: string[] = []
    const real = (await import('./data/o200k_base.js')).default
    const { encodingCounter } = await import('./bpe.js')
    addEncodingLoader((name) => {
      asked.push(`real:${name}`)
      return name === 'o200k_base' ? encodingCounter(name, real) : undefined
    })
    addEncodingLoader((name) => {
      asked.push(`empty:${name}`)
      return undefined
    })
    const counter = exactCounter()
    expect(asked).toEqual([])
    expect(counter.countText('hello world')).toBe(2)
    expect(exactCounter().countText('hello there')).toBe(2)
    expect(asked).toEqual(['empty:o200k_base', 'real:o200k_base'])
  })

  it('estimates need no table: a Claude, a Gemini and a chars estimate count without any loader', async () => {
    const { counterFor, estimateCounter, EncodingNotLoadedError } = await fresh()
    const message = { role: 'user' as const, content: 'Book HAT170 for 2024-05-16, please.' }
    for (const counter of [
      counterFor('claude-sonnet-4-5'),
      counterFor('gemini-2.5-pro'),
      estimateCounter({ base: 'chars' }),
    ])
      expect(counter.countMessage(message)).toBeGreaterThan(0)
    // The o200k-based estimate is the exact tokenizer scaled: it needs the table.
    expect(() => estimateCounter({ base: 'o200k' }).countText('hello')).toThrow(
      EncodingNotLoadedError,
    )
    expect(() => estimateCounter({ base: 'bytes' as never })).toThrow(/base/)
  })
})

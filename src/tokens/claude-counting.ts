/** How Claude counts a message, fitted on its own usage: the weights by kind of text, per tokenizer generation. */
import type { PiecePrices } from './estimate-text.js'

/**
 * Claude's count of a message, per estimated o200k token of each kind (`estimateText`, or
 * `pricePieces` with `pieces`) and per message and tool call: fitted on Claude's own usage
 * (`npm run eval:counting -- --fit`).
 */
export interface ClaudeCounting {
  text: number
  call: number
  result: number
  perMessage: number
  perToolCall: number
  /** What the weights price: o200k pieces (`estimateText`, default: no table) or exact o200k tokens. */
  base?: 'pieces' | 'o200k'
  /** With o200k pieces: each class of piece at its own price (`pricePieces`) instead of 1. */
  pieces?: PiecePrices
}

/**
 * Claude Sonnet 4.5's count, table-free: each class of o200k piece at its own price
 * (`pricePieces`: per word, per run of digits, white space, JSON's own marks, other
 * punctuation, non-ASCII) and a cost per tool call. Fitted by non-negative least squares on
 * the 213 steps between agent calls of the 25 τ²-bench airline conversations of
 * test/data/tau2-claude, with code (test/data/code-sample, which the conversations hold none
 * of) at 1.30 times its o200k count, as a published comparison found Claude counting code
 * (`npm run eval:counting -- --fit`, scripts/claude-fit.ts); then scaled so that no
 * conversation is counted under Claude's count. Non-ASCII pieces are too few there to fit
 * (about 500): priced as `estimateText` prices them, then scaled with the rest. Held out (each
 * conversation counted by a fit on the other 24), see docs/counting.md.
 */
export const CLAUDE_COUNTING: ClaudeCounting = {
  text: 1,
  call: 1,
  result: 1,
  perMessage: 0,
  perToolCall: 88.143,
  pieces: {
    word: 0.845,
    digits: 1.736,
    space: 1.503,
    json: 0.878,
    punctuation: 1.407,
    nonAscii: 1.034,
  },
}
/**
 * The same fit on exact o200k tokens (`estimateCounter({ model, base: 'o200k' })`, which loads
 * the o200k table): closer per conversation, as the table's tokens follow Claude's more
 * closely than the table-free pieces do.
 */
export const CLAUDE_COUNTING_O200K: ClaudeCounting = {
  text: 1.157,
  call: 1.819,
  result: 1.05,
  perMessage: 0,
  perToolCall: 71.514,
  base: 'o200k',
}
/**
 * Claude's second tokenizer (Opus 4.7 on), per class of piece: how many of its tokens per
 * token of the first, never under what was published or measured for that kind of text.
 * Anthropic: 1.0 to 1.35 times as many tokens for the same text, by kind of content
 * (https://www.anthropic.com/news/claude-opus-4-7). Measured independently with Anthropic's
 * own count endpoint on Opus 4.6 and 4.7: English prose about 1.45 (up to 1.47 on technical
 * text), code 1.13 to 1.33, Chinese, Japanese and Korean 1.0. Words, digits, white space and
 * punctuation take the prose figure (code is made of them too, and is counted high); JSON's own
 * marks the published upper bound; non-ASCII text the published upper bound, CJK the
 * measured 1.0. On LoCoMo's English conversations this counts 1.466 times the first
 * generation, on this project's TypeScript 1.46, on CJK text 1.0 (`model-table.test.ts`).
 * Until the counting endpoint measures a conversation (`countingEndpoint`), these stand.
 */
export const CLAUDE_TOKENIZER_2: Readonly<Required<PiecePrices>> = {
  word: 1.47,
  digits: 1.47,
  space: 1.47,
  punctuation: 1.47,
  json: 1.35,
  nonAscii: 1.35,
  cjk: 1,
}
/** The same, for the counts by kind of text on exact o200k tokens: the prose figure throughout. */
const CLAUDE_TOKENIZER_2_O200K = 1.47

export const CLAUDE_COUNTING_2: ClaudeCounting = {
  ...CLAUDE_COUNTING,
  perToolCall: CLAUDE_COUNTING.perToolCall * CLAUDE_TOKENIZER_2.word,
  pieces: byClass(CLAUDE_COUNTING.pieces as PiecePrices, CLAUDE_TOKENIZER_2),
}
export const CLAUDE_COUNTING_O200K_2: ClaudeCounting = {
  ...CLAUDE_COUNTING_O200K,
  text: CLAUDE_COUNTING_O200K.text * CLAUDE_TOKENIZER_2_O200K,
  call: CLAUDE_COUNTING_O200K.call * CLAUDE_TOKENIZER_2_O200K,
  result: CLAUDE_COUNTING_O200K.result * CLAUDE_TOKENIZER_2_O200K,
  perToolCall: CLAUDE_COUNTING_O200K.perToolCall * CLAUDE_TOKENIZER_2_O200K,
}

function byClass(prices: PiecePrices, factors: Required<PiecePrices>): Required<PiecePrices> {
  return {
    word: prices.word * factors.word,
    digits: prices.digits * factors.digits,
    space: prices.space * factors.space,
    json: prices.json * factors.json,
    punctuation: prices.punctuation * factors.punctuation,
    nonAscii: prices.nonAscii * factors.nonAscii,
    cjk: (prices.cjk ?? prices.nonAscii) * factors.cjk,
  }
}

import { InvalidOptionError, UnknownModelError } from '../errors.js'
import { redactCredentials } from '../messages/credentials.js'
import { describeValue, requireArgument, requireOptions } from '../options-check.js'
import type { ClaudeCounting } from './claude-counting.js'
import { type Accounting, createCounter, type TokenCounter } from './counter.js'
import { type EncodingName, textCounter } from './encodings.js'
import { estimateText, pricePieces } from './estimate-text.js'
import type { ImageModel } from './images.js'
import type { ModelInfo } from './model-table.js'
import { findModel, modelTableVersion, providerModel } from './models.js'

export type { ClaudeCounting }

/** OpenAI's chat framing, as its cookbook publishes it (3 per message, 1 per name, 3 per reply). */
const openaiAccounting = (toolFormula: 'gpt-4o' | 'gpt-4'): Accounting => ({
  perMessage: 3,
  perName: 1,
  replyPriming: 3,
  // Not published: a call is framed as a recipient header, channel and end markers.
  perToolCall: 8,
  tools: {
    funcInit: toolFormula === 'gpt-4o' ? 7 : 10,
    propInit: 3,
    propKey: 3,
    enumInit: -3,
    enumItem: 3,
    funcEnd: 12,
  },
  toolsPreamble: 0,
})

export interface ExactCounterOptions {
  /** An OpenAI model id; picks the encoding, the image pricing and the tool formula. */
  model?: string
  /** The encoding, when no model is given. Default `o200k_base`. */
  encoding?: EncodingName
}

/** Exact counts for OpenAI models: their tokenizer and their published message accounting. */
export function exactCounter(options: ExactCounterOptions = {}): TokenCounter {
  requireOptions(options, 'exactCounter', ['model', 'encoding'])
  requireArgument(
    options.model === undefined || typeof options.model === 'string',
    'exactCounter',
    'model',
    'a model id',
    options.model,
  )
  requireArgument(
    options.encoding === undefined ||
      options.encoding === 'o200k_base' ||
      options.encoding === 'cl100k_base',
    'exactCounter',
    'encoding',
    "'o200k_base' or 'cl100k_base'",
    options.encoding,
  )
  const info = options.model ? findModel(options.model) : undefined
  if (options.model && (!info || info.tokenizer === 'estimate')) {
    throw new InvalidOptionError(
      'model',
      `${options.model} has no public tokenizer; use estimateCounter or counterFor`,
    )
  }
  const encoding = (info?.tokenizer as EncodingName | undefined) ?? options.encoding ?? 'o200k_base'
  const image: ImageModel = info?.image ?? { kind: 'tile', family: 'default' }
  return createCounter({
    name: `exact:${encoding}${info ? `:${info.id}` : ''}`,
    exact: true,
    text: textCounter(encoding),
    pieceable: true,
    accounting: openaiAccounting(
      info?.toolFormula ?? (encoding === 'cl100k_base' ? 'gpt-4' : 'gpt-4o'),
    ),
    image,
  })
}

export interface EstimateCounterOptions {
  /** A model id; picks the safety factor and the image pricing. */
  model?: string
  /** o200k counts are multiplied by this. Default: the model's, else 1.3. */
  factor?: number
  /**
   * What is scaled: `pieces` (default) prices o200k's pre-tokenizer pieces by kind and length
   * and loads no rank table (about 1.17 times the o200k count on chat and tool text);
   * `o200k` tokenizes exactly (loads the o200k table; for Claude, the measured prices fitted
   * on o200k tokens, closer than the table-free default); `chars` divides the length by 3.
   */
  base?: 'pieces' | 'o200k' | 'chars'
  /**
   * For Claude models: `measured` (default) prices each class of piece as Claude's own usage
   * showed (`CLAUDE_COUNTING`; with `base: 'o200k'`, each kind of text in o200k tokens);
   * `factor` is the former estimate, o200k pieces × the model's factor (1.6, 2.35 for Opus 4.7
   * and later), about 1.5 times Claude's count.
   */
  estimate?: 'measured' | 'factor'
}

/**
 * Conservative counts for models without a public tokenizer (Claude, Gemini, Llama): it
 * over-counts rather than under-counts, and loads no tokenizer table. Provider-reported
 * usage can calibrate it.
 */
export function estimateCounter(options: EstimateCounterOptions = {}): TokenCounter {
  requireOptions(options, 'estimateCounter', ['model', 'factor', 'base', 'estimate'])
  requireArgument(
    options.estimate === undefined ||
      options.estimate === 'measured' ||
      options.estimate === 'factor',
    'estimateCounter',
    'estimate',
    "'measured' or 'factor'",
    options.estimate,
  )
  requireArgument(
    options.model === undefined || typeof options.model === 'string',
    'estimateCounter',
    'model',
    'a model id',
    options.model,
  )
  requireArgument(
    options.base === undefined ||
      options.base === 'pieces' ||
      options.base === 'o200k' ||
      options.base === 'chars',
    'estimateCounter',
    'base',
    "'pieces', 'o200k' or 'chars'",
    options.base,
  )
  return estimateOf(options.model ? findModel(options.model) : undefined, options)
}

function estimateOf(info: ModelInfo | undefined, options: EstimateCounterOptions): TokenCounter {
  if (info?.measured && options.estimate !== 'factor' && options.factor === undefined) {
    if (options.base === undefined || options.base === 'pieces')
      return measuredClaudeCounter(info.measured.kinds, info.measured.factor, info)
    if (options.base === 'o200k')
      return measuredClaudeCounter(info.measured.o200k, info.measured.factor, info)
  }
  const factor = options.factor ?? info?.estimateFactor ?? 1.3
  if (!(factor >= 1) || !Number.isFinite(factor)) {
    throw new InvalidOptionError(
      'factor',
      `must be a finite number >= 1, got ${describeValue(factor)}`,
    )
  }
  const base = options.base ?? 'pieces'
  const text =
    base === 'chars'
      ? (t: string) => Math.ceil(t.length / 3)
      : base === 'o200k'
        ? textCounter('o200k_base')
        : estimateText
  const framing = info ? ESTIMATE_FRAMING[info.provider] : ESTIMATE_FRAMING.openai
  return createCounter({
    name: `estimate:${base}x${factor}${info ? `:${info.id}` : ''}`,
    exact: false,
    text,
    accounting: {
      ...framing,
      perName: 1,
      replyPriming: 3,
      perToolCall: 12,
      tools: 'json',
    },
    image: info?.image ?? { kind: 'unknown' },
    factor,
    pieceable: base !== 'chars',
  })
}

/**
 * What an estimate adds around messages and tools, by the provider's framing: one entry per
 * provider (a new one must say its own). Anthropic adds a tool-use system prompt of about
 * 350 tokens once tools are given; Gemini charged 76 tokens for four declarations that were
 * bare names (Google's own sample, test/data/gemini-published), 30 more than their JSON
 * before the factor.
 */
const ESTIMATE_FRAMING: Record<
  ModelInfo['provider'],
  { perMessage: number; toolsPreamble: number }
> = {
  openai: { perMessage: 4, toolsPreamble: 0 },
  anthropic: { perMessage: 5, toolsPreamble: 350 },
  google: { perMessage: 4, toolsPreamble: 30 },
  meta: { perMessage: 4, toolsPreamble: 0 },
}

/**
 * Claude's count as measured: each class of o200k piece (`pricePieces`) or each kind of text
 * (o200k pieces or tokens) at its own price, per message and per tool call, times `factor` (a
 * newer tokenizer's).
 */
export function measuredClaudeCounter(
  kinds: ClaudeCounting,
  factor = 1,
  info?: ModelInfo,
): TokenCounter {
  const { pieces } = kinds
  return createCounter({
    name: `estimate:measured${kinds.base === 'o200k' ? ':o200k' : ''}${factor === 1 ? '' : `x${factor}`}${info ? `:${info.id}` : ''}`,
    exact: false,
    text:
      kinds.base === 'o200k'
        ? textCounter('o200k_base')
        : pieces
          ? (t) => pricePieces(t, pieces)
          : estimateText,
    accounting: {
      perMessage: kinds.perMessage,
      perName: 1,
      replyPriming: 3,
      perToolCall: kinds.perToolCall,
      tools: 'json',
      // Anthropic adds a tool-use system prompt of about 350 tokens once tools are given.
      toolsPreamble: 350,
    },
    weights: { text: kinds.text, call: kinds.call, result: kinds.result },
    image: info?.image ?? { kind: 'anthropic' },
    factor,
    pieceable: true,
  })
}

/** The right counter for a model: exact where a tokenizer is public, an estimate elsewhere. */
export function counterFor(model: string): TokenCounter {
  return counterOf(requireModel(model))
}

/**
 * The counter when only the provider is known: Claude's estimate for `anthropic` (with the
 * factor of the Claude model that counts most), Gemini's for `google`, o200k for `openai`.
 */
export function providerCounter(provider: ModelInfo['provider']): TokenCounter {
  // Resolved once per provider and model table: `fit` without a model asks on every call.
  const key = `${provider}:${modelTableVersion()}`
  let counter = byProvider.get(key)
  if (!counter) {
    counter = counterOf(providerModel(provider))
    byProvider.set(key, counter)
  }
  return counter
}
const byProvider = new Map<string, TokenCounter>()

function counterOf(info: ModelInfo): TokenCounter {
  // One counter per model, so its per-message cache serves every caller.
  const key = `${info.provider}:${info.id}`
  let counter = byModel.get(key)
  if (!counter) {
    counter =
      info.tokenizer === 'estimate' ? estimateOf(info, {}) : exactCounter({ model: info.id })
    byModel.set(key, counter)
  }
  return counter
}

const byModel = new Map<string, TokenCounter>()

/** The model's table entry, or an `UnknownModelError` saying how to `registerModel` it. */
export function requireModel(model: string): ModelInfo {
  if (typeof model !== 'string')
    throw new InvalidOptionError('model', `expected a model id, got ${describeValue(model)}`)
  const info = findModel(model)
  if (!info) throw new UnknownModelError(model, redactCredentials(model))
  return info
}

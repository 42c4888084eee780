import { InvalidOptionError } from '../errors.js'
import { registerStrategy } from '../strategies/index.js'
import { extractiveSummarizer } from './extractive.js'
import { type OpenAICompatibleOptions, openAICompatibleSummarizer } from './openai-compatible.js'
import type { Summarizer } from './summarizer.js'
import { type SummarizingOptions, summarizing } from './summarizing.js'

export { type ExtractiveOptions, extractiveSummarizer } from './extractive.js'
export {
  checkFacts,
  extractFacts,
  FACTS_HEADING,
  type Fact,
  type FactKind,
  type FactReport,
  fitFacts,
  renderFacts,
} from './facts.js'
export {
  DEFAULT_PROMPT,
  type OpenAICompatibleOptions,
  openAICompatibleSummarizer,
} from './openai-compatible.js'
export {
  type SummarizeRequest,
  type Summarizer,
  SummarizerError,
  transcript,
} from './summarizer.js'
export {
  type CompressionEvent,
  type SummarizingOptions,
  type SummarizingStrategy,
  summarizing,
  summaryLedger,
} from './summarizing.js'

/**
 * A summarizer from its JSON form (what `toJSON` wrote): `'extractive'`, or the options of
 * an OpenAI-compatible server (`{ baseURL, model, apiKey? }`; a saved state has no key).
 */
export function summarizerFromJSON(spec: unknown): Summarizer {
  if (spec === undefined || spec === 'extractive') return extractiveSummarizer()
  if (spec && typeof spec === 'object' && 'summarize' in spec) return spec as Summarizer
  if (spec && typeof spec === 'object' && 'baseURL' in spec && 'model' in spec)
    return openAICompatibleSummarizer(spec as OpenAICompatibleOptions)
  throw new InvalidOptionError(
    'summarizer',
    `expected "extractive" or { baseURL, model } for an OpenAI-compatible server, got ${JSON.stringify(spec)}: pass a summarizer object for anything else`,
  )
}

/** By name (JSON configs, saved states, the CLI). */
registerStrategy('summarizing', (o: Record<string, unknown>) => {
  const keys = [
    'trigger',
    'leaveLastN',
    'mode',
    'background',
    'role',
    'maxSummaryTokens',
    'facts',
    'signal',
    'verbose',
    'onEvent',
    'compress',
  ] as const
  const options: SummarizingOptions = { summarizer: summarizerFromJSON(o.summarizer) }
  for (const k of keys) if (o[k] !== undefined) (options as Record<string, unknown>)[k] = o[k]
  return summarizing(options)
})

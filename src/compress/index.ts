import { InvalidOptionError } from '../errors.js'
import { requireOptions } from '../options-check.js'
import { type MostRelevantOptions, mostRelevant } from '../strategies/most-relevant.js'
import type { Strategy } from '../strategies/types.js'
import { extractiveSummarizer } from './extractive.js'
import { type OpenAICompatibleOptions, openAICompatibleSummarizer } from './openai-compatible.js'
import type { Summarizer } from './summarizer.js'
import { summarizing } from './summarizing.js'
import { SUMMARIZING_OPTIONS, type SummarizingOptions } from './summarizing-options.js'

export { checkFacts, FACTS_HEADING, fitFacts, renderFacts } from '../messages/fact-list.js'
export { extractFacts, type Fact, type FactKind, type FactReport } from '../messages/facts.js'
export { type ExtractiveOptions, extractiveSummarizer } from './extractive.js'
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
export { type SummarizingStrategy, summarizing } from './summarizing.js'
export type { CompressionEvent, SummarizingOptions } from './summarizing-options.js'
export { summaryLedger } from './summary-ledger.js'

/**
 * A summarizer from its JSON form (what `toJSON` wrote): `'extractive'`, or the options of
 * an OpenAI-compatible server (`{ baseURL, model, apiKey? }`; a saved state has no key).
 */
export function summarizerFromJSON(spec: unknown): Summarizer {
  if (spec === undefined || spec === 'extractive') return extractiveSummarizer()
  if (spec && typeof spec === 'object' && 'summarize' in spec) return spec as Summarizer
  if (spec && typeof spec === 'object' && 'baseURL' in spec && 'model' in spec)
    return openAICompatibleSummarizer(spec as OpenAICompatibleOptions)
  // Never the spec itself in the message: it may hold an API key.
  throw new InvalidOptionError(
    'summarizer',
    `expected "extractive" or { baseURL, model } for an OpenAI-compatible server, got ${describeSpec(spec)}: pass a summarizer object for anything else`,
  )
}

/** What a summarizer spec is, by shape and key names only (no values: one may be a key). */
function describeSpec(spec: unknown): string {
  if (spec === null) return 'null'
  if (typeof spec === 'string')
    return spec.length <= 40 && /^[\w-]+$/.test(spec) ? `"${spec}"` : 'a string'
  if (typeof spec !== 'object') return `a ${typeof spec}`
  if (Array.isArray(spec)) return 'a list'
  const keys = Object.keys(spec)
    .slice(0, 12)
    .map((k) => (k.length > 40 ? `${k.slice(0, 40)}…` : k))
  const hint =
    'baseUrl' in spec ? ' (did you mean baseURL?)' : !('model' in spec) ? ' (no model)' : ''
  return `an object with keys ${keys.join(', ') || '(none)'}${hint}`
}

/**
 * The strategies only an asynchronous caller runs, from plain options (JSON configs, saved
 * states, the CLI, a name in code): summarizing, and `mostRelevant` with an `embed` function.
 */
export function asyncStrategyFromOptions(
  name: 'summarizing' | 'mostRelevant',
  o: Record<string, unknown>,
): Strategy {
  return name === 'mostRelevant'
    ? mostRelevant(o as MostRelevantOptions)
    : summarizingFromOptions(o)
}

/** The summarizing strategy from plain options (JSON configs, saved states, the CLI). */
export function summarizingFromOptions(o: Record<string, unknown>) {
  requireOptions(o, 'summarizingFromOptions', undefined, { required: true })
  // Every option `summarizing` reads but its summarizer, which comes as JSON here.
  const keys = SUMMARIZING_OPTIONS.filter((k) => k !== 'summarizer')
  const options: SummarizingOptions = { summarizer: summarizerFromJSON(o.summarizer) }
  for (const k of keys) if (o[k] !== undefined) (options as Record<string, unknown>)[k] = o[k]
  return summarizing(options)
}

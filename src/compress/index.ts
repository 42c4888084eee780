import { registerStrategy } from '../strategies/index.js'
import { extractiveSummarizer } from './extractive.js'
import { openAICompatibleSummarizer } from './openai-compatible.js'
import { type SummarizingOptions, summarizing } from './summarizing.js'

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
export { type CompressionEvent, type SummarizingOptions, summarizing } from './summarizing.js'

/** By name (JSON configs, the CLI): `summarizer` is `'extractive'` or an OpenAI-compatible spec. */
registerStrategy('summarizing', (o: Record<string, unknown>) => {
  const spec = o.summarizer as
    | string
    | { baseURL: string; model: string; apiKey?: string }
    | undefined
  const summarizer =
    spec === undefined || spec === 'extractive'
      ? extractiveSummarizer()
      : typeof spec === 'object'
        ? openAICompatibleSummarizer(spec)
        : (spec as never)
  const keys = [
    'trigger',
    'leaveLastN',
    'mode',
    'background',
    'role',
    'maxSummaryTokens',
    'verbose',
    'onEvent',
    'compress',
  ] as const
  const options: SummarizingOptions = { summarizer }
  for (const k of keys) if (o[k] !== undefined) (options as Record<string, unknown>)[k] = o[k]
  return summarizing(options)
})

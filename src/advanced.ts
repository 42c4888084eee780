/**
 * `context-window/advanced`: what an app reaches for once the root's calls are not enough:
 * building blocks of the strategies (scorers, the ledger's heading, the stable cut), format
 * names and the by-name `decode`/`encode`/`convert`, the strategy and transform registries,
 * component configs, the facts kit and summarizer plumbing, learned limits read by hand,
 * context-management readers, the model table, message helpers. Each is exported here only.
 */
export {
  asyncStrategyFromOptions,
  checkFacts,
  DEFAULT_PROMPT,
  extractFacts,
  FACTS_HEADING,
  fitFacts,
  renderFacts,
  summarizerFromJSON,
  summarizingFromOptions,
  summaryLedger,
  transcript,
} from './compress/index.js'
export { dumpComponent, loadComponent } from './config/component.js'
export { createTransform, registerTransform, transformNames } from './config/transforms.js'
export { promptTokensOf } from './context/limits/learned-limit.js'
export { createStrategy } from './context/options/create-strategy.js'
export { registerStrategy, strategyNames } from './context/options/registry.js'
export {
  AI_SDK,
  ANTHROPIC,
  AUTOGEN,
  convert,
  decode,
  detectFormat,
  encode,
  encodeGemini,
  encodeOpenAIResponses,
  FORMATS,
  GEMINI,
  LANGCHAIN,
  OPENAI_RESPONSES,
} from './formats/index.js'
export { contentText, messageText } from './messages/message.js'
export { startsUserTurn, toUnits } from './messages/units.js'
export {
  ANTHROPIC_COMPACT_BETA,
  ANTHROPIC_CONTEXT_BETA,
  contextManagementReport,
  readContextManagement,
} from './native/context-management.js'
export {
  checkRecallOptions,
  RECALL_DEFAULTS,
  RECALL_DESCRIPTION,
  RECALL_HEADING,
  RECALL_PARAMETERS,
  RECALL_TOOL_NAME,
  readRecallRequest,
  recallArgumentsSchema,
  recallText,
} from './recall/index.js'
export {
  combine,
  cooccurring,
  dates,
  entities,
  fuse,
  identifiers,
  LEDGER_HEADING,
  MOST_RELEVANT_OPTIONS,
  nearby,
  newestUserText,
  OMITTED_RESULT,
  pinned,
  recency,
  relevance,
  relevanceScorer,
  roleWeights,
  spokenBy,
  spreadScores,
  stableCut,
  standingInstructions,
  unbounded,
} from './strategies/index.js'
export { models } from './tokens/model-table.js'
export { canonicalModelId } from './tokens/models.js'
export { CLEARED } from './transforms/clear-tool-results.js'
export { pipe } from './transforms/pipe.js'
export { removeToolExchanges } from './transforms/remove-tool-exchanges.js'

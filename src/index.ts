// The root entry: the calls an app makes (pinned by test/root-surface.test.ts). Building
// blocks live in `context-window/advanced`, the zod schemas in `context-window/schemas`, the
// framework adapters and stores in their own entries. Types are exported here whole.
export type * from './compress/index.js'
export {
  extractiveSummarizer,
  openAICompatibleSummarizer,
  SummarizerError,
  summarizing,
} from './compress/index.js'
export type { ComponentModel } from './config/component.js'
export {
  type AddedMessage,
  ChatContext,
  type ChatContextOptions,
  type ChatContextState,
  type ContextFormat,
} from './context/chat/chat-context.js'
export {
  type ContextRetryOptions,
  type ContextRetryResult,
  withContextRetry,
} from './context/chat/retry.js'
export {
  type AnthropicCountingClient,
  countingEndpoint,
  type GeminiCountingClient,
  type OpenAICountingClient,
} from './context/counting/counting-endpoint.js'
export type {
  CountingEndpoint,
  CountingEndpointOptions,
  EndpointCount,
} from './context/counting/counting-types.js'
export { fitCounted } from './context/counting/fit-counted.js'
export {
  type Fate,
  type FitOptions,
  type FitResult,
  fit,
  fitAsync,
  type MessageFate,
} from './context/fit.js'
export { ProviderFeedback, type ProviderFeedbackState } from './context/limits/learned-limit.js'
export { type OverflowReport, parseOverflowError } from './context/limits/overflow-error.js'
export type { StrategyName, StrategyOptionsByName } from './context/options/registry.js'
export * from './errors.js'
export type * from './formats/index.js'
export {
  fromAISDK,
  fromAnthropic,
  fromAutoGen,
  fromGemini,
  fromLangChain,
  fromOpenAIChat,
  fromOpenAIResponses,
  toAISDK,
  toAnthropic,
  toAutoGen,
  toGemini,
  toLangChain,
  toOpenAIChat,
  toOpenAIResponses,
} from './formats/index.js'
export {
  type AdapterOptions,
  fitAnthropicRequest,
  fitOpenAIMessages,
} from './integrations/index.js'
export type * from './messages/message.js'
export type { Unit, UnitKind } from './messages/units.js'
export {
  type AppliedEdit,
  type Compaction,
  type ContextManagementPlan,
  type ContextManagementReport,
  type ContextPolicy,
  type ContextTarget,
  contextManagement,
  type ProviderContextReport,
  withContextManagement,
} from './native/context-management.js'
export { type RepairResult, repair } from './providers/repair.js'
export {
  errorsOf,
  type Problem,
  type ProblemCode,
  type Provider,
  type ValidateOptions,
  type Validation,
  validate,
} from './providers/validate.js'
export {
  executeRecall,
  type RecallOptions,
  type RecallRequest,
  type RecallResult,
  type RecallToolFormat,
  type RecallToolOptions,
  recall,
  recallTool,
} from './recall/index.js'
export { type ReportSettings, renderReport } from './report/html.js'
export {
  type AppendOptions,
  type HistoryStore,
  StoreConflictError,
  type StoredEntry,
  StoreError,
  type SummaryRecord,
} from './store/history-store.js'
export { memoryStore } from './store/memory-store.js'
export type * from './strategies/index.js'
export {
  buffered,
  headAndTail,
  mostRelevant,
  scoreBased,
  semantic,
  tokenLimited,
  userTurns,
  withLedger,
} from './strategies/index.js'
export type { SummaryEntry, SummaryLedger } from './strategies/types.js'
export type { Accounting, TokenCounter } from './tokens/counter.js'
export {
  counterFor,
  type EstimateCounterOptions,
  type ExactCounterOptions,
  estimateCounter,
  exactCounter,
} from './tokens/counters.js'
export { type EncodingName, loadEncoding } from './tokens/encodings.js'
export type { ModelInfo } from './tokens/model-table.js'
export { findModel, registerModel } from './tokens/models.js'
export {
  type ClearThinkingOptions,
  clearThinking,
  type ThinkingKeep,
} from './transforms/clear-thinking.js'
export { type ClearToolResultsOptions, clearToolResults } from './transforms/clear-tool-results.js'
export { type DropThoughtsOptions, dropThoughts } from './transforms/drop-thoughts.js'
export type { RemoveToolExchangesOptions } from './transforms/remove-tool-exchanges.js'
export { type TruncateMessagesOptions, truncateMessages } from './transforms/truncate-messages.js'

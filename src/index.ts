export * from './compress/index.js'
export {
  type ComponentModel,
  componentJsonSchema,
  dumpComponent,
  loadComponent,
} from './config/component.js'
export { createTransform, registerTransform, transformNames } from './config/transforms.js'
export {
  ChatContext,
  type ChatContextOptions,
  type ChatContextState,
} from './context/chat-context.js'
export { createStrategy } from './context/create-strategy.js'
export {
  type Fate,
  type FitOptions,
  type FitResult,
  fit,
  fitAsync,
  type MessageFate,
} from './context/fit.js'
export {
  ProviderFeedback,
  type ProviderFeedbackState,
  promptTokensOf,
} from './context/learned-limit.js'
export {
  registerStrategy,
  type StrategyName,
  type StrategyOptionsByName,
  strategyNames,
} from './context/registry.js'
export {
  type ContextRetryOptions,
  type ContextRetryResult,
  type OverflowReport,
  parseOverflowError,
  withContextRetry,
} from './context/retry.js'
export * from './deprecated-entries.js'
export * from './errors.js'
export * from './formats/index.js'
export {
  type AdapterOptions,
  fitAnthropicRequest,
  fitOpenAIMessages,
} from './integrations/index.js'
export * from './messages/message.js'
export { startsUserTurn, toUnits, type Unit, type UnitKind } from './messages/units.js'
export {
  ANTHROPIC_COMPACT_BETA,
  ANTHROPIC_CONTEXT_BETA,
  type AppliedEdit,
  type Compaction,
  type ContextManagementPlan,
  type ContextManagementReport,
  type ContextPolicy,
  type ContextTarget,
  contextManagement,
  contextManagementReport,
  type ProviderContextReport,
  readContextManagement,
  withContextManagement,
} from './native/context-management.js'
export {
  errorsOf,
  type Problem,
  type ProblemCode,
  type Provider,
  type RepairResult,
  repair,
  type ValidateOptions,
  validate,
} from './providers/validate.js'
export * from './recall/index.js'
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
export * from './strategies/index.js'
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
export {
  canonicalModelId,
  findModel,
  type ModelInfo,
  models,
  registerModel,
} from './tokens/models.js'
export {
  type ClearThinkingOptions,
  clearThinking,
  type ThinkingKeep,
} from './transforms/clear-thinking.js'
export {
  CLEARED,
  type ClearToolResultsOptions,
  clearToolResults,
} from './transforms/clear-tool-results.js'
export { type DropThoughtsOptions, dropThoughts } from './transforms/drop-thoughts.js'
export { pipe } from './transforms/pipe.js'
export {
  type RemoveToolExchangesOptions,
  removeToolExchanges,
} from './transforms/remove-tool-exchanges.js'
export { type TruncateMessagesOptions, truncateMessages } from './transforms/truncate-messages.js'

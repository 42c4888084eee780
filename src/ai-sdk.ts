/**
 * `context-window/ai-sdk`: the Vercel AI SDK adapters. `fitMiddleware` wraps a language
 * model; `fitEachStep` is a `prepareStep`; `fitAISDKMessages` fits a `ModelMessage[]`.
 */
export { type FitEachStepOptions, fitEachStep, fitMiddleware } from './integrations/ai-sdk.js'
export { fitAISDKMessages } from './integrations/index.js'
export type { AdapterOptions } from './integrations/shared.js'
/** The recall tool as this framework's tool: the model gets back what a fit left out. */
export {
  type AISDKRecallToolOptions,
  type RecallToolOptions,
  recallToolForAISDK,
} from './recall/frameworks.js'

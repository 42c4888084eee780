/**
 * `context-window/ai-sdk`: the Vercel AI SDK adapters. `fitMiddleware` wraps a language
 * model; `fitEachStep` is a `prepareStep`; `fitAISDKMessages` fits a `ModelMessage[]`.
 */
export { type FitEachStepOptions, fitEachStep, fitMiddleware } from './integrations/ai-sdk.js'
export { fitAISDKMessages } from './integrations/index.js'
export type { AdapterOptions } from './integrations/shared.js'

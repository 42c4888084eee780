/**
 * The framework adapters as the root entry exported them before they moved to their own
 * entries (`context-window/ai-sdk`, `/langchain`, `/openai-agents`, `/mastra`). Kept for one
 * version; each import is marked deprecated where an editor shows it.
 */
import * as aiSdk from './integrations/ai-sdk.js'
import { fitAISDKMessages as aiSdkMessages } from './integrations/index.js'
import * as langchain from './integrations/langchain.js'
import * as mastra from './integrations/mastra.js'
import * as agents from './integrations/openai-agents.js'

/** @deprecated Import from `context-window/ai-sdk`. */
export const fitMiddleware: typeof aiSdk.fitMiddleware = aiSdk.fitMiddleware
/** @deprecated Import from `context-window/ai-sdk`. */
export const fitEachStep: typeof aiSdk.fitEachStep = aiSdk.fitEachStep
/** @deprecated Import from `context-window/ai-sdk`. */
export const fitAISDKMessages: typeof aiSdkMessages = aiSdkMessages
/** @deprecated Import from `context-window/ai-sdk`. */
export type FitEachStepOptions = aiSdk.FitEachStepOptions
/** @deprecated Import from `context-window/langchain`. */
export const fitAgentMessages: typeof langchain.fitAgentMessages = langchain.fitAgentMessages
/** @deprecated Import from `context-window/openai-agents`. */
export const fitModelInput: typeof agents.fitModelInput = agents.fitModelInput
/** @deprecated Import from `context-window/openai-agents`. */
export const fittedSession: typeof agents.fittedSession = agents.fittedSession
/** @deprecated Import from `context-window/openai-agents`. */
export const fitAgentModel: typeof agents.fitAgentModel = agents.fitAgentModel
/** @deprecated Import from `context-window/openai-agents`. */
export type FittedSessionOptions = agents.FittedSessionOptions
/** @deprecated Import from `context-window/mastra`. */
export const fitInputProcessor: typeof mastra.fitInputProcessor = mastra.fitInputProcessor

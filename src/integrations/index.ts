import type { FitResult } from '../context/fit.js'
import { fromAISDK, type ModelMessageJson, toAISDK } from '../formats/ai-sdk.js'
import { type AnthropicRequest, fromAnthropic, toAnthropic } from '../formats/anthropic-messages.js'
import { fromOpenAIChat, type OpenAIChatMessage, toOpenAIChat } from '../formats/openai-chat.js'
import { requireArgument } from '../options-check.js'
import { type AdapterOptions, checkAdapterOptions, fitWithFeedback } from './shared.js'

/**
 * Thin adapters: the SDKs' own message shapes in, the same shapes out, fitted. They depend
 * on no SDK at run time; the SDKs are the caller's. With `feedback`, a window learnt from a
 * rejection (`feedback.learn(error)`) and usage (`feedback.observe(response)`) steer the fit.
 */

/** OpenAI SDK: fit `messages` before `chat.completions.create`. */
export function fitOpenAIMessages<M extends object>(
  messages: readonly M[],
  options: AdapterOptions = {},
): { messages: M[]; result: FitResult } {
  checkAdapterOptions(options, 'fitOpenAIMessages')
  const result = fitWithFeedback(fromOpenAIChat(messages), { provider: 'openai', ...options })
  return { messages: toOpenAIChat(result.messages) as unknown as M[], result }
}

/**
 * Anthropic SDK: fit a `messages.create` request. What the request sends beside its messages
 * is counted too: its `tools` (server tools included) and its `max_tokens` as the reserve,
 * unless `options` say otherwise.
 */
export function fitAnthropicRequest<
  R extends { system?: unknown; messages: unknown[]; tools?: unknown; max_tokens?: unknown },
>(request: R, options: AdapterOptions = {}): { request: R; result: FitResult } {
  requireArgument(
    typeof request === 'object' && request !== null && !Array.isArray(request),
    'fitAnthropicRequest',
    'request',
    'a messages.create request',
    request,
  )
  checkAdapterOptions(options, 'fitAnthropicRequest')
  const { tools, max_tokens: maxTokens } = request
  const own = {
    ...(Array.isArray(tools) && { tools: tools as AdapterOptions['tools'] }),
    ...(typeof maxTokens === 'number' && { reserve: maxTokens }),
  }
  const result = fitWithFeedback(fromAnthropic(request), {
    provider: 'anthropic',
    ...own,
    ...options,
  })
  const { lost: _lost, ...fitted } = toAnthropic(result.messages)
  const { system: _system, ...rest } = request
  return { request: { ...rest, ...fitted } as unknown as R, result }
}

/** AI SDK: fit a `ModelMessage[]`. */
export function fitAISDKMessages<M>(
  messages: readonly M[],
  options: AdapterOptions = {},
): { messages: M[]; result: FitResult } {
  checkAdapterOptions(options, 'fitAISDKMessages')
  const result = fitWithFeedback(fromAISDK(messages), options)
  return { messages: toAISDK(result.messages) as unknown as M[], result }
}

export { type FitEachStepOptions, fitEachStep, fitMiddleware } from './ai-sdk.js'
export { fitAgentMessages } from './langchain.js'
export { fitInputProcessor } from './mastra.js'
export {
  type FittedSessionOptions,
  fitAgentModel,
  fitModelInput,
  fittedSession,
} from './openai-agents.js'
export type { AdapterOptions } from './shared.js'
export type { AnthropicRequest, ModelMessageJson, OpenAIChatMessage }

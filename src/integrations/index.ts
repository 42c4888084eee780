import { type FitOptions, type FitResult, fit } from '../context/fit.js'
import { fromAISDK, type ModelMessageJson, toAISDK } from '../formats/ai-sdk.js'
import { type AnthropicRequest, fromAnthropic, toAnthropic } from '../formats/anthropic-messages.js'
import { fromOpenAIChat, type OpenAIChatMessage, toOpenAIChat } from '../formats/openai-chat.js'

/**
 * Thin adapters: the SDKs' own message shapes in, the same shapes out, fitted. They depend
 * on no SDK at run time; the SDKs are the caller's.
 */

/** OpenAI SDK: fit `messages` before `chat.completions.create`. */
export function fitOpenAIMessages<M extends object>(
  messages: readonly M[],
  options: FitOptions = {},
): { messages: M[]; result: FitResult } {
  const result = fit(fromOpenAIChat(messages), { provider: 'openai', ...options })
  return { messages: toOpenAIChat(result.messages) as unknown as M[], result }
}

/** Anthropic SDK: fit `{ system, messages }` before `messages.create`. */
export function fitAnthropicRequest<R extends { system?: unknown; messages: unknown[] }>(
  request: R,
  options: FitOptions = {},
): { request: R; result: FitResult } {
  const result = fit(fromAnthropic(request), { provider: 'anthropic', ...options })
  const { lost: _lost, ...fitted } = toAnthropic(result.messages)
  const { system: _system, ...rest } = request
  return { request: { ...rest, ...fitted } as unknown as R, result }
}

/** AI SDK: fit a `ModelMessage[]`. */
export function fitAISDKMessages<M>(
  messages: readonly M[],
  options: FitOptions = {},
): { messages: M[]; result: FitResult } {
  const result = fit(fromAISDK(messages), options)
  return { messages: toAISDK(result.messages) as unknown as M[], result }
}

export { type FitEachStepOptions, fitEachStep, fitMiddleware } from './ai-sdk.js'
export { fitAgentMessages } from './langchain.js'
export { type FittedSessionOptions, fitModelInput, fittedSession } from './openai-agents.js'
export type { AdapterOptions } from './shared.js'
export type { AnthropicRequest, ModelMessageJson, OpenAIChatMessage }

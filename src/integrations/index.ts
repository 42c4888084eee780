import type { FitResult } from '../context/fit.js'
import { type ModelMessageJson, toAISDK } from '../formats/ai-sdk.js'
import { requireArgument } from '../options-check.js'
import {
  type AnthropicRequest,
  readAnthropic,
  toAnthropic,
} from '../providers/anthropic-messages/codec.js'
import {
  type OpenAIChatMessage,
  readOpenAIChat,
  toOpenAIChat,
} from '../providers/openai-chat/codec.js'
import { numberAs } from '../recall/numbering.js'
import { decodeModelMessages, withExecutedResults } from './ai-sdk-messages.js'
import {
  type AdapterOptions,
  checkAdapterOptions,
  decodeEach,
  fitWithFeedback,
  knownModel,
  originalsOrEncoded,
} from './shared.js'

/**
 * Thin adapters: the SDKs' own message shapes in, the same shapes out, fitted. They depend
 * on no SDK at run time; the SDKs are the caller's. With `feedback`, a window learnt from a
 * rejection and usage steer the fit: hand each back with the fit's own `result`
 * (`feedback.learn(error, result)`, `feedback.observe(response, result)`), so that calls
 * made at once never read each other's counts.
 */

/** OpenAI SDK: fit `messages` before `chat.completions.create`. */
export function fitOpenAIMessages<M extends object>(
  messages: readonly M[],
  options: AdapterOptions = {},
): { messages: M[]; result: FitResult } {
  checkAdapterOptions(options, 'fitOpenAIMessages')
  const result = fitWithFeedback(readOpenAIChat(messages), { provider: 'openai', ...options })
  return { messages: toOpenAIChat(result.messages) as unknown as M[], result }
}

/**
 * Anthropic SDK: fit a `messages.create` request. What the request sends beside its messages
 * is counted too: its `tools` (server tools included) and its `max_tokens` as the reserve,
 * and its `model` gives the window and the counter (any spelling the model table reads,
 * Bedrock's and Vertex's included), unless `options` say otherwise.
 */
export function fitAnthropicRequest<
  R extends {
    model?: unknown
    system?: unknown
    messages: unknown[]
    tools?: unknown
    max_tokens?: unknown
  },
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
  const model = typeof request.model === 'string' ? knownModel(request.model) : undefined
  const own = {
    ...(model !== undefined && { model }),
    ...(Array.isArray(tools) && { tools: tools as AdapterOptions['tools'] }),
    ...(typeof maxTokens === 'number' && { reserve: maxTokens }),
  }
  const result = fitWithFeedback(readAnthropic(request), {
    provider: 'anthropic',
    ...own,
    ...options,
  })
  const { lost: _lost, ...fitted } = toAnthropic(result.messages)
  const { system: _system, ...rest } = request
  return { request: { ...rest, ...fitted } as unknown as R, result }
}

/**
 * AI SDK: fit a `ModelMessage[]`. A message kept as it was comes back as the same object; a
 * provider-executed call and its result (both in the assistant message) go or stay together.
 */
export function fitAISDKMessages<M>(
  messages: readonly M[],
  options: AdapterOptions = {},
): { messages: M[]; result: FitResult } {
  checkAdapterOptions(options, 'fitAISDKMessages')
  requireArgument(Array.isArray(messages), 'fitAISDKMessages', 'messages', 'a list', messages)
  const { messages: input, owner } = decodeEach(messages, decodeModelMessages)
  // Numbered as the caller's messages (a tool message of several results is one number).
  numberAs(input, owner)
  const result = fitWithFeedback(input, options)
  const out = originalsOrEncoded(
    result,
    messages,
    owner,
    withExecutedResults((m) => toAISDK(m) as unknown as M[]),
  )
  return { messages: out, result }
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

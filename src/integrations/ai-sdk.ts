import { ProviderFeedback, promptTokensOf } from '../context/learned-limit.js'
import { fromAISDK, toAISDK } from '../formats/ai-sdk.js'
import type { Message } from '../messages/message.js'
import {
  type AdapterOptions,
  checkAdapterOptions,
  decodeEach,
  fitWithFeedback,
  functionTools,
  knownModel,
  originalsOrEncoded,
  providerFromId,
} from './shared.js'

/** The parts of an AI SDK language model the adapters read (`LanguageModelV3`). */
interface ModelLike {
  provider?: string
  modelId?: string
  doGenerate(params: never): PromiseLike<unknown>
}

/** The parts of the call options the middleware reads and writes (`LanguageModelV3CallOptions`). */
interface CallOptionsLike {
  prompt: unknown[]
  maxOutputTokens?: number | undefined
  tools?: readonly unknown[] | undefined
}

/** Messages in the provider interface's prompt shape: user and assistant content always a list of parts. */
function toPrompt(messages: readonly Message[]): unknown[] {
  return toAISDK(messages).map((m) =>
    typeof m.content === 'string' && m.role !== 'system'
      ? { ...m, content: m.content === '' ? [] : [{ type: 'text', text: m.content }] }
      : m,
  )
}

/**
 * A `LanguageModelMiddleware` that fits the prompt of every call, for any model wrapped with
 * `wrapLanguageModel({ model, middleware: fitMiddleware({ budget: 8000 }) })`. The system
 * prompt, the tool schemas and the call's `maxOutputTokens` (as the reserve, unless one is
 * given) are counted; the rules follow the model's provider id (Anthropic's for
 * `anthropic.*`, OpenAI's otherwise) and the counter its model id when the table knows it.
 * A call rejected as too long teaches the window (kept in `feedback`) and is sent once more,
 * fitted to it; the usage each reply reports calibrates later counts.
 */
export function fitMiddleware(options: AdapterOptions = {}) {
  checkAdapterOptions(options, 'fitMiddleware')
  const feedback = options.feedback ?? new ProviderFeedback()
  const fitParams = <P extends CallOptionsLike>(params: P, model: ModelLike): P => {
    const { feedback: _f, ...rest } = options
    const reserve = options.reserve ?? params.maxOutputTokens
    const modelId = options.model ?? knownModel(model.modelId)
    const { messages, owner } = decodeEach(params.prompt, fromAISDK)
    const result = fitWithFeedback(messages, {
      ...rest,
      provider: options.provider ?? providerFromId(model.provider, model.modelId),
      ...(modelId !== undefined && { model: modelId }),
      ...(reserve !== undefined && { reserve }),
      tools: options.tools ?? functionTools(params.tools, 'inputSchema'),
      feedback,
    })
    return { ...params, prompt: originalsOrEncoded(result, params.prompt, owner, toPrompt) }
  }
  return {
    specificationVersion: 'v3' as const,
    transformParams: async <P extends CallOptionsLike>(o: {
      params: P
      model: ModelLike
    }): Promise<P> => fitParams(o.params, o.model),
    wrapGenerate: async <R>(o: {
      doGenerate: () => PromiseLike<R>
      params: CallOptionsLike
      model: ModelLike
    }): Promise<R> => {
      let result: R
      try {
        result = await o.doGenerate()
      } catch (error) {
        if (!feedback.learn(error)) throw error
        result = (await o.model.doGenerate(fitParams(o.params, o.model) as never)) as R
      }
      const usage = (result as { usage?: unknown }).usage
      const promptTokens = promptTokensOf(usage)
      if (promptTokens !== undefined) feedback.recordUsage({ promptTokens })
      return result
    },
    wrapStream: async <R>(o: {
      doStream: () => PromiseLike<R>
      params: CallOptionsLike
      model: ModelLike & { doStream(params: never): PromiseLike<unknown> }
    }): Promise<R> => {
      try {
        return await o.doStream()
      } catch (error) {
        // A rejection comes before the first chunk: learn it and open the stream once more.
        if (!feedback.learn(error)) throw error
        return (await o.model.doStream(fitParams(o.params, o.model) as never)) as R
      }
    },
    /** What the provider taught: share it with other calls, or save it with `toJSON`. */
    feedback,
  }
}

export type FitEachStepOptions = AdapterOptions & {
  /**
   * The system prompt, counted inside the budget and returned as the step's `system`: give
   * it here instead of to `generateText`, so it is neither left out of the count nor sent twice.
   */
  system?: string
}

/**
 * AI SDK: a `prepareStep` that hands the model fitted messages on every step of an agent
 * loop: `generateText({ ..., prepareStep: fitEachStep({ system, budget: 8000 }) })`. With
 * `system`, the system prompt is counted and sent as the step's `system`. The rules follow
 * the step model's provider id; with `feedback`, the usage of each finished step calibrates
 * the next one and a window learnt from a rejection is kept.
 */
export function fitEachStep(options: FitEachStepOptions = {}) {
  checkAdapterOptions(options, 'fitEachStep', ['system'])
  const { system, ...rest } = options
  // One object for the whole loop, so the fitted prefix is recognised from step to step.
  const systemMessage: Message | undefined =
    system === undefined ? undefined : { role: 'system', content: system }
  // The step messages this loop has decoded: the same objects come back at every step.
  const decoded = new WeakMap<object, readonly Message[]>()
  return <M>(step: {
    messages: M[]
    model?: unknown
    steps?: readonly { usage?: unknown }[]
  }): { messages: M[]; system?: string } => {
    const model = (typeof step.model === 'object' ? step.model : undefined) as
      | { provider?: string; modelId?: string }
      | undefined
    const last = step.steps?.[step.steps.length - 1]
    if (options.feedback && last) {
      const promptTokens = promptTokensOf(last.usage)
      if (promptTokens !== undefined) options.feedback.recordUsage({ promptTokens })
    }
    const { messages: stepMessages, owner } = decodeEach(step.messages, fromAISDK, decoded)
    const input = systemMessage ? [systemMessage, ...stepMessages] : stepMessages
    if (systemMessage) owner.unshift(-1)
    const modelId = rest.model ?? knownModel(model?.modelId)
    const result = fitWithFeedback(input, {
      ...rest,
      ...(modelId !== undefined && { model: modelId }),
      provider:
        rest.provider ??
        providerFromId(
          model?.provider,
          model?.modelId,
          typeof step.model === 'string' ? step.model : undefined,
        ),
    })
    // The system prompt is mandatory: sent as the step's `system`, never among the messages.
    const messages = originalsOrEncoded(
      result,
      step.messages,
      owner,
      (m) => toAISDK(m) as unknown as M[],
    )
    return system === undefined ? { messages } : { system, messages }
  }
}

import type { FitResult } from '../context/fit.js'
import { ProviderFeedback, promptTokensOf } from '../context/limits/learned-limit.js'
import { toAISDK } from '../formats/ai-sdk.js'
import type { Message } from '../messages/message.js'
import { fieldsOf } from '../providers/codec-kit.js'
import { numberAs, placesOfOwners } from '../recall/numbering.js'
import {
  decodeModelMessages,
  leadingSystems,
  type Stripped,
  stripRiders,
  withExecutedResults,
  withRiders,
} from './ai-sdk-messages.js'
import {
  type AdapterOptions,
  callLearning,
  checkAdapterOptions,
  type Decoded,
  decodeEach,
  fitWithFeedback,
  frameworkTools,
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

/**
 * AI SDK messages as the adapters read them (riders aside, a provider-run result beside its
 * call), with the caller's number of each: the index of the entry it was read from. What
 * the recall tool reads, so its numbers are the ledger's.
 */
export function readModelHistory(entries: readonly unknown[]): {
  messages: Message[]
  places: number[]
} {
  const { bare, at } = stripRiders(entries)
  const { messages, owner } = decodeEach(bare, decodeModelMessages)
  return { messages, places: placesOfOwners(owner, 0, (e) => at[e]) }
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
  // Each fitted call's own state, keyed by the params object the AI SDK hands back to
  // `wrapGenerate`/`wrapStream`: the caller's prompt (a retry re-fits that, not the fitted
  // one) and our count of what was sent (what a rejection or usage is compared with). Calls
  // that run at once on one middleware never read each other's.
  const requests = new WeakMap<object, { params: CallOptionsLike; sent: FitResult }>()
  const fitParams = <P extends CallOptionsLike>(params: P, model: ModelLike): P => {
    const { feedback: _f, ...rest } = options
    const reserve = options.reserve ?? params.maxOutputTokens
    const modelId = options.model ?? knownModel(model.modelId)
    const { bare, riders, at } = stripRiders(params.prompt)
    const { messages, owner } = decodeEach(bare, decodeModelMessages)
    // Numbered as the caller's `messages`: the system prompt the AI SDK puts first (its
    // `system`) is given apart, as the SDK asks it to be.
    numberAs(
      messages,
      placesOfOwners(owner, leadingSystems(params.prompt), (e) => at[e]),
    )
    const result = fitWithFeedback(
      messages,
      {
        ...rest,
        provider: options.provider ?? providerFromId(model.provider, model.modelId),
        ...(modelId !== undefined && { model: modelId }),
        ...(reserve !== undefined && { reserve }),
        feedback,
      },
      frameworkTools(params.tools, 'inputSchema'),
    )
    const fitted = {
      ...params,
      prompt: withRiders(
        originalsOrEncoded(result, bare, owner, withExecutedResults(toPrompt)),
        bare,
        riders,
      ),
    }
    requests.set(fitted, { params: requests.get(params)?.params ?? params, sent: result })
    return fitted
  }
  /** The rejected call fitted again from the caller's own prompt, with what it taught. */
  const refit = <P extends CallOptionsLike>(error: unknown, params: P, model: ModelLike) => {
    const own = requests.get(params)
    if (!feedback.learn(error, own?.sent)) return undefined
    return fitParams((own?.params ?? params) as P, model)
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
    }): Promise<R> =>
      callLearning(
        feedback,
        async (own, again) => {
          if (!again) {
            own.sent = requests.get(o.params)?.sent
            return o.doGenerate()
          }
          // The caller's own prompt fitted again (the feedback has learnt), not the fitted one.
          const params = requests.get(o.params)?.params ?? o.params
          const refitted = fitParams(params, o.model)
          own.sent = requests.get(refitted)?.sent
          return (await o.model.doGenerate(refitted as never)) as R
        },
        (result) => promptTokensOf(fieldsOf(result).usage),
      ),
    wrapStream: async <R>(o: {
      doStream: () => PromiseLike<R>
      params: CallOptionsLike
      model: ModelLike & { doStream(params: never): PromiseLike<unknown> }
    }): Promise<R> => {
      try {
        return await o.doStream()
      } catch (error) {
        // A rejection comes before the first chunk: learn it and open the stream once more.
        const again = refit(error, o.params, o.model)
        if (!again) throw error
        return (await o.model.doStream(again as never)) as R
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
 * the next one, and a rejection handed to `prepareStep.learn(error, context)` (the call's
 * `experimental_context`) teaches the window.
 */
export function fitEachStep(options: FitEachStepOptions = {}) {
  checkAdapterOptions(options, 'fitEachStep', ['system'])
  const { system, ...rest } = options
  // One object for the whole loop, so the fitted prefix is recognised from step to step.
  const systemMessage: Message | undefined =
    system === undefined ? undefined : { role: 'system', content: system }
  // The step messages this loop has decoded: the same objects come back at every step.
  const decoded = new WeakMap<object, Decoded>()
  // The tool messages with riders this loop has stripped: the same objects come back too.
  const stripped = new WeakMap<object, Stripped>()
  // Our count of the step each loop fitted last, keyed by that loop's own `steps` list (the
  // AI SDK hands one loop the same list at every step) and by the call's
  // `experimental_context`: the next step's usage, or the step's rejection, is read against
  // it, so loops that share this function never read each other's counts.
  const fitted = new WeakMap<object, FitResult>()
  const feedback = options.feedback
  const prepare = <M>(step: {
    messages: M[]
    model?: unknown
    steps?: readonly { usage?: unknown }[]
    experimental_context?: unknown
  }): { messages: M[]; system?: string } => {
    const model = (typeof step.model === 'object' ? step.model : undefined) as
      | { provider?: string; modelId?: string }
      | undefined
    const loop = Array.isArray(step.steps) ? step.steps : undefined
    const last = loop?.[loop.length - 1]
    const before = loop && fitted.get(loop)
    if (feedback && last && before) {
      const promptTokens = promptTokensOf(last.usage)
      if (promptTokens !== undefined) feedback.recordUsage({ promptTokens }, { sent: before })
    }
    const { bare, riders, at } = stripRiders(step.messages, stripped)
    const { messages: stepMessages, owner } = decodeEach(bare, decodeModelMessages, decoded)
    const input = systemMessage ? [systemMessage, ...stepMessages] : stepMessages
    if (systemMessage) owner.unshift(-1)
    // Numbered as the step's messages (the caller's): the system prompt is given apart.
    numberAs(
      input,
      placesOfOwners(owner, 0, (e) => at[e]),
    )
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
    if (loop) fitted.set(loop, result)
    const context = step.experimental_context
    if (typeof context === 'object' && context !== null) fitted.set(context, result)
    // The system prompt is mandatory: sent as the step's `system`, never among the messages.
    const messages = withRiders(
      originalsOrEncoded(
        result,
        bare,
        owner,
        withExecutedResults((m) => toAISDK(m) as unknown as M[]),
      ),
      bare,
      riders,
    )
    return system === undefined ? { messages } : { system, messages }
  }
  /**
   * `feedback.learn(error)` for the `generateText` call given `context` as its
   * `experimental_context`: the rejection is read against our count of that call's last step,
   * never another loop's. Without it, only a window the error states is learnt.
   */
  const learn = (error: unknown, context?: unknown) => {
    if (!feedback) return undefined
    const own = typeof context === 'object' && context !== null ? fitted.get(context) : undefined
    return feedback.learn(error, own)
  }
  return Object.assign(prepare, { learn })
}

import type { FitResult } from '../context/fit.js'
import { ProviderFeedback, promptTokensOf } from '../context/limits/learned-limit.js'
import { InvalidOptionError } from '../errors.js'
import { requireArgument } from '../options-check.js'
import { fieldsOf } from '../providers/codec-kit.js'
import { type AgentLike, fitGroups, fitItems, newestUnits } from './agents-items.js'
import type { ItemsMemo } from './responses-items.js'
import { type AdapterOptions, callLearning, checkAdapterOptions } from './shared.js'

/**
 * OpenAI Agents SDK: a `callModelInputFilter` that fits the items of every model call to the
 * budget: `run(agent, input, { context, callModelInputFilter: fitModelInput({ budget: 8000 }) })`.
 * The agent's instructions and tools are counted; the items kept are the caller's own
 * objects, in order, a function call never without its output. Give the run's error to
 * `filter.learn(error, context)` (the context the run was given) and run again: the
 * rejection is read against our count of that run's last request, never another run's, and
 * the window it teaches holds for every later call. Without the context, only a window the
 * error states is learnt (a Responses rejection states none);
 * `filter.feedback.observe(result.rawResponses.at(-1))` calibrates from usage.
 */
export function fitModelInput(options: AdapterOptions = {}) {
  checkAdapterOptions(options, 'fitModelInput')
  const feedback = options.feedback ?? new ProviderFeedback()
  const memo: ItemsMemo = { groups: new Map() }
  // Our count of each run's last request, keyed by the run's context (the Agents SDK's
  // `RunContext` and the caller's object inside it): the filter never sees the reply or the
  // error, so the caller names the run whose rejection it hands back.
  const runs = new WeakMap<object, FitResult>()
  const filter = <
    D extends { input: readonly unknown[]; instructions?: string | undefined },
  >(args: {
    modelData: D
    agent?: AgentLike
    context?: unknown
  }): D => {
    const sink: { sent?: FitResult } = {}
    const input = fitItems(
      args.modelData.input,
      args.modelData.instructions,
      { ...options, feedback },
      args.agent,
      memo,
      sink,
    )
    for (const key of runKeys(args.context)) if (sink.sent) runs.set(key, sink.sent)
    return { ...args.modelData, input }
  }
  /** `feedback.learn(error)` for the run given `context`, read against that run's last request. */
  const learn = (error: unknown, context?: unknown) => {
    const [key] = runKeys(context)
    return feedback.learn(error, key === undefined ? undefined : runs.get(key))
  }
  return Object.assign(filter, { feedback, learn })
}

/** The objects a run's context is known by: the `RunContext`, and the caller's context inside it. */
function runKeys(context: unknown): object[] {
  if (typeof context !== 'object' || context === null) return []
  const inner = fieldsOf(context).context
  return typeof inner === 'object' && inner !== null ? [context, inner] : [context]
}

/** The parts of an Agents SDK `Session` the wrapper uses. */
interface SessionLike<I> {
  getSessionId(): Promise<string>
  getItems(limit?: number): Promise<I[]>
  addItems(items: I[]): Promise<void>
  popItem(): Promise<I | undefined>
  clearSession(): Promise<void>
}

export type FittedSessionOptions = AdapterOptions & {
  /** The agent's instructions, counted inside the budget (the session does not see them). */
  instructions?: string
  /** The agent, for its model and tools. */
  agent?: AgentLike
}

/**
 * OpenAI Agents SDK: a session that stores the whole history in `session` while the model
 * is handed a fitted one: `getItems` returns the fitted items (what the runner prepends to
 * each turn), `allItems` the stored history. Everything else is the wrapped session's.
 */
export function fittedSession<I>(
  session: SessionLike<I>,
  options: FittedSessionOptions = {},
): SessionLike<I> & { allItems(): Promise<I[]>; feedback: ProviderFeedback } {
  checkAdapterOptions(options, 'fittedSession', ['instructions', 'agent'])
  requireArgument(
    typeof fieldsOf(session).getItems === 'function',
    'fittedSession',
    'session',
    'a session with getItems',
    session,
  )
  const { instructions, agent, ...rest } = options
  const feedback = rest.feedback ?? new ProviderFeedback()
  const memo: ItemsMemo = { groups: new Map() }
  return {
    getSessionId: () => session.getSessionId(),
    getItems: async (limit?: number) => {
      const all = await session.getItems()
      const fitted = fitGroups(all, instructions, { ...rest, feedback }, agent, memo)
      if (limit === undefined) return fitted.flat()
      if (typeof limit !== 'number' || Number.isNaN(limit) || limit < 0)
        throw new InvalidOptionError('limit', 'expected a number of items, 0 or more')
      return newestUnits(fitted, limit)
    },
    addItems: (items: I[]) => session.addItems(items),
    popItem: () => session.popItem(),
    clearSession: () => session.clearSession(),
    allItems: () => session.getItems(),
    feedback,
  }
}

/** The parts of an Agents SDK `Model` the wrapper uses. */
interface AgentModelLike<Q, R, E> {
  getResponse(request: Q): Promise<R>
  getStreamedResponse(request: Q): AsyncIterable<E>
}

type RequestLike = {
  input: string | readonly unknown[]
  systemInstructions?: string | undefined
  tools?: readonly unknown[]
  previousResponseId?: string | undefined
  conversationId?: string | undefined
}

/**
 * OpenAI Agents SDK: a `Model` that fits the items of every request before the wrapped model
 * sends them (`new Agent({ model: fitAgentModel(new OpenAIResponsesModel(client, 'gpt-4o'), { model: 'gpt-4o' }) })`).
 * Unlike the input filter, it sees the provider's answer: a rejection as too long teaches
 * the window and the request is sent once more, fitted to it; the usage of each response
 * calibrates later counts. A request that continues a conversation kept by the server
 * (`previousResponseId`, `conversationId`) is passed as it is: its history is not here to fit.
 */
export function fitAgentModel<Q extends RequestLike, R, E>(
  model: AgentModelLike<Q, R, E>,
  options: AdapterOptions = {},
): AgentModelLike<Q, R, E> & { feedback: ProviderFeedback } {
  checkAdapterOptions(options, 'fitAgentModel')
  requireArgument(
    typeof model === 'object' && model !== null,
    'fitAgentModel',
    'model',
    'an Agents SDK model',
    model,
  )
  const feedback = options.feedback ?? new ProviderFeedback()
  const memo: ItemsMemo = { groups: new Map() }
  // Our count of each request travels with it: what a rejection or usage is compared with,
  // whatever other requests this model serves at the same time.
  const fitRequest = (request: Q, sink: { sent?: FitResult }): Q => {
    if (typeof request.input === 'string' || request.previousResponseId || request.conversationId)
      return request
    const input = fitItems(
      request.input,
      request.systemInstructions,
      { ...options, feedback },
      { tools: request.tools ?? [] },
      memo,
      sink,
    )
    return { ...request, input }
  }
  return {
    getResponse: (request: Q): Promise<R> =>
      callLearning(feedback, (own) => model.getResponse(fitRequest(request, own)), promptTokensOf),
    async *getStreamedResponse(request: Q): AsyncIterable<E> {
      let events: AsyncIterator<E>
      let first: IteratorResult<E>
      const own: { sent?: FitResult } = {}
      try {
        events = model.getStreamedResponse(fitRequest(request, own))[Symbol.asyncIterator]()
        first = await events.next()
      } catch (error) {
        // A rejection comes before the first event: learn it and open the stream once more.
        if (!feedback.learn(error, own.sent)) throw error
        events = model.getStreamedResponse(fitRequest(request, {}))[Symbol.asyncIterator]()
        first = await events.next()
      }
      for (let r = first; !r.done; r = await events.next()) yield r.value
    },
    feedback,
  }
}

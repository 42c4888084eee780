import type { FitResult } from '../context/fit.js'
import { ProviderFeedback, promptTokensOf } from '../context/learned-limit.js'
import { readAISDK, toAISDK } from '../formats/ai-sdk.js'
import type { Message } from '../messages/message.js'
import { numberAs, placesOfOwners } from '../recall/numbering.js'
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

type Part = { type?: unknown; toolCallId?: unknown; providerExecuted?: unknown }

/** A provider-executed result read out of its assistant message, by the tool message that counts it. */
const executedResult = new WeakMap<Message, Part>()

/**
 * AI SDK messages one at a time, as canonical messages. The result of a provider-executed
 * call (`providerExecuted: true`, web search and the like) sits in the assistant message
 * beside its call: it is read as the tool message that answers the call, right after the
 * assistant message, so the two are counted and kept or dropped together.
 */
export function decodeModelMessages(entries: readonly unknown[]): Message[] {
  return entries.flatMap((entry) => {
    const m = entry as { role?: unknown; content?: unknown } | null
    if (m?.role !== 'assistant' || !Array.isArray(m.content)) return readAISDK([entry])
    const parts = m.content as (Part | null)[]
    // Every result in the message: one whose call is not there is an orphan the fit drops.
    const results = parts.filter((p): p is Part => p?.type === 'tool-result')
    if (results.length === 0) return readAISDK([entry])
    const own = readAISDK([{ ...m, content: parts.filter((p) => !results.includes(p as Part)) }])
    const answers = results.map((part) => {
      const [tool] = readAISDK([{ role: 'tool', content: [part] }]) as [Message]
      executedResult.set(tool, part)
      return tool
    })
    return [own[0] as Message, ...answers, ...own.slice(1)]
  })
}

/**
 * `encode` for messages that may hold provider-executed results: each goes back into the
 * assistant message before it, right after its call, as the part it was.
 */
export function withExecutedResults<T>(encode: (m: Message[]) => T[]): (m: Message[]) => T[] {
  return (messages) => {
    const out: T[] = []
    let run: Message[] = []
    for (const m of [...messages, undefined]) {
      const part = m && executedResult.get(m)
      if (m && !part) {
        run.push(m)
        continue
      }
      if (run.length) out.push(...encode(run))
      run = []
      if (!part) continue
      let host = out[out.length - 1] as { role?: unknown; content?: unknown } | undefined
      if (host?.role !== 'assistant') {
        host = { role: 'assistant', content: [] }
        out.push(host as T)
      }
      const content = Array.isArray(host.content)
        ? [...(host.content as Part[])]
        : typeof host.content === 'string' && host.content
          ? [{ type: 'text', text: host.content } as Part]
          : []
      const call = content.findIndex(
        (p) => p?.type === 'tool-call' && p.toolCallId === part.toolCallId,
      )
      content.splice(call < 0 ? content.length : call + 1, 0, part)
      host.content = content
    }
    return out
  }
}

type Entry = { role?: unknown; content?: unknown }

/** Parts of a tool message the fit does not count (approval responses), and where they go back. */
interface Rider {
  /** The entry of the stripped prompt they belong with. */
  anchor: number
  /** True when they were the whole tool message: they go out as it, right after the anchor. */
  alone: boolean
  entry: Entry
  parts: Part[]
  /** Empty results counted for provider-run calls the parts answer, never sent. */
  stand: Part[]
}

/** A message's provider-run calls with no result beside them. */
function pendingCalls(entry: unknown): { toolCallId?: unknown; toolName?: unknown }[] {
  const content = (entry as Entry | null)?.content
  if ((entry as Entry | null)?.role !== 'assistant' || !Array.isArray(content)) return []
  const parts = content as (Part & { toolName?: unknown })[]
  const answered = new Set(parts.filter((p) => p?.type === 'tool-result').map((p) => p.toolCallId))
  return parts.filter(
    (p) => p?.type === 'tool-call' && p.providerExecuted === true && !answered.has(p.toolCallId),
  )
}

/**
 * What one tool message with riders was stripped to, by the message object, with the entry
 * before it then: a loop's next step hands the same objects, and gets the same stripped
 * entry back (so its decoding and counts are reused, not made anew at every step).
 */
type Stripped = {
  before: unknown
  /** The message's JSON text then: one edited in place since is stripped anew. */
  text: string
  bare: unknown
  rider: Omit<Rider, 'anchor'> | undefined
}

/**
 * The prompt with every tool message's parts other than results taken out (an MCP
 * `tool-approval-response` and any part a later SDK adds): they answer a call, so they ride
 * with the message they follow and go out, unchanged, whenever any of it does. With `memo`
 * (one per `fitEachStep`), a message stripped at an earlier step gives the same object.
 */
function stripRiders<T>(
  prompt: readonly T[],
  memo?: WeakMap<object, Stripped>,
): { bare: T[]; riders: Rider[]; at: number[] } {
  const bare: T[] = []
  const riders: Rider[] = []
  // The prompt index of each bare entry: the caller's number of the messages read from it.
  const at: number[] = []
  prompt.forEach((raw, k) => {
    const before = bare.length
    strip(raw)
    if (bare.length > before) at.push(k)
  })
  return { bare, riders, at }

  function strip(raw: T): void {
    const m = raw as Entry | null
    const parts = m?.role === 'tool' && Array.isArray(m.content) ? (m.content as Part[]) : []
    if (!m || !parts.some((p) => p?.type !== 'tool-result')) {
      bare.push(raw)
      return
    }
    const text = memo && jsonOf(m)
    const known = text === undefined ? undefined : memo?.get(m)
    if (known && known.before === bare[bare.length - 1] && known.text === text) {
      if (known.rider)
        riders.push({ ...known.rider, anchor: bare.length - (known.rider.alone ? 1 : 0) })
      if (known.bare !== undefined) bare.push(known.bare as T)
      return
    }
    const before = bare[bare.length - 1]
    const count = { bare: bare.length, riders: riders.length }
    stripOne(m, bare, riders)
    const rider = riders.length > count.riders ? riders[riders.length - 1] : undefined
    if (text !== undefined)
      memo?.set(m, {
        before,
        text,
        bare: bare.length > count.bare ? bare[bare.length - 1] : undefined,
        rider: rider && {
          alone: rider.alone,
          entry: rider.entry,
          parts: rider.parts,
          stand: rider.stand,
        },
      })
  }
}

/** A value's JSON text, or undefined when it has none (a cycle, a BigInt). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}

/** One tool message with riders: its bare entry (if it keeps one) and its rider, added to the lists. */
function stripOne<T>(m: Entry, bare: T[], riders: Rider[]): void {
  const parts = m.content as Part[]
  const extra = parts.filter((p) => p?.type !== 'tool-result')
  const results = parts.filter((p) => p?.type === 'tool-result')
  // An approval answers a provider-run call whose result the provider makes later (MCP):
  // counted as an empty result, so the call is not an unanswered one the fit drops.
  const pending = results.length > 0 ? [] : pendingCalls(bare[bare.length - 1])
  const stand = pending.map((c) => ({
    type: 'tool-result',
    toolCallId: c.toolCallId,
    toolName: c.toolName,
    output: { type: 'text', value: '' },
  }))
  if (results.length > 0 || stand.length > 0) {
    riders.push({ anchor: bare.length, alone: false, entry: m, parts: extra, stand })
    bare.push({ ...m, content: [...stand, ...results] } as T)
  } else if (bare.length > 0)
    riders.push({ anchor: bare.length - 1, alone: true, entry: m, parts, stand })
}

/** The call ids an entry holds (its calls or results). */
function callIds(entry: unknown): Set<unknown> {
  const content = (entry as Entry | null)?.content
  const ids = new Set<unknown>()
  if (Array.isArray(content))
    for (const p of content as Part[]) if (p?.toolCallId !== undefined) ids.add(p.toolCallId)
  return ids
}

/**
 * The fitted prompt with the riders put back: with their anchor when it went out whole (as
 * the caller's own objects), or into the message that holds the anchor's calls when it was
 * rewritten; left out only when the fit dropped the whole of it.
 */
function withRiders<T>(out: T[], bare: readonly T[], riders: readonly Rider[]): T[] {
  if (riders.length === 0) return out
  const result = [...out]
  for (const r of riders) {
    const anchor = bare[r.anchor]
    let at = result.indexOf(anchor as T)
    if (at >= 0 && !r.alone) {
      result[at] = r.entry as T
      continue
    }
    if (at < 0) {
      // Rewritten: the message holding the anchor's calls (its results, for a tool message's).
      const ids = callIds(anchor)
      const role = (anchor as Entry).role
      at =
        ids.size === 0
          ? -1
          : result.findIndex(
              (m) => (m as Entry).role === role && [...callIds(m)].some((id) => ids.has(id)),
            )
    }
    if (at < 0) continue
    if (r.alone) {
      // After the anchor and any riders already placed after it.
      let k = at + 1
      while (k < result.length && riders.some((o) => o.entry === result[k])) k++
      result.splice(k, 0, r.entry as T)
      continue
    }
    const host = result[at] as Entry
    const standIds = new Set(r.stand.map((p) => p.toolCallId))
    const own = (host.content as Part[]).filter(
      (p) => !(p?.type === 'tool-result' && standIds.has(p.toolCallId)),
    )
    result[at] = { ...host, content: [...r.parts, ...own] } as T
  }
  return result
}

/** How many system messages open a prompt: the AI SDK's `system`, given apart from the messages. */
function leadingSystems(prompt: readonly unknown[]): number {
  let n = 0
  while (n < prompt.length && (prompt[n] as Entry | null)?.role === 'system') n++
  return n
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
        (result) => promptTokensOf((result as { usage?: unknown }).usage),
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

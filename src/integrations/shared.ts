import { type FitOptions, type FitResult, fitAny, resolveSetup } from '../context/fit.js'
import { ProviderFeedback } from '../context/limits/learned-limit.js'
import { checkFitKeys } from '../context/options/options.js'
import type { Message } from '../messages/message.js'
import { requireArgument, requireOptions } from '../options-check.js'
import { isJson } from '../providers/codec-kit.js'
import type { ToolInput } from '../providers/tool-shapes.js'
import type { Provider } from '../providers/validate.js'
import { findModel } from '../tokens/models.js'
import { countedTool, jsonSchemaOf } from './tool-schemas.js'

/** Options every framework adapter takes: the fit's own, and what the provider taught. */
export type AdapterOptions = FitOptions & {
  /**
   * Kept between calls: the window a rejection taught and the usage calibration. The adapters
   * that see the model's reply or error feed it themselves; share one across calls.
   */
  feedback?: ProviderFeedback
}

/**
 * The check every adapter makes when it is made, not at its first call: an options object
 * whose keys are `fit`'s (a misspelt one is refused, naming the closest), `feedback`, and the
 * adapter's own `extra` ones, whose values are strings; `feedback` a `ProviderFeedback`.
 */
export function checkAdapterOptions(
  options: unknown,
  where: string,
  extra: readonly string[] = [],
): void {
  requireOptions(options, where)
  if (options === undefined) return
  checkFitKeys(options, ['feedback', ...extra])
  const given = options as Record<string, unknown>
  requireArgument(
    given.feedback === undefined || given.feedback instanceof ProviderFeedback,
    where,
    'feedback',
    'a ProviderFeedback',
    given.feedback,
  )
  for (const key of extra)
    requireArgument(
      given[key] === undefined || typeof given[key] === 'string' || key === 'agent',
      where,
      key,
      'a string',
      given[key],
    )
}

/**
 * A tool as a framework sends it, for the adapters to count: a function tool (its schema JSON
 * Schema or zod, and the JSON it goes out as when known), or a provider-run tool as its JSON.
 */
export type FrameworkTool =
  | { name: string; description?: string | undefined; parameters?: unknown; wire?: unknown }
  | { hosted: Record<string, unknown> }

/**
 * Fits with what `feedback` learnt. The result is the request's own count: the adapter keeps
 * it with the request (never in `feedback`, which many requests share) and hands it to
 * `feedback.learn` or `recordUsage` for that request alone. `tools` are the request's own, counted when `options.tools` does not say otherwise: each
 * function tool as its JSON Schema and never below the tokens of the JSON it is sent as.
 */
export function fitWithFeedback(
  messages: readonly Message[],
  options: AdapterOptions,
  tools?: readonly FrameworkTool[],
): FitResult {
  const { feedback, ...given } = options
  const fitOptions =
    tools && given.tools === undefined ? { ...given, tools: countedTools(tools, given) } : given
  // A session with nothing in it yet is the framework's ordinary state: nothing is sent.
  if (!feedback) return fitAny(messages, fitOptions)
  const setup = resolveSetup(fitOptions)
  const result = fitAny(messages, feedback.apply(fitOptions, setup))
  feedback.fitted(result)
  return result
}

/** Where an adapter puts our count of the request it is about to send. */
export type Counted = { sent?: FitResult }

/**
 * One model call that learns from the provider: `send(own, again)` fits the request, puts
 * its counts in `own` and sends it (`again` on the one retry). A "too long" rejection is
 * learnt against the rejected request's own counts and the call made once more, fitted to
 * what it taught; the usage the reply reports (`promptTokens`) is read against the counts
 * of the request that got it. Counts travel with each call, so calls that share `feedback`
 * at the same time never read each other's.
 */
export async function callLearning<R>(
  feedback: ProviderFeedback,
  send: (own: Counted, again: boolean) => PromiseLike<R>,
  promptTokens: (reply: R) => number | undefined,
): Promise<R> {
  let own: Counted = {}
  let reply: R
  try {
    reply = await send(own, false)
  } catch (error) {
    if (!feedback.learn(error, own.sent)) throw error
    own = {}
    reply = await send(own, true)
  }
  const billed = promptTokens(reply)
  if (billed !== undefined && own.sent)
    feedback.recordUsage({ promptTokens: billed }, { sent: own.sent })
  return reply
}

function countedTools(tools: readonly FrameworkTool[], options: FitOptions): ToolInput[] {
  if (tools.length === 0) return []
  const { counter } = resolveSetup({ ...options, tools: [] })
  return tools.map((t) =>
    'hosted' in t
      ? (t.hosted as ToolInput)
      : countedTool(
          t,
          t.wire ?? {
            type: 'function',
            function: {
              name: t.name,
              description: t.description,
              parameters: jsonSchemaOf(t.parameters),
            },
          },
          counter,
        ),
  )
}

/**
 * Whose rules a model follows, from a framework's provider or model id (`anthropic.messages`,
 * `ChatAnthropic`, `claude-sonnet-4-5`, `google.generative-ai`, `gemini-2.5-pro`): Anthropic's
 * for Anthropic and Claude, Gemini's for Google and Gemini, else OpenAI's chat rules.
 */
export function providerFromId(...ids: (string | undefined)[]): Provider {
  if (ids.some((id) => id && /anthropic|claude/i.test(id))) return 'anthropic'
  if (ids.some((id) => id && /google|gemini|vertex/i.test(id))) return 'gemini'
  return 'openai'
}

/** The model id when the model table knows it (its window and counter are then used). */
export function knownModel(id: string | undefined): string | undefined {
  return id && findModel(id) ? id : undefined
}

/**
 * A fit's output in the caller's own objects: an input entry whose messages all went through
 * unchanged comes back as the very object it was (its binary data, URLs and provider fields
 * untouched); what the fit changed or wrote is encoded with `encode`, a run at a time.
 * `owner[i]` is the entry fit input `i` came from (-1 for inputs the adapter added, which
 * are left out).
 */
export function originalsOrEncoded<T>(
  result: FitResult,
  entries: readonly T[],
  owner: readonly number[],
  encode: (messages: Message[]) => T[],
): T[] {
  const whole = new Array<boolean>(entries.length).fill(true)
  const at = new Map<number, number>()
  result.fates.forEach((f, i) => {
    const e = owner[i]
    if (f.position !== undefined) at.set(f.position, i)
    if (e !== undefined && e >= 0 && f.fate !== 'kept') whole[e] = false
  })
  const out: T[] = []
  let pending: Message[] = []
  const flush = () => {
    if (pending.length) out.push(...encode(pending))
    pending = []
  }
  let last = -1
  result.messages.forEach((m, p) => {
    const i = at.get(p)
    const e = i === undefined ? undefined : owner[i]
    if (e === -1) return
    if (e !== undefined && whole[e]) {
      if (e === last) return
      flush()
      out.push(entries[e] as T)
      last = e
      return
    }
    pending.push(m)
  })
  flush()
  return out
}

/**
 * The tools of an SDK's tool list as the adapters count them: function tools (`type:
 * 'function'`, their schema under `schemaField`: `parameters` for OpenAI Agents, `inputSchema`
 * for the AI SDK; JSON Schema or zod) and provider-run ones (the AI SDK's `provider` tools,
 * the Agents SDK's `hosted_tool`s) as the JSON they are sent as.
 */
export function frameworkTools(
  tools: readonly unknown[] | undefined,
  schemaField: 'parameters' | 'inputSchema' = 'parameters',
): FrameworkTool[] {
  const out: FrameworkTool[] = []
  for (const t of Array.isArray(tools) ? tools : []) {
    if (!isJson(t)) continue
    const tool = t
    if (tool.type === 'function' && typeof tool.name === 'string') {
      const parameters = jsonSchemaOf(tool[schemaField])
      const description = typeof tool.description === 'string' ? tool.description : undefined
      out.push({
        name: tool.name,
        ...(description !== undefined && { description }),
        parameters,
        // What the SDK sends of it (not its functions or the objects it holds).
        wire: {
          type: 'function',
          name: tool.name,
          description,
          [schemaField]: parameters,
          ...(typeof tool.strict === 'boolean' && { strict: tool.strict }),
        },
      })
      continue
    }
    const hosted =
      tool.type === 'hosted_tool' && isJson(tool.providerData)
        ? tool.providerData
        : tool.type === 'provider' || tool.type === 'provider-defined'
          ? { type: tool.id ?? tool.name, name: tool.name, args: tool.args }
          : undefined
    if (hosted)
      out.push({ hosted: { ...hosted, name: String(tool.name ?? hosted.type ?? 'tool') } })
  }
  return out
}

/** An entry's decoding, with the JSON text it was read from. */
export interface Decoded {
  text: string | undefined
  messages: readonly Message[]
}

function jsonText(entry: unknown): string | undefined {
  try {
    return JSON.stringify(entry)
  } catch {
    return undefined
  }
}

/**
 * Decodes entries one at a time, so each canonical message knows the entry it came from.
 * With `memo` (one per adapter instance, such as one `fitEachStep`), an entry object whose
 * JSON text is what it was when last decoded gets the same messages again: a step that hands
 * the same objects again (an agent loop's growing list) costs its JSON text, and `fit`'s
 * index is reused. An entry edited in place is decoded anew.
 */
export function decodeEach<T>(
  entries: readonly T[],
  decode: (entries: T[]) => Message[],
  memo?: WeakMap<object, Decoded>,
): { messages: Message[]; owner: number[] } {
  const messages: Message[] = []
  const owner: number[] = []
  entries.forEach((entry, e) => {
    const key = memo && typeof entry === 'object' && entry !== null ? entry : undefined
    const text = key && jsonText(entry)
    let out = key && text !== undefined ? memo?.get(key) : undefined
    if (!out || out.text !== text) {
      out = { text, messages: decode([entry]) }
      if (key && text !== undefined) memo?.set(key, out)
    }
    for (const m of out.messages) {
      messages.push(m)
      owner.push(e)
    }
  })
  return { messages, owner }
}

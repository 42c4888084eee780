import { type FitOptions, type FitResult, fit, resolveSetup } from '../context/fit.js'
import { ProviderFeedback } from '../context/learned-limit.js'
import { checkFitKeys } from '../context/options.js'
import type { Message, ToolSchema } from '../messages/message.js'
import type { Provider } from '../messages/validate.js'
import { requireArgument, requireOptions } from '../options-check.js'
import { findModel } from '../tokens/models.js'

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

/** Fits with what `feedback` learnt, and notes what was sent so usage can be compared with it. */
export function fitWithFeedback(messages: readonly Message[], options: AdapterOptions): FitResult {
  const { feedback, ...fitOptions } = options
  if (!feedback) return fit(messages, fitOptions)
  const setup = resolveSetup(fitOptions)
  const result = fit(messages, feedback.apply(fitOptions, setup))
  feedback.sent(result)
  return result
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
    const e = owner[i] as number
    if (f.position !== undefined) at.set(f.position, i)
    if (e >= 0 && f.fate !== 'kept') whole[e] = false
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
    const e = i === undefined ? undefined : (owner[i] as number)
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
 * The function tools of an SDK's tool list as the schemas the budget counts; others (hosted
 * tools, provider-defined tools) are left out. `schemaField` names where the SDK keeps the
 * JSON schema: `parameters` (OpenAI Agents), `inputSchema` (AI SDK).
 */
export function functionTools(
  tools: readonly unknown[] | undefined,
  schemaField: 'parameters' | 'inputSchema' = 'parameters',
): ToolSchema[] {
  const out: ToolSchema[] = []
  for (const t of tools ?? []) {
    const tool = t as Record<string, unknown> | undefined
    if (tool?.type !== 'function' || typeof tool.name !== 'string') continue
    const schema = tool[schemaField]
    out.push({
      name: tool.name,
      ...(typeof tool.description === 'string' && { description: tool.description }),
      ...(schema && typeof schema === 'object'
        ? { parameters: schema as Record<string, unknown> }
        : {}),
    })
  }
  return out
}

/**
 * Decodes entries one at a time, so each canonical message knows the entry it came from.
 * With `memo` (one per adapter instance, such as one `fitEachStep`), an entry object is
 * decoded once: a step that hands the same objects again (an agent loop's growing list)
 * gets the same messages, so `fit`'s index is reused and only the new entries cost
 * anything. As with `fit`, an entry is then taken as immutable once seen: to change one,
 * replace the object.
 */
export function decodeEach<T>(
  entries: readonly T[],
  decode: (entries: T[]) => Message[],
  memo?: WeakMap<object, readonly Message[]>,
): { messages: Message[]; owner: number[] } {
  const messages: Message[] = []
  const owner: number[] = []
  entries.forEach((entry, e) => {
    const key = memo && typeof entry === 'object' && entry !== null ? entry : undefined
    let out = key && memo?.get(key)
    if (!out) {
      out = decode([entry])
      if (key) memo?.set(key, out)
    }
    for (const m of out) {
      messages.push(m)
      owner.push(e)
    }
  })
  return { messages, owner }
}

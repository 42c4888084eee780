import type { FitResult } from '../context/fit.js'
import { ProviderFeedback, promptTokensOf } from '../context/limits/learned-limit.js'
import { InvalidInputError } from '../errors.js'
import { readLangChain, toLangChain } from '../formats/langchain.js'
import type { Message } from '../messages/message.js'
import { fieldsOf, isJson } from '../providers/codec-kit.js'
import { numberAs } from '../recall/numbering.js'
import {
  type AdapterOptions,
  callLearning,
  checkAdapterOptions,
  type FrameworkTool,
  fitWithFeedback,
  knownModel,
  providerFromId,
} from './shared.js'
import { jsonSchemaOf } from './tool-schemas.js'

/** The parts of a LangChain `BaseMessage` instance the adapter reads. */
interface BaseMessageLike {
  toDict(): object
}
const dictOf = (m: BaseMessageLike) => m.toDict()

/** The parts of a `createAgent` model request the adapter reads (`ModelRequest`). */
interface ModelRequestLike {
  messages: BaseMessageLike[]
  systemPrompt?: string
  systemMessage?: BaseMessageLike
  model?: unknown
  tools?: readonly unknown[]
}

/**
 * The tools a LangChain model is bound with, as the budget counts them: a zod schema (3 or 4)
 * as the JSON Schema LangChain converts it to, a JSON Schema as given, sent in OpenAI's
 * function shape.
 */
function toolsOf(tools: readonly unknown[] | undefined): FrameworkTool[] {
  const out: FrameworkTool[] = []
  for (const t of Array.isArray(tools) ? tools : []) {
    const tool = t as { name?: unknown; description?: unknown; schema?: unknown } | undefined
    if (typeof tool?.name !== 'string') {
      // A provider tool handed as its own JSON (`{ type: 'web_search' }`).
      const hosted = fieldsOf(tool)
      if (isJson(tool) && typeof hosted.type === 'string') out.push({ hosted })
      continue
    }
    out.push({
      name: tool.name,
      ...(typeof tool.description === 'string' && { description: tool.description }),
      parameters: jsonSchemaOf(tool.schema),
    })
  }
  return out
}

const SYSTEM_SLOT: BaseMessageLike = { toDict: () => ({}) }

type MessageClass = new (fields: Record<string, unknown>) => BaseMessageLike

/**
 * LangChain instances for a fit's output: the caller's own instance for each message kept as
 * it was, a new instance of the same class for one the fit changed, and for a message the
 * strategy wrote (a placeholder), an instance of a class seen in the input for its role.
 */
function instancesFor(
  result: FitResult,
  inputs: readonly BaseMessageLike[],
  offset: number,
  system: BaseMessageLike | undefined,
): BaseMessageLike[] {
  const out: (BaseMessageLike | undefined)[] = new Array(result.messages.length)
  const classes = new Map<unknown, MessageClass>()
  if (system) classes.set('system', system.constructor as MessageClass)
  for (const m of inputs) classes.set(fieldsOf(dictOf(m)).type, m.constructor as MessageClass)
  result.fates.forEach((fate, i) => {
    if (fate.position === undefined) return
    // The system prompt (input 0 when given) stays the request's own: never rebuilt.
    if (i < offset) out[fate.position] = SYSTEM_SLOT
    else if (fate.fate === 'kept') out[fate.position] = inputs[i - offset]
  })
  const wire = toLangChain(result.messages)
  // Every place not filled by a kept instance: a new one of the class seen for its type.
  return Array.from(out, (kept, p) => {
    if (kept) return kept
    const { type, data } = fieldsOf(wire[p])
    const Class = classes.get(type)
    if (!Class)
      throw new InvalidInputError(
        `the fit wrote a ${String(type)} message and no ${String(type)} message class was seen to build it`,
        { index: p, field: 'type' },
      )
    return new Class(fieldsOf(data))
  })
}

/** The usage LangChain puts on an `AIMessage` (`usage_metadata.input_tokens`, cache included). */
function usageOf(message: unknown): number | undefined {
  const usage = fieldsOf(message).usage_metadata
  if (isJson(usage)) return promptTokensOf({ prompt_tokens: usage.input_tokens })
  return undefined
}

/**
 * A LangChain v1 agent middleware (`createAgent({ model, tools, middleware: [fitAgentMessages({ budget: 8000 })] })`)
 * whose `wrapModelCall` fits the messages of every model call: LangChain message instances
 * in, the same instances out (a message the fit had to change is a new instance of its
 * class). The system prompt and the tools are counted; the rules follow the model
 * (Anthropic's for `ChatAnthropic` or a Claude model, else OpenAI's). A call rejected as too
 * long teaches the window (kept in `feedback`) and is sent once more, fitted to it; the usage
 * on each reply calibrates later counts. The agent's state keeps the whole history.
 */
export function fitAgentMessages(options: AdapterOptions = {}) {
  checkAdapterOptions(options, 'fitAgentMessages')
  const feedback = options.feedback ?? new ProviderFeedback()
  const { feedback: _f, ...rest } = options
  // Our count of each request travels with it (`sink`): what a rejection or usage is
  // compared with, whatever other calls this middleware serves at the same time.
  const fitRequest = <R extends ModelRequestLike>(request: R, sink: { sent?: FitResult }): R => {
    const model = request.model as
      | { _llmType?: () => string; model?: unknown; modelName?: unknown }
      | undefined
    const modelName =
      typeof model?.model === 'string'
        ? model.model
        : typeof model?.modelName === 'string'
          ? model.modelName
          : undefined
    const llmType = typeof model?._llmType === 'function' ? model._llmType() : undefined
    const system = request.systemPrompt ?? ''
    const input: Message[] = readLangChain(request.messages.map(dictOf))
    const offset = system ? 1 : 0
    if (system) {
      input.unshift({ role: 'system', content: system })
      // Numbered as the agent's messages: the system prompt is given apart.
      const places = input.map((_, i) => i - 1)
      numberAs(input, places)
    }
    const modelId = rest.model ?? knownModel(modelName)
    const result = fitWithFeedback(
      input,
      {
        ...rest,
        provider: rest.provider ?? providerFromId(llmType, modelName),
        ...(modelId !== undefined && { model: modelId }),
        feedback,
      },
      toolsOf(request.tools),
    )
    sink.sent = result
    const messages = instancesFor(result, request.messages, offset, request.systemMessage)
    // The system prompt travels as the request's own; the fit's copy of it is not sent twice.
    return { ...request, messages: messages.filter((m) => m !== SYSTEM_SLOT) }
  }
  return {
    [Symbol.for('AgentMiddleware')]: true,
    name: 'ContextWindowMiddleware',
    wrapModelCall: async <R extends ModelRequestLike, A>(
      request: R,
      handler: (request: R) => Promise<A> | A,
    ): Promise<A> =>
      callLearning(feedback, async (own) => handler(fitRequest(request, own)), usageOf),
    /** What the provider taught: share it with other agents, or save it with `toJSON`. */
    feedback,
  }
}

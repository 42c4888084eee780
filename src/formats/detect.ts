import { InvalidInputError, InvalidOptionError } from '../errors.js'
import { requireMessages } from '../messages/check.js'
import type { Message } from '../messages/message.js'
import { describeValue, requireOptions } from '../options-check.js'
import { fieldsOf, isJson, isList, type Json, type Loss } from '../providers/codec-kit.js'
import { providerApiOfFormat } from '../providers/index.js'
import type { AllListed, Provider, WireFormat } from '../providers/provider.js'
import { nameOfFormat } from '../providers/table.js'
import type { EncodeOptions } from '../providers/types.js'
import { fromAISDK, toAISDK } from './ai-sdk.js'
import { fromAutoGen, toAutoGen } from './autogen.js'
import { fromLangChain, toLangChain } from './langchain.js'

export const FORMATS = [
  'openai-chat',
  'openai-responses',
  'anthropic',
  'gemini',
  'ai-sdk',
  'autogen',
  'langchain',
] as const
export type Format = (typeof FORMATS)[number]
/** Each provider API's wire format is a format. */
export type WireFormatsListed = AllListed<WireFormat, Format>

/**
 * The provider a wire format belongs to, whose rules its output must pass: each provider's
 * own format brings it. The frameworks' formats (AI SDK, AutoGen, LangChain) sit on whichever
 * provider the caller names, so they bring none.
 */
export function providerOfFormat(format: Format | 'auto' | undefined): Provider | undefined {
  return nameOfFormat(format)
}

/** Which format a JSON conversation is in, from its shape; a clear error when none fits. */
export function detectFormat(json: unknown): Format {
  const obj = isJson(json) && !Array.isArray(json) ? json : undefined
  if (obj && 'system' in obj && Array.isArray(obj.messages)) return 'anthropic'
  const own = detectOwnShapes(json, obj)
  if (own) return own
  const list = Array.isArray(json) ? json : obj && isList(obj.messages) ? obj.messages : undefined
  if (!list) {
    throw new InvalidInputError(
      'not a conversation: expected a list of messages or an object with "messages"',
      { field: 'messages' },
    )
  }
  const items = list.filter((m): m is Json => !!m && typeof m === 'object')
  if (items.length === 0) return 'openai-chat'
  if (items.some((m) => m.lc === 1 || (typeof m.type === 'string' && 'data' in m)))
    return 'langchain'
  // A BaseMessage instance (not its JSON): serializable, with its namespace on the class.
  if (items.some((m) => Array.isArray(m.lc_namespace) && typeof m.toJSON === 'function'))
    return 'langchain'
  if (items.some((m) => typeof m.type === 'string' && /Message$/.test(m.type))) return 'autogen'
  const blocks = items.flatMap((m) => (isList(m.content) ? m.content : []))
  const types = new Set(blocks.map((b) => fieldsOf(b).type))
  if (
    // An AI SDK tool message holds tool-result parts; an OpenAI one may hold text parts beside its tool_call_id.
    items.some((m) => m.role === 'tool' && Array.isArray(m.content) && !('tool_call_id' in m)) ||
    types.has('tool-call') ||
    types.has('tool-result') ||
    types.has('reasoning')
  )
    return 'ai-sdk'
  if (types.has('tool_use') || types.has('tool_result') || types.has('thinking')) return 'anthropic'
  if (items.some((m) => typeof m.role === 'string')) return 'openai-chat'
  throw new InvalidInputError(
    'the messages match no known format (OpenAI chat or Responses, Anthropic, Gemini, AI SDK, AutoGen, LangChain)',
    { index: 0 },
  )
}

const RESPONSES_ITEM =
  /^(message|reasoning|compaction|function_call|function_call_output|custom_tool_call|custom_tool_call_output|item_reference|[a-z_]+_call|[a-z_]+_call_output)$/
const RESPONSES_PART = new Set([
  'input_text',
  'output_text',
  'input_image',
  'input_file',
  'refusal',
])

/** The Responses API's and Gemini's shapes: request objects and bare lists. */
function detectOwnShapes(json: unknown, obj: Json | undefined): Format | undefined {
  if (obj && Array.isArray(obj.contents)) return 'gemini'
  if (obj && 'input' in obj && (typeof obj.input === 'string' || Array.isArray(obj.input)))
    return 'openai-responses'
  if (!Array.isArray(json)) return undefined
  const items = json.filter((m): m is Json => !!m && typeof m === 'object' && !Array.isArray(m))
  if (items.length === 0) return undefined
  if (
    items.some((m) => Array.isArray(m.parts) && !('content' in m)) &&
    items.every((m) => m.role === undefined || m.role === 'user' || m.role === 'model')
  )
    return 'gemini'
  if (
    items.some(
      (m) =>
        (typeof m.type === 'string' && m.type !== 'message' && RESPONSES_ITEM.test(m.type)) ||
        (isList(m.content) &&
          m.content.some((p) => {
            const type = fieldsOf(p).type
            return typeof type === 'string' && RESPONSES_PART.has(type)
          })),
    )
  )
    return 'openai-responses'
  return undefined
}

/** Decodes a conversation in a named format, or the detected one. */
export function decode(
  json: unknown,
  format: Format | 'auto' = 'auto',
): { format: Format; messages: Message[] } {
  const f = format === 'auto' ? detectFormat(json) : format
  const api = providerApiOfFormat(f)
  if (api) return { format: f, messages: api.decode(json) }
  switch (f) {
    case 'ai-sdk':
      return { format: f, messages: fromAISDK(json) }
    case 'autogen':
      return { format: f, messages: fromAutoGen(json) }
    case 'langchain':
      return { format: f, messages: fromLangChain(json) }
    default:
      throw new InvalidInputError(
        `unknown format ${describeValue(format)} (known: ${FORMATS.join(', ')})`,
        { field: 'format' },
      )
  }
}

/** Encodes messages in a format, with what it could not carry. */
export function encode(
  messages: readonly Message[],
  format: Format,
  options: EncodeOptions = {},
): { output: unknown; lost: Loss[] } {
  requireMessages(messages)
  requireOptions(options, 'encode')
  const api = providerApiOfFormat(format)
  if (api) return api.encode(messages, options)
  switch (format) {
    case 'ai-sdk':
      return { output: toAISDK(messages), lost: [] }
    case 'autogen': {
      const lost: Loss[] = []
      messages.forEach((m, index) => {
        if (
          m.role === 'assistant' &&
          m.toolCalls?.length &&
          typeof m.content === 'string' &&
          m.content
        ) {
          lost.push({
            index,
            what: 'text beside tool calls (an AutoGen AssistantMessage holds one or the other)',
          })
        }
      })
      return { output: { messages: toAutoGen(messages) }, lost }
    }
    case 'langchain':
      return { output: toLangChain(messages), lost: [] }
    default:
      throw new InvalidOptionError(
        'format',
        `unknown format ${describeValue(format)} (known: ${FORMATS.join(', ')})`,
      )
  }
}

/** Converts a conversation between formats: `convert(json, { to: 'anthropic' })`. */
export function convert(
  json: unknown,
  options: { from?: Format | 'auto'; to: Format },
): { output: unknown; lost: Loss[] } {
  requireOptions(options ?? null, 'convert', ['from', 'to'])
  const { from = 'auto', to } = options
  return encode(decode(json, from).messages, to)
}

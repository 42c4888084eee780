/** AutoGen's own component configs read as contexts, and the snake_case keys AutoGen writes. */
import * as z from 'zod/mini'
import { ChatContext } from '../context/chat/chat-context.js'
import { createStrategy } from '../context/options/create-strategy.js'
import { InvalidStateError } from '../errors.js'
import { readAutoGen } from '../formats/autogen.js'
import { type Message, toolSchemaSchema } from '../messages/message.js'
import { fieldsOf } from '../providers/codec-kit.js'

export const AUTOGEN = 'autogen_core.model_context.'

export const AUTOGEN_SHORT = new Set([
  'UnboundedChatCompletionContext',
  'BufferedChatCompletionContext',
  'HeadAndTailChatCompletionContext',
  'TokenLimitedChatCompletionContext',
])

/** AutoGen's own context configs: `buffer_size`, `head_size`, `tail_size`, `token_limit`, `model_client`. */
export function loadAutoGen(provider: string, config: Record<string, unknown>): ChatContext {
  const cls = provider.replace(AUTOGEN, '')
  const initialMessages = autogenMessages(config.initialMessages)
  const common = initialMessages.length ? { initialMessages } : {}
  switch (cls) {
    case 'UnboundedChatCompletionContext':
      return new ChatContext({ ...common, strategy: createStrategy('unbounded') })
    case 'BufferedChatCompletionContext':
      return new ChatContext({
        ...common,
        strategy: createStrategy('buffered', { size: config.bufferSize }),
      })
    case 'HeadAndTailChatCompletionContext':
      return new ChatContext({
        ...common,
        strategy: createStrategy('headAndTail', { head: config.headSize, tail: config.tailSize }),
      })
    case 'TokenLimitedChatCompletionContext': {
      const clientModel = fieldsOf(fieldsOf(config.modelClient).config).model
      const model = typeof clientModel === 'string' ? clientModel : undefined
      const limit = config.tokenLimit as number | undefined
      const tools = Array.isArray(config.toolSchema)
        ? z.array(toolSchemaSchema).parse(config.toolSchema)
        : undefined
      return new ChatContext({
        ...common,
        strategy: createStrategy('tokenLimited', {
          ...(limit !== undefined && limit !== null && { limit }),
          ...(model && { model }),
        }),
        ...(model && { model }),
        ...(tools && { tools }),
      })
    }
    default:
      throw new InvalidStateError(`unknown AutoGen context ${JSON.stringify(provider)}`)
  }
}

/** AutoGen `LLMMessage` JSON, through the AutoGen codec. */
function autogenMessages(raw: unknown): Message[] {
  if (raw === undefined || raw === null) return []
  try {
    return readAutoGen(raw)
  } catch (e) {
    throw new InvalidStateError(`initial_messages: ${(e as Error).message}`)
  }
}

/** AutoGen writes snake_case keys; this library camelCase. Config keys are converted too. */
export function snakeToCamel(value: unknown, depth = 0): unknown {
  if (depth > 4 || !value || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => snakeToCamel(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    const key = k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
    // Message contents and tool schemas are data, not config: kept as written.
    out[key] = key === 'parameters' || key === 'content' ? v : snakeToCamel(v, depth + 1)
  }
  return out
}

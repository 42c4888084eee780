import { InvalidInputError, InvalidOptionError } from '../../errors.js'
import { FORMATS, type Format, providerOfFormat } from '../../formats/detect.js'
import type { Message } from '../../messages/message.js'
import { describeValue } from '../../options-check.js'
import type { Provider } from '../../providers/validate.js'
import { checkConversationId, type HistoryStore } from '../../store/history-store.js'
import type { FitOptions } from '../options/options.js'

/** What a context takes besides `fit`'s options. */
export interface ContextOwnOptions {
  /** Messages the context starts with (and, by default, returns to on `clear()`). */
  initialMessages?: readonly Message[] | undefined
  /** Where the history lives, shared by every process on the same `id`. Default: this process's memory. */
  store?: HistoryStore | undefined
  /** The conversation's id in the store. */
  id?: string | undefined
  /**
   * The format messages are added in, so an SDK's messages go in as they come
   * (`'openai-chat'`, `'openai-responses'`, `'anthropic'`, `'gemini'`, ...); `'auto'` tells
   * each by its shape. Default: this library's `Message`. Messages come out as `Message`s
   * whatever the format (one history, sent to any provider): send them with the format's
   * writer, `toOpenAIChat(await ctx.getMessages())`.
   */
  format?: Format | 'auto' | undefined
}

/** `fit`'s options plus the context's own: a misspelt option is a compile error and an `InvalidOptionError`. */
export type ChatContextOptions = FitOptions & ContextOwnOptions

/** Option names a context reads itself, beside `fit`'s. */
export const CONTEXT_OPTIONS: readonly string[] = ['initialMessages', 'store', 'id', 'format']

/**
 * A provider's own format brings its rules: `format: 'anthropic'` fits by Anthropic's. A
 * `provider` that names another is refused, since what is added in one format and sent by
 * another provider's rules would break one of them.
 */
export function providerFromFormat(options: ChatContextOptions): Provider | undefined {
  if (options === null || typeof options !== 'object') return undefined
  const given = (options as { provider?: unknown }).provider as Provider | undefined
  const format = (options as { format?: unknown }).format
  if (
    format !== undefined &&
    format !== 'auto' &&
    !(FORMATS as readonly unknown[]).includes(format)
  )
    throw new InvalidOptionError(
      'format',
      `expected one of ${FORMATS.join(', ')} or auto, got ${describeValue(format)}`,
    )
  const implied = providerOfFormat(format as Format | undefined)
  if (implied && given !== undefined && given !== implied)
    throw new InvalidOptionError(
      'provider',
      `format ${JSON.stringify(format)} is ${implied}'s and brings its rules; got provider ${JSON.stringify(given)} (leave provider out, or add messages in its format)`,
    )
  return given ?? implied
}

/**
 * Where a context's history lives, when in a store: a store without the conversation's id, or
 * with an id no store takes (the stores' one rule), is refused when the context is made.
 */
export function storeOf(
  options: ContextOwnOptions,
): { store: HistoryStore; id: string } | undefined {
  const { store, id } = options
  if (store && !id)
    throw new InvalidOptionError('id', 'a context over a store needs the conversation id')
  if (!store || !id) return undefined
  try {
    checkConversationId('ChatContext', id)
  } catch (e) {
    if (e instanceof InvalidInputError) throw new InvalidOptionError('id', e.detail)
    throw e
  }
  return { store, id }
}

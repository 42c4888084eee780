import type { Message } from '../messages/message.js'
import type { TokenCounter } from '../tokens/counter.js'
import type { Loss } from './anthropic-messages/codec.js'
import type { Provider } from './validate.js'

/**
 * One provider API as a unit: its wire codec, its validity rules and its default counter.
 * `src/providers/index.ts` holds the one table of these; the core resolves a `provider`
 * or `format` name through it once.
 */
export interface ProviderApi {
  /** The `provider` option's name. */
  name: Provider
  /** The `format` name of its wire codec. */
  format: 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini'
  /** Its history must open with a user turn after the system prompt. */
  userFirst: boolean
  /** Wire messages (a list or a request object) -> canonical messages; throws a typed error on bad input. */
  decode(input: unknown): Message[]
  /** Canonical messages -> the wire request, and what the wire cannot carry. */
  encode(messages: readonly Message[]): { output: unknown; lost: Loss[] }
  /** The counter used when no model is named (undefined: the library default, o200k). */
  counter(): TokenCounter | undefined
}

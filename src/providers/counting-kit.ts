import { InvalidOptionError } from '../errors.js'
import type { Message } from '../messages/message.js'
import type { TokenCounter } from '../tokens/counter.js'

/** One count request to a provider's counting endpoint: the request's input tokens. */
export type CountCall = (
  messages: readonly Message[],
  tools: readonly unknown[],
  signal: AbortSignal,
) => Promise<number>

/** What a provider API's count request is made from: the caller's own SDK client and model. */
export interface CountSetup<Client> {
  client: Client
  model: string
  /** The local count, for what an endpoint leaves out of its own. */
  local: TokenCounter
  /** The request's tools by the local count. */
  localTools: number
}

/** The endpoint's answer, when it is a token count. */
export function countAnswer(n: unknown): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw new TypeError(`the endpoint answered ${String(n)} instead of a token count`)
  return n
}

export const withTools = (tools: readonly unknown[]) => (tools.length > 0 ? { tools } : {})

export function requireClient(f: unknown, what: string): void {
  if (typeof f !== 'function')
    throw new InvalidOptionError('client', `expected an SDK client with ${what}`)
}

import { InvalidOptionError } from '../errors.js'
import { describeValue } from '../options-check.js'
import { type AnthropicCountingClient, anthropicCount } from './anthropic-messages/counting.js'
import type { CountCall, CountSetup } from './counting-kit.js'
import { type GeminiCountingClient, geminiCount } from './gemini/counting.js'
import { type OpenAICountingClient, responsesCount } from './openai-responses/counting.js'
import type { AllListed, Provider } from './provider.js'

export type { CountCall, CountSetup } from './counting-kit.js'
export type { AnthropicCountingClient, GeminiCountingClient, OpenAICountingClient }

/** The client each provider API with a counting endpoint is counted through, by provider name. */
export interface CountingClients {
  anthropic: AnthropicCountingClient
  gemini: GeminiCountingClient
  'openai-responses': OpenAICountingClient
}

export type CountingProvider = AllListed<keyof CountingClients, Provider>

/** What makes one API's count request (a method: it is read with the client it was given). */
interface CountMaker<Client> {
  make(setup: CountSetup<Client>): CountCall
}

/** The count request of each provider API that has a counting endpoint, by provider name. */
const COUNTS: { [P in CountingProvider]: CountMaker<CountingClients[P]> } = {
  anthropic: { make: anthropicCount },
  gemini: { make: geminiCount },
  'openai-responses': { make: responsesCount },
}

/** The same table, read by a name not yet known to be in it. */
const byName: Readonly<Record<string, CountMaker<unknown>>> = COUNTS

/** The providers with a counting endpoint, as an error names them. */
const named = Object.keys(COUNTS).map((p) => `'${p}'`)
const listed = `${named.slice(0, -1).join(', ')} or ${named.at(-1)}`

/**
 * What makes the count request of `provider`'s counting endpoint (an unknown name is refused
 * here, a client without the endpoint's method when it is made).
 */
export function countRequestOf(provider: unknown): CountMaker<unknown> {
  const maker =
    typeof provider === 'string' && Object.hasOwn(byName, provider) ? byName[provider] : undefined
  if (!maker)
    throw new InvalidOptionError('provider', `expected ${listed}, got ${describeValue(provider)}`)
  return maker
}

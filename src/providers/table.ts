import { anthropicMessagesProvider } from './anthropic-messages/provider.js'
import { geminiProvider } from './gemini/provider.js'
import { openaiChatProvider } from './openai-chat/provider.js'
import { openaiResponsesProvider } from './openai-responses/provider.js'
import type { Provider } from './provider.js'
import type { ProviderRules } from './types.js'

/**
 * The one table of provider APIs' rules, by `provider` name: what fitting, validation,
 * learned limits, tool counting and native context management read. `index.ts` adds each
 * API's codec to the same names (its test holds the two tables to the same entries).
 */
export const PROVIDER_RULES: Readonly<Record<Provider, ProviderRules>> = Object.freeze({
  openai: openaiChatProvider,
  anthropic: anthropicMessagesProvider,
  'openai-responses': openaiResponsesProvider,
  gemini: geminiProvider,
})

/**
 * The entry of a `provider` name in one of the provider tables (rules, replies, whole APIs:
 * all keyed by the same names), or undefined for an unknown name, `__proto__` included.
 */
export function entryOf<T>(table: Readonly<Record<string, T>>, name: unknown): T | undefined {
  return typeof name === 'string' && Object.hasOwn(table, name) ? table[name] : undefined
}

/** The `provider` name whose wire codec is `format`, or undefined for a framework format. */
export function nameOfFormat(format: unknown): Provider | undefined {
  return Object.values(PROVIDER_RULES).find((p) => p.format === format)?.name
}

/** The rules of a `provider` name, or undefined for an unknown one. */
export function providerRules(name: unknown): ProviderRules | undefined {
  return entryOf(PROVIDER_RULES, name)
}

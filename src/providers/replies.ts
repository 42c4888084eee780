import { anthropicMessagesReplies } from './anthropic-messages/provider.js'
import { geminiReplies } from './gemini/provider.js'
import { openaiChatReplies } from './openai-chat/provider.js'
import { openaiResponsesReplies } from './openai-responses/provider.js'
import { PROVIDERS, type Provider } from './provider.js'
import { entryOf, nameOfFormat } from './table.js'
import type { ProviderReplies } from './types.js'

/**
 * What each provider API sends back, by `provider` name (the names of `PROVIDER_RULES`):
 * what learned limits, `parseOverflowError`, `promptTokensOf` and native context management
 * read. A table apart from the rules, so an app that only fits carries none of it.
 */
export const PROVIDER_REPLIES: Readonly<Record<Provider, ProviderReplies>> = Object.freeze({
  openai: openaiChatReplies,
  anthropic: anthropicMessagesReplies,
  'openai-responses': openaiResponsesReplies,
  gemini: geminiReplies,
})

/** Each provider API's name with what it sends back, in the table's order. */
export function providerReplies(): [Provider, ProviderReplies][] {
  return PROVIDERS.map((p): [Provider, ProviderReplies] => [p, PROVIDER_REPLIES[p]])
}

/** What the provider API whose wire codec is `format` sends back, or undefined for a framework format. */
export function providerRepliesOfFormat(format: unknown): ProviderReplies | undefined {
  return entryOf(PROVIDER_REPLIES, nameOfFormat(format))
}

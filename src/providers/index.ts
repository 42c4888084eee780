import { anthropicMessages } from './anthropic-messages/index.js'
import { gemini } from './gemini/index.js'
import { openaiChat } from './openai-chat/index.js'
import { openaiResponses } from './openai-responses/index.js'
import type { Provider } from './provider.js'
import { entryOf, nameOfFormat } from './table.js'
import type { ProviderApi } from './types.js'

export { PROVIDER_REPLIES, providerReplies, providerRepliesOfFormat } from './replies.js'
export { PROVIDER_RULES, providerRules } from './table.js'
export type { ProviderApi, ProviderReplies, ProviderRules } from './types.js'

/**
 * The one table of provider APIs with their codecs: adding one means a folder beside these,
 * a line here and a line in `table.ts` (its rules).
 */
export const PROVIDER_APIS: Readonly<Record<Provider, ProviderApi>> = Object.freeze({
  openai: openaiChat,
  anthropic: anthropicMessages,
  'openai-responses': openaiResponses,
  gemini,
})

/** The provider API of a `provider` name, or undefined for an unknown one. */
export function providerApi(name: unknown): ProviderApi | undefined {
  return entryOf(PROVIDER_APIS, name)
}

/** The provider API whose wire codec is `format`, or undefined for a framework format. */
export function providerApiOfFormat(format: unknown): ProviderApi | undefined {
  return entryOf(PROVIDER_APIS, nameOfFormat(format))
}

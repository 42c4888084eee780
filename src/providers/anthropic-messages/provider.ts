import type { ProviderRules } from '../types.js'
import { native, overflow, promptTokens, tools } from './limits.js'

/** Anthropic Messages: its rules (the codec is in index.ts). */
export const anthropicMessagesProvider: ProviderRules = {
  name: 'anthropic',
  format: 'anthropic',
  userFirst: true,
  counter: () => undefined,
  overflow,
  promptTokens,
  tools,
  native,
}

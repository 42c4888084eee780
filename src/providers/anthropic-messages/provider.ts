import { providerCounter } from '../../tokens/counters.js'
import type { ProviderReplies, ProviderRules } from '../types.js'
import { native, overflow, promptTokens, requestLimits, tools } from './limits.js'
import { anthropicMessages } from './rules.js'

/** Anthropic Messages, counted as Claude is estimated when no model is named: its rules (the codec is in index.ts). */
export const anthropicMessagesProvider: ProviderRules = {
  name: 'anthropic',
  format: 'anthropic',
  userFirst: true,
  counter: () => providerCounter('anthropic'),
  tools,
  requestLimits,
  messages: anthropicMessages,
}

/** What Anthropic Messages sends back: its "too long" error, its usage, its context management. */
export const anthropicMessagesReplies: ProviderReplies = { overflow, promptTokens, native }

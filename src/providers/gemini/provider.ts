import { counterFor } from '../../tokens/counters.js'
import type { ProviderReplies, ProviderRules } from '../types.js'
import { overflow, promptTokens, requestLimits, tools } from './limits.js'
import { geminiMessages } from './rules.js'

/** Gemini generateContent, counted with Gemini's own tokenizer when no model is named: its rules (the codec is in index.ts). */
export const geminiProvider: ProviderRules = {
  name: 'gemini',
  format: 'gemini',
  userFirst: true,
  counter: () => counterFor('gemini-2.5-pro'),
  tools,
  requestLimits,
  messages: geminiMessages,
}

/** What Gemini sends back: its "too long" error, its usage. */
export const geminiReplies: ProviderReplies = { overflow, promptTokens }

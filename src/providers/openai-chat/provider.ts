import type { ProviderRules } from '../types.js'
import { overflow, promptTokens } from './limits.js'

/** OpenAI Chat Completions: its rules (the codec is in index.ts). */
export const openaiChatProvider: ProviderRules = {
  name: 'openai',
  format: 'openai-chat',
  userFirst: false,
  counter: () => undefined,
  overflow,
  promptTokens,
  tools: {},
}

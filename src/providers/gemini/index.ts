import { counterFor } from '../../tokens/counters.js'
import type { ProviderApi } from '../types.js'
import { encodeGemini, fromGemini } from './codec.js'
import { overflow, promptTokens, tools } from './limits.js'

/** Gemini generateContent; counted with Gemini's own tokenizer when no model is named. */
export const gemini: ProviderApi = {
  name: 'gemini',
  format: 'gemini',
  userFirst: true,
  decode: (input) => fromGemini(input),
  encode: (messages) => encodeGemini(messages),
  counter: () => counterFor('gemini-2.5-pro'),
  overflow,
  promptTokens,
  tools,
}

import type { ProviderApi } from '../types.js'
import { encodeGemini, fromGemini } from './codec.js'
import { defineTool } from './limits.js'
import { geminiProvider, geminiReplies } from './provider.js'

/** Gemini generateContent; counted with Gemini's own tokenizer when no model is named. */
export const gemini: ProviderApi = {
  ...geminiProvider,
  ...geminiReplies,
  defineTool,
  decode: (input) => fromGemini(input),
  // A response turn answers the calls of the turn before.
  decodeAdded: (list, after) =>
    fromGemini(list, { firstTurn: after.firstIndex, openCalls: after.openCalls }),
  encode(messages, options) {
    const { output, lost } = encodeGemini(messages)
    if (options?.request !== false) return { output, lost }
    // A bare list has no place for a system instruction: it becomes the first user turn's text.
    return { output: encodeGemini(messages, { bare: true }).output.contents, lost }
  },
}

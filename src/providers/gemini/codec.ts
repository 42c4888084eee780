/**
 * The Gemini codec: its content shapes (`wire.ts`), reading them (`decode.ts`, one turn in
 * `decode-turns.ts`) and writing them back (`encode.ts`, a message's parts in `encode-parts.ts`).
 */
export { fromGemini, readGemini } from './decode.js'
export { encodeGemini, toGemini } from './encode.js'
export {
  type FromGeminiOptions,
  GEMINI,
  type GeminiContent,
  type GeminiFunctionResponsePart,
  type GeminiPart,
  type GeminiRequest,
} from './wire.js'

/**
 * The AI SDK codec: its message shapes (`ai-sdk-wire.ts`), reading them (`ai-sdk-decode.ts`)
 * and writing them back (`ai-sdk-encode.ts`).
 */
export { fromAISDK, readAISDK } from './ai-sdk-decode.js'
export { toAISDK } from './ai-sdk-encode.js'
export { AI_SDK, type ModelMessageJson } from './ai-sdk-wire.js'

/** Gemini's content and part shapes, and what this codec keeps of them for the way back. */
import { isJson, type Json, metadataFor } from '../codec-kit.js'

/** The key under which this codec keeps what it needs for an exact round trip. */
export const GEMINI = 'gemini'

export const { meta, withMeta } = metadataFor(GEMINI)

// Structural copies of @google/genai's types: assignable to `Content` and `Part` without
// importing the SDK.

export interface GeminiPart {
  text?: string
  thought?: boolean
  /** Returned byte for byte on the part that carried it. */
  thoughtSignature?: string
  inlineData?: { mimeType?: string; data?: string; displayName?: string }
  fileData?: { mimeType?: string; fileUri?: string; displayName?: string }
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> }
  functionResponse?: {
    id?: string
    name?: string
    response?: Record<string, unknown>
    /** Media of the response (an image a tool returned), beside its JSON. */
    parts?: GeminiFunctionResponsePart[]
    willContinue?: boolean
  }
}

/** A media part of a function response: inline bytes or a file's URI. */
export interface GeminiFunctionResponsePart {
  inlineData?: { mimeType?: string; data?: string; displayName?: string }
  fileData?: { mimeType?: string; fileUri?: string; displayName?: string }
}

export interface GeminiContent {
  role?: 'user' | 'model'
  parts?: GeminiPart[]
}

/** A Gemini request's conversation: what `generateContent` takes as `contents` and `config.systemInstruction`. */
export interface GeminiRequest {
  systemInstruction?: GeminiContent | string
  contents: GeminiContent[]
}

export type Slot = { t: 'text' } | { t: 'thought'; part: Json } | { t: 'call' } | { t: 'other' }

/** A slot of a model turn's layout, as the decoder wrote it. */
export function isSlot(v: unknown): v is Slot {
  if (!isJson(v)) return false
  return v.t === 'thought' ? isJson(v.part) : v.t === 'text' || v.t === 'call' || v.t === 'other'
}

export interface FromGeminiOptions {
  /** Where these turns start in a longer history: ids made up for calls without one stay unique. */
  firstTurn?: number
  /** Calls of the turn just before these, still waiting: responses without ids answer them by name. */
  openCalls?: readonly { id: string; name: string }[]
}

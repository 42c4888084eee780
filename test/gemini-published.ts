import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { fromGemini } from '../src/index.js'
import { type ToolInput, toolSchemas } from '../src/providers/tool-shapes.js'
import type { TokenCounter } from '../src/tokens/counter.js'

/**
 * Requests whose token count Google itself published (the `countTokens` answer or the
 * `usageMetadata.promptTokenCount` of a call, printed in its cookbook and SDK samples), with
 * the request in Gemini's wire shape. Apache 2.0 code samples; see test/data/README.md.
 */
export const GEMINI_PUBLISHED_PATH = fileURLToPath(
  new URL('./data/gemini-published/counts.json', import.meta.url),
)

export interface PublishedRequest {
  systemInstruction?: { parts: { text: string }[] }
  contents: { role: 'user' | 'model'; parts: { text: string }[] }[]
  tools?: ToolInput[]
}

export interface PublishedCount {
  id: string
  /** The file, at the commit that first printed the figure. */
  source: string
  published: string
  model: string
  /** Which of Google's answers the figure is. */
  field: string
  request: PublishedRequest
  /** Google's figure. */
  totalTokens: number
  note?: string
}

export function geminiPublished(): PublishedCount[] {
  const file = JSON.parse(readFileSync(GEMINI_PUBLISHED_PATH, 'utf8')) as {
    examples: PublishedCount[]
  }
  return file.examples
}

/** A request as a counter counts it: its turns (system instruction included) and its tools. */
export function countRequest(counter: TokenCounter, request: PublishedRequest): number {
  return counter.countMessages(fromGemini(request)) + counter.countTools(toolSchemas(request.tools))
}

/** The number of contents Google frames with a role (the system instruction is one). */
export function framedTurns(request: PublishedRequest): number {
  return request.contents.length + (request.systemInstruction ? 1 : 0)
}

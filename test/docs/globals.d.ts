// What the README and docs blocks may use without defining: clients pointed at loopback
// servers and the bundled example conversation (set by test/docs/prelude.ts).
import type Anthropic from '@anthropic-ai/sdk'
import type { GoogleGenAI } from '@google/genai'
import type OpenAI from 'openai'
import type { Message } from '../../src/index.js'

declare global {
  /** An OpenAI client. */
  var openai: OpenAI
  /** An Anthropic client. */
  var anthropic: Anthropic
  /** A Google Gen AI client. */
  var ai: GoogleGenAI
  /** A conversation as OpenAI chat messages. */
  var openaiMessages: OpenAI.ChatCompletionMessageParam[]
  /** OpenAI chat tools. */
  var tools: OpenAI.ChatCompletionTool[]
  /** A conversation as canonical messages. */
  var history: Message[]
  /** The system prompt as a canonical message. */
  var system: Message
}

import type { Message } from '../../messages/message.js'
import {
  type CountCall,
  type CountSetup,
  countAnswer,
  requireClient,
  withTools,
} from '../counting-kit.js'
import { encodeGemini } from './codec.js'

/** The client `models.countTokens` is called through (`@google/genai`'s, read structurally). */
export interface GeminiCountingClient {
  /** Set by `@google/genai` on a Vertex client: only Vertex counts a system instruction and tools. */
  vertexai?: boolean
  models: { countTokens(params: never): PromiseLike<{ totalTokens?: number }> }
}

/** A count request encoded as the request itself would be: model, contents, and on Vertex the rest. */
export function geminiCount(setup: CountSetup<GeminiCountingClient>): CountCall {
  const { client, model } = setup
  requireClient(client?.models?.countTokens, 'client.models.countTokens')
  return async (messages, tools, signal) => {
    const { output } = encodeGemini(messages)
    const system = output.systemInstruction
    // The Gemini Developer API counts contents only: a system instruction and tools go
    // through Vertex's config, else they are left to the local count and added to it.
    const vertex = client.vertexai === true
    const config = {
      ...(vertex && system ? { systemInstruction: system } : {}),
      ...(vertex ? withTools(tools) : {}),
      abortSignal: signal,
    }
    const params = { model, contents: output.contents, config }
    const counted = countAnswer((await client.models.countTokens(params as never)).totalTokens)
    return vertex ? counted : counted + offline(messages, tools, setup)
  }
}

/** What the Gemini Developer API's count leaves out (system instruction, tools), counted locally. */
function offline(
  messages: readonly Message[],
  tools: readonly unknown[],
  { local, localTools }: CountSetup<GeminiCountingClient>,
): number {
  let n = tools.length > 0 ? localTools : 0
  for (const m of messages) {
    if (m.role !== 'system') break
    n += local.countMessage(m)
  }
  return n
}

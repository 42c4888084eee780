import {
  type CountCall,
  type CountSetup,
  countAnswer,
  requireClient,
  withTools,
} from '../counting-kit.js'
import { encodeOpenAIResponses } from './codec.js'

/** The client `responses.inputTokens.count` is called through (the OpenAI SDK's, read structurally). */
export interface OpenAICountingClient {
  responses: {
    inputTokens: { count(params: never, options?: never): PromiseLike<{ input_tokens: number }> }
  }
}

/** A count request encoded as the request itself would be: model, instructions, input, tools. */
export function responsesCount({ client, model }: CountSetup<OpenAICountingClient>): CountCall {
  requireClient(client?.responses?.inputTokens?.count, 'client.responses.inputTokens.count')
  return async (messages, tools, signal) => {
    const { output } = encodeOpenAIResponses(messages, { request: true })
    const request = Array.isArray(output) ? { input: output } : output
    const params = { model, ...request, ...withTools(tools) }
    const counted = await client.responses.inputTokens.count(params as never, { signal } as never)
    return countAnswer(counted.input_tokens)
  }
}

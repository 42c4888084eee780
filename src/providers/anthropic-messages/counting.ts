import {
  type CountCall,
  type CountSetup,
  countAnswer,
  requireClient,
  withTools,
} from '../counting-kit.js'
import { toAnthropic } from './codec.js'

/** The client `messages.countTokens` is called through (the Anthropic SDK's, read structurally). */
export interface AnthropicCountingClient {
  messages: { countTokens(params: never, options?: never): PromiseLike<{ input_tokens: number }> }
}

/** A count request encoded as the request itself would be: model, system prompt, messages, tools. */
export function anthropicCount({ client, model }: CountSetup<AnthropicCountingClient>): CountCall {
  requireClient(client?.messages?.countTokens, 'client.messages.countTokens')
  return async (messages, tools, signal) => {
    const { lost: _lost, ...request } = toAnthropic(messages)
    const params = { model, ...request, ...withTools(tools) }
    const counted = await client.messages.countTokens(params as never, { signal } as never)
    return countAnswer(counted.input_tokens)
  }
}

import type { ProviderApi } from '../types.js'
import { fromAnthropic, toAnthropic } from './codec.js'
import { native, overflow, promptTokens, tools } from './limits.js'

/** Anthropic Messages. */
export const anthropicMessages: ProviderApi = {
  name: 'anthropic',
  format: 'anthropic',
  userFirst: true,
  decode: fromAnthropic,
  encode: (messages) => {
    const { lost, ...output } = toAnthropic(messages)
    return { output, lost }
  },
  counter: () => undefined,
  overflow,
  promptTokens,
  tools,
  native,
}

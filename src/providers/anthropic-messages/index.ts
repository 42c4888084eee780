import type { Message } from '../../messages/message.js'
import { decodedAt, namedResults } from '../codec-kit.js'
import type { ProviderApi } from '../types.js'
import { fromAnthropic, toAnthropic } from './codec.js'
import { defineTool } from './limits.js'
import { anthropicMessagesProvider, anthropicMessagesReplies } from './provider.js'

/** Anthropic Messages. */
export const anthropicMessages: ProviderApi = {
  ...anthropicMessagesProvider,
  ...anthropicMessagesReplies,
  defineTool,
  decode: fromAnthropic,
  // A turn or reply decodes from a message list.
  decodeAdded: (list, after) =>
    decodedAt(after.firstIndex, () =>
      namedResults(turnsFrom(fromAnthropic({ messages: list }), after.firstIndex), after.calls),
    ),
  encode: (messages) => {
    const { lost, ...output } = toAnthropic(messages)
    return { output, lost }
  },
}

/**
 * Turns added one at a time are numbered where they start in the history, as a whole
 * conversation decoded at once numbers them: a tool-result turn and the user turn after it
 * stay two turns (numbered alike, the encoder would send them as one).
 */
function turnsFrom(messages: Message[], firstIndex: number): Message[] {
  if (firstIndex === 0) return messages
  return messages.map((m) => {
    const data = m.providerMetadata?.anthropic
    if (typeof data?.turn !== 'number') return m
    return {
      ...m,
      providerMetadata: {
        ...m.providerMetadata,
        anthropic: { ...data, turn: data.turn + firstIndex },
      },
    }
  })
}

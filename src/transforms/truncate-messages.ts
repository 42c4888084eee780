import type { Message } from '../messages/message.js'
import { positiveInt } from '../strategies/buffered.js'
import type { Transform } from '../strategies/types.js'

export interface TruncateMessagesOptions {
  /** Any message longer than this (its text) is cut to about this many tokens. */
  maxTokensPerMessage: number
  /** Which part survives. Default `head`. */
  keep?: 'head' | 'tail' | 'both'
}

/**
 * Cuts a single long message (a huge tool result) to a token cap, with a marker saying how
 * much was cut (AutoGen `MessageTokenLimiter`). Only string content is cut; the cut is on
 * characters, scaled from the count, and checked so the result is within the cap.
 */
export function truncateMessages(
  options: TruncateMessagesOptions,
): Transform<'truncateMessages', TruncateMessagesOptions> {
  const cap = positiveInt('maxTokensPerMessage', options?.maxTokensPerMessage)
  const keep = options.keep ?? 'head'
  return {
    name: 'truncateMessages',
    options: { maxTokensPerMessage: cap, keep },
    apply(view) {
      const out = new Map<number, Message | null>()
      view.messages.forEach((m, i) => {
        if (typeof m.content !== 'string') return
        const tokens = view.counter.countText(m.content)
        if (tokens <= cap) return
        let chars = Math.floor((m.content.length * cap) / tokens)
        let text = cut(m.content, chars, keep, tokens)
        while (view.counter.countText(text) > cap + 40 && chars > 10) {
          chars = Math.floor(chars * 0.8)
          text = cut(m.content, chars, keep, tokens)
        }
        out.set(i, { ...m, content: text } as Message)
      })
      return out
    },
  }
}

function cut(text: string, chars: number, keep: 'head' | 'tail' | 'both', tokens: number): string {
  const marker = (n: number) =>
    `\n[... ${n} characters (about ${Math.round((n / text.length) * tokens)} tokens) cut ...]\n`
  if (keep === 'head') return text.slice(0, chars) + marker(text.length - chars)
  if (keep === 'tail') return marker(text.length - chars) + text.slice(text.length - chars)
  const half = Math.floor(chars / 2)
  return text.slice(0, half) + marker(text.length - 2 * half) + text.slice(text.length - half)
}

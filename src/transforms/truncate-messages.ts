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
 * much was cut (AutoGen `MessageTokenLimiter`). Text is cut (a string, or each text
 * part); the cut is on characters, scaled from the count, and checked against the cap.
 */
export function truncateMessages(
  options: TruncateMessagesOptions,
): Transform<'truncateMessages', TruncateMessagesOptions> {
  const cap = positiveInt('maxTokensPerMessage', options?.maxTokensPerMessage)
  const keep = options.keep ?? 'head'
  return {
    name: 'truncateMessages',
    reason: 'truncated',
    options: { maxTokensPerMessage: cap, keep },
    apply(view) {
      const out = new Map<number, Message | null>()
      const shorten = (content: string): string | undefined => {
        const tokens = view.counter.countText(content)
        if (tokens <= cap) return undefined
        let chars = Math.floor((content.length * cap) / tokens)
        let text = cut(content, chars, keep, tokens)
        while (view.counter.countText(text) > cap + 40 && chars > 10) {
          chars = Math.floor(chars * 0.8)
          text = cut(content, chars, keep, tokens)
        }
        return text
      }
      view.messages.forEach((m, i) => {
        if (m.content === undefined) return
        if (typeof m.content === 'string') {
          const text = shorten(m.content)
          if (text !== undefined) out.set(i, { ...m, content: text } as Message)
          return
        }
        // Content parts: each long text part is cut on its own; images and files stay.
        let changed = false
        const parts = m.content.map((part) => {
          if (part.type !== 'text') return part
          const text = shorten(part.text)
          if (text === undefined) return part
          changed = true
          return { ...part, text }
        })
        if (changed) out.set(i, { ...m, content: parts } as Message)
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

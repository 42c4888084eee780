import { isCarried } from '../messages/carried.js'
import type { Message } from '../messages/message.js'
import { recallNote } from '../recall/notes.js'
import { positiveInt } from '../strategies/buffered.js'
import type { Transform } from '../strategies/types.js'

export interface TruncateMessagesOptions {
  /** Any message longer than this (its text) is cut to about this many tokens. */
  maxTokensPerMessage: number
  /** Which part survives. Default `head`. */
  keep?: 'head' | 'tail' | 'both'
  /** Cut system messages too. Default `false`: the system prompt is the instructions, kept whole unless asked. */
  includeSystem?: boolean
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
  const includeSystem = options.includeSystem === true
  return {
    name: 'truncateMessages',
    reason: 'truncated',
    options: { maxTokensPerMessage: cap, keep, includeSystem },
    apply(view) {
      const out = new Map<number, Message | null>()
      const shorten = (content: string, note?: string): string | undefined => {
        const tokens = view.counter.countText(content)
        if (tokens <= cap) return undefined
        let chars = Math.floor((content.length * cap) / tokens)
        let text = cut(content, chars, keep, tokens, note)
        while (view.counter.countText(text) > cap + 40 && chars > 10) {
          chars = Math.floor(chars * 0.8)
          text = cut(content, chars, keep, tokens, note)
        }
        return text
      }
      view.messages.forEach((m, i) => {
        // With recall offered, the marker names the message the original is asked back by.
        const note = recallNote(view, i)
        // What a codec sends whole (a hosted tool's item) is not cut: the cut would be counted
        // and the whole item sent.
        if (m.content === undefined || isCarried(m)) return
        if (m.role === 'system' && !includeSystem) return
        if (typeof m.content === 'string') {
          const text = shorten(m.content, note)
          if (text !== undefined) out.set(i, { ...m, content: text })
          return
        }
        // Content parts: each long text part is cut on its own; images and files stay.
        let changed = false
        const parts = m.content.map((part) => {
          if (part.type !== 'text' || isCarried(part)) return part
          const text = shorten(part.text, note)
          if (text === undefined) return part
          changed = true
          return { ...part, text }
        })
        if (changed) out.set(i, { ...m, content: parts })
      })
      return out
    },
  }
}

function cut(
  text: string,
  chars: number,
  keep: 'head' | 'tail' | 'both',
  tokens: number,
  note?: string,
): string {
  const marker = (n: number) =>
    `\n[... ${n} characters (about ${Math.round((n / text.length) * tokens)} tokens) cut${note ? `; ${note}` : ''} ...]\n`
  if (keep === 'head') {
    const end = boundary(text, chars)
    return text.slice(0, end) + marker(text.length - end)
  }
  if (keep === 'tail') {
    const start = boundary(text, text.length - chars)
    return marker(start) + text.slice(start)
  }
  const half = Math.floor(chars / 2)
  const end = boundary(text, half)
  const start = Math.max(end, boundary(text, text.length - half))
  return text.slice(0, end) + marker(start - end) + text.slice(start)
}

/** A cut position that does not split a surrogate pair (a lone half is invalid UTF-16, refused by providers). */
function boundary(text: string, at: number): number {
  if (at <= 0) return 0
  if (at >= text.length) return text.length
  const before = text.charCodeAt(at - 1)
  const after = text.charCodeAt(at)
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff ? at - 1 : at
}

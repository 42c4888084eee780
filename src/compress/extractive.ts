import { contentText, type Message } from '../messages/message.js'
import { terms_ } from '../strategies/scorers.js'
import type { TokenCounter } from '../tokens/counter.js'
import { exactCounter } from '../tokens/counters.js'
import type { Summarizer } from './summarizer.js'

export interface ExtractiveOptions {
  /** Counts the summary against `maxTokens`. Default: exact o200k. */
  counter?: TokenCounter
}

/**
 * An offline summarizer, no model: every tool call's name and outcome, then the most
 * informative sentences (figures, names, rare words), in their original order, within
 * `maxTokens`. The default, so compression works with no server.
 */
export function extractiveSummarizer(options: ExtractiveOptions = {}): Summarizer {
  const counter = options.counter ?? exactCounter()
  return {
    name: 'extractive',
    toJSON: () => 'extractive',
    async summarize({ messages, previousSummary, maxTokens }) {
      const facts: string[] = []
      const sentences: { text: string; at: number; score: number }[] = []
      const df = new Map<string, number>()
      const split: { text: string; at: number; terms: string[] }[] = []
      messages.forEach((m, at) => {
        if (m.role === 'assistant') {
          for (const c of m.toolCalls ?? [])
            facts.push(`called ${c.name}(${clip(c.arguments, 80)})`)
        }
        if (m.role === 'tool') {
          facts.push(
            `${m.toolName ?? 'tool'} ${m.isError ? 'failed' : 'returned'}: ${clip(contentText(m.content), 100)}`,
          )
          return
        }
        const who = speaker(m)
        for (const s of contentText(m.content).split(/(?<=[.!?])\s+|\n+/)) {
          const text = s.trim()
          if (text.length < 12) continue
          const terms = terms_(text)
          for (const t of new Set(terms)) df.set(t, (df.get(t) ?? 0) + 1)
          split.push({ text: `${who}: ${text}`, at, terms })
        }
      })
      const n = split.length || 1
      for (const s of split) {
        let score = 0
        for (const t of new Set(s.terms)) score += Math.log(1 + n / (df.get(t) ?? 1))
        if (/\d/.test(s.text)) score *= 1.5
        if (/https?:\/\//.test(s.text)) score *= 1.5
        sentences.push({ text: s.text, at: s.at, score: score / Math.sqrt(s.terms.length + 1) })
      }
      const chosen = new Set<number>()
      let used = 0
      // The running summary's lines, then the tool facts; if even they do not fit, the oldest go first.
      const lines = [
        ...(previousSummary ? previousSummary.split('\n').filter(Boolean) : []),
        ...facts,
      ]
      for (const l of lines) used += counter.countText(`${l}\n`)
      while (used > maxTokens && lines.length > 0) used -= counter.countText(`${lines.shift()}\n`)
      const order = sentences
        .map((_, k) => k)
        .sort((a, b) => (sentences[b]?.score ?? 0) - (sentences[a]?.score ?? 0))
      for (const k of order) {
        const t = counter.countText(`${sentences[k]?.text}\n`)
        if (used + t > maxTokens) continue
        chosen.add(k)
        used += t
      }
      const picked = sentences.filter((_, k) => chosen.has(k)).map((s) => s.text)
      return [...lines, ...picked].join('\n')
    },
  }
}

function speaker(m: Message): string {
  return m.name ?? m.role
}

function clip(text: string, width: number): string {
  const t = text.replace(/\s+/g, ' ').trim()
  if (t.length <= width) return t
  // Never half a surrogate pair: a lone one is invalid UTF-16, refused by providers.
  const end = /[\uD800-\uDBFF]/.test(t.charAt(width - 2)) ? width - 2 : width - 1
  return `${t.slice(0, end)}…`
}

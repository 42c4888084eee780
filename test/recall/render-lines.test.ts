// A recall's text is chosen line by line, each message's line counted once: the same text,
// messages and count as when every choice counts the whole text it makes (what a counter that
// cannot count by pieces gets), and never past `maxTokens` by an independent count.

import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { contentText, type Message } from '../../src/messages/message.js'
import { fromOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { recall } from '../../src/recall/index.js'
import type { TokenCounter } from '../../src/tokens/counter.js'
import { exactCounter } from '../../src/tokens/counters.js'
import { tauBench } from '../tau-bench.js'

/** Trajectories one after another: a long agent history with long tool results. */
function history(from: number, to: number): Message[] {
  return tauBench()
    .slice(from, to)
    .flatMap((r, k) => fromOpenAIChat(r.traj).slice(k === 0 ? 0 : 1))
}

/** The same counts through a copy: not a counter made here, so it is asked for whole texts only. */
function wholeOnly(counter: TokenCounter): TokenCounter {
  return {
    name: counter.name,
    exact: counter.exact,
    replyPriming: counter.replyPriming,
    countText: (t) => counter.countText(t),
    countMessage: (m) => counter.countMessage(m),
    countMessages: (ms) => counter.countMessages(ms),
    countTools: (ts) => counter.countTools(ts),
  }
}

describe('recall text chosen line by line', () => {
  it('equals the choice made by counting whole texts, on τ-bench histories and queries of every length', () => {
    const counter = exactCounter()
    const whole = wholeOnly(counter)
    let compared = 0
    let full = 0
    for (const [from, to] of [
      [0, 6],
      [30, 34],
    ] as const) {
      const h = history(from, to)
      const words = h
        .filter((m) => m.role === 'user' || m.role === 'tool')
        .map((m) => contentText(m.content))
        .join(' ')
        .split(/\s+/)
        .filter((w) => w !== '')
      const queries = [
        'reservation',
        'baggage cancel',
        words.slice(0, 40).join(' '),
        words.slice(100, 350).join(' '),
        '"}',
      ]
      for (const query of queries)
        for (const maxTokens of [128, 200, 400, 1000, 3000])
          for (const maxMessages of [1, 4, 16]) {
            const options = { budget: 1500, recall: { maxTokens, maxMessages } }
            const a = recall(h, { query }, { ...options, counter })
            const b = recall(h, { query }, { ...options, counter: whole })
            expect(a.text).toBe(b.text)
            expect(a.messages).toEqual(b.messages)
            expect(a.tokens).toBe(b.tokens)
            // o200k counted apart from the library: the text fits.
            expect(countTokens(a.text)).toBeLessThanOrEqual(maxTokens)
            compared++
            if (b.more.length > 0 && a.messages.length > 1) full++
          }
    }
    expect(compared).toBe(150)
    // Many of them filled their room (some matches left out): the choice was made at the edge.
    expect(full).toBeGreaterThan(30)
  })
})

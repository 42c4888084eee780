// A tool result sent cleared or cut (by `clearToolResults`, `truncateMessages`, or a
// strategy's stub) is recallable as its original: with the recall tool offered, the text
// that stands for it names the message to ask for, and recall returns the original, through
// the credential filter. Through `fit`, `fitAsync`, a `ChatContext`, the AI SDK adapter and
// its tool. The oracle reads the caller's array and the texts sent, apart from `src/`.
import type { ModelMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { fit, fitAsync } from '../../src/context/fit.js'
import { fitEachStep } from '../../src/integrations/ai-sdk.js'
import { contentText, type Message } from '../../src/messages/message.js'
import { executeRecall, recall, recallToolForAISDK } from '../../src/recall/index.js'
import { scoreBased } from '../../src/strategies/score-based.js'
import { exactCounter } from '../../src/tokens/counters.js'
import { clearToolResults } from '../../src/transforms/clear-tool-results.js'
import { truncateMessages } from '../../src/transforms/truncate-messages.js'

const counter = exactCounter()
const SECRET = 'sk-live-Q7abcdefghijklmnop0123x9'
const SYSTEM = 'You are a document desk.'

/** The sentence only document `k`'s result holds (what a cleared result loses). */
const clause = (k: number) =>
  `Clause ${k}: the fee is waived for flight F${k}${k}7 when it is late.`

/** Five document lookups, each result long, holding its own clause and a credential. */
function exchanges(): Message[] {
  const h: Message[] = []
  for (let k = 0; k < 5; k++) {
    h.push({ role: 'user', content: `Open document ${k}.` })
    h.push({
      role: 'assistant',
      toolCalls: [{ id: `c${k}`, name: 'get_doc', arguments: JSON.stringify({ n: k }) }],
    })
    h.push({
      role: 'tool',
      toolCallId: `c${k}`,
      // The clause last: a cut that keeps the head loses it too.
      content: `Document ${k}. ${'The document repeats the terms. '.repeat(30)} ${clause(k)} api key ${SECRET}`,
    })
  }
  h.push({ role: 'user', content: 'Which fees are waived?' })
  return h
}
const history: Message[] = [{ role: 'system', content: SYSTEM }, ...exchanges()]

/** The index of the caller's message holding `text` (the oracle: the caller's own array). */
function indexOf(entries: readonly unknown[], text: string): number {
  const at = entries.flatMap((e, i) => (JSON.stringify(e).includes(text) ? [i] : []))
  expect(at).toHaveLength(1)
  return at[0] as number
}

/** Every `recall message N` a text sent names. */
function named(text: string): number[] {
  return [...text.matchAll(/recall message (\d+) for the original/g)].map((m) => Number(m[1]))
}

/** The `message N by` lines of a recall result. */
function lines(text: string): Map<number, string> {
  const out = new Map<number, string>()
  for (const line of text.split('\n')) {
    const m = /^message (\d+) by [^:]*:/.exec(line)
    if (m) out.set(Number(m[1]), line)
  }
  return out
}

/**
 * For each shortened result among `sent` (a text naming `recall message N`): N is the caller's
 * index of that result, and recall by N and by its lost clause returns the original under N,
 * without the credential.
 */
async function checkShortened(
  entries: readonly unknown[],
  sent: readonly string[],
  recallBy: (args: unknown) => Promise<string> | string,
  expectedCount: number,
) {
  const shortened = sent.filter((t) => named(t).length > 0)
  expect(shortened.length).toBe(expectedCount)
  for (const text of shortened) {
    const [n] = named(text)
    // The clause it lost is the one of the document whose result the caller holds at n.
    const k = [0, 1, 2, 3, 4].find((j) => indexOf(entries, clause(j)) === n)
    expect(k, `message ${n} is a document result`).toBeDefined()
    expect(text).not.toContain(clause(k as number))
    for (const args of [{ messages: [n] }, { query: `flight F${k}${k}7` }]) {
      const back = await recallBy(args)
      const line = lines(back).get(n as number)
      expect(line, `${JSON.stringify(args)} returns message ${n}`).toContain(clause(k as number))
      expect(back).not.toContain(SECRET)
    }
  }
}

const clearing = { budget: 100_000, counter, recall: true } as const

describe('a result sent cleared or cut is recalled as its original', () => {
  it('clearToolResults through fit, executeRecall and recall(): the placeholder names the message', async () => {
    for (const facts of [false, true]) {
      const options = { ...clearing, transforms: [clearToolResults({ keep: 1, facts })] }
      const r = fit(history, options)
      const sent = r.messages.map((m) => contentText(m.content))
      await checkShortened(history, sent, (args) => executeRecall(history, args, options, r), 4)
      await checkShortened(history, sent, (args) => executeRecall(history, args, options), 4)
      await checkShortened(history, sent, (args) => recall(history, args as never, options).text, 4)
    }
  })

  it('without the recall tool the placeholder is the transform`s own, and nothing names a message', () => {
    const r = fit(history, {
      budget: 100_000,
      counter,
      transforms: [clearToolResults({ keep: 1 })],
    })
    const cleared = r.messages.filter(
      (m) => m.role === 'tool' && contentText(m.content).startsWith('[tool'),
    )
    expect(cleared.map((m) => contentText(m.content))).toEqual(
      new Array(4).fill('[tool result cleared to save context]'),
    )
  })

  it('truncateMessages through fitAsync and a ChatContext: the cut marker names the message', async () => {
    const options = { ...clearing, transforms: [truncateMessages({ maxTokensPerMessage: 60 })] }
    const r = await fitAsync(history, options)
    const sent = r.messages.map((m) => contentText(m.content))
    await checkShortened(history, sent, (args) => executeRecall(history, args, options, r), 5)
    const ctx = new ChatContext({ ...options, initialMessages: [history[0] as Message] })
    ctx.addMessages(history.slice(1))
    const fromContext = (await ctx.getMessages()).map((m) => contentText(m.content))
    await checkShortened(history, fromContext, async (args) => (await ctx.recall(args)).text, 5)
  })

  it('a strategy`s stub (scoreBased keeps a call and stubs results that do not fit): the original is recallable', () => {
    const wide: Message[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: 'Open every document.' },
      {
        role: 'assistant',
        toolCalls: [0, 1, 2].map((k) => ({
          id: `w${k}`,
          name: 'get_doc',
          arguments: `{"n":${k}}`,
        })),
      },
      ...[0, 1, 2].map(
        (k): Message => ({
          role: 'tool',
          toolCallId: `w${k}`,
          content: `${clause(k)} ${'The rest of the document repeats the terms. '.repeat(30)}`,
        }),
      ),
      { role: 'user', content: 'Which fees are waived?' },
    ]
    const options = { budget: 700, counter, recall: true, strategy: scoreBased() } as const
    const r = fit(wide, options)
    const stubbed = r.changed.filter((c) => c.reason === 'stubbed').map((c) => c.index)
    expect(stubbed.length).toBeGreaterThan(0)
    for (const i of stubbed) {
      const k = [0, 1, 2].find((j) => indexOf(wide, clause(j)) === i) as number
      const back = executeRecall(wide, { messages: [i] }, options, r)
      expect(lines(back).get(i)).toContain(clause(k))
    }
  })

  it('the AI SDK: fitEachStep({ system }) names the caller`s index, and the tool over the step`s messages returns it', async () => {
    const messages: ModelMessage[] = []
    for (const m of exchanges()) {
      if (m.role === 'user') messages.push({ role: 'user', content: m.content as string })
      else if (m.role === 'assistant')
        messages.push({
          role: 'assistant',
          content: (m.toolCalls ?? []).map((c) => ({
            type: 'tool-call' as const,
            toolCallId: c.id,
            toolName: c.name,
            input: JSON.parse(c.arguments),
          })),
        })
      else if (m.role === 'tool')
        messages.push({
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: m.toolCallId,
              toolName: 'get_doc',
              output: { type: 'text', value: m.content as string },
            },
          ],
        })
    }
    const options = { ...clearing, transforms: [clearToolResults({ keep: 1 })] }
    const step = fitEachStep({ system: SYSTEM, ...options })({ messages, steps: [] })
    const sent = step.messages.map((m) => JSON.stringify(m.content))
    const tool = recallToolForAISDK({ system: SYSTEM, ...options })
    await checkShortened(messages, sent, (args) => tool.execute(args, { messages }), 4)
  })
})

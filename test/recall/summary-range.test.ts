// What a summary replaced is named by range in its text, and with the recall tool offered
// each message of that range comes back as it was: through `fitAsync` and `executeRecall`,
// `recall()`, a `ChatContext`, and the AI SDK tool. The oracle reads the caller's array and
// the summary's text, apart from `src/`.
import { describe, expect, it } from 'vitest'
import { summarizing } from '../../src/compress/index.js'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { fitAsync } from '../../src/context/fit.js'
import { contentText, type Message } from '../../src/messages/message.js'
import { executeRecall, recall, recallToolForAISDK } from '../../src/recall/index.js'
import { exactCounter } from '../../src/tokens/counters.js'

const counter = exactCounter()

/** Each turn says something only it says (`remark N`), with filler a summary drops. */
const remark = (k: number) => `remark ${k}: gate B${k}${k} opens at 0${k % 10}:15`
function history(): Message[] {
  const h: Message[] = [{ role: 'system', content: 'You are a travel desk agent.' }]
  for (let k = 0; k < 12; k++)
    h.push({
      role: k % 2 === 0 ? 'user' : 'assistant',
      content: `${remark(k)}. ${'We went over seats, meals and bags once more. '.repeat(10)}`,
    })
  h.push({ role: 'user', content: 'Which gate was it again?' })
  return h
}

/** The range a summary's text names: `messages A to B`. */
function rangeIn(text: string): [number, number] | undefined {
  const m = /\[Summary of messages (\d+) to (\d+) of the conversation/.exec(text)
  return m ? [Number(m[1]), Number(m[2])] : undefined
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

const options = {
  budget: 900,
  counter,
  strategy: summarizing({ leaveLastN: 2 }),
  recall: { maxTokens: 6000, maxMessages: 16 },
} as const

/** The summary's range, checked against the caller's array and what was sent, and recalled whole. */
async function checkRange(
  h: readonly Message[],
  sent: readonly Message[],
  recallBy: (args: unknown) => Promise<string> | string,
) {
  const summary = sent.map((m) => contentText(m.content)).find((t) => rangeIn(t))
  expect(summary, 'a summary was sent').toBeDefined()
  const [a, b] = rangeIn(summary as string) as [number, number]
  // The text says they can be asked back by number.
  expect(summary).toContain('recall any of them by number')
  const range = Array.from({ length: b - a + 1 }, (_, k) => a + k)
  // The range is every message of the caller's the request sends in no other form.
  const sentTexts = sent.map((m) => contentText(m.content))
  const notSent = h.flatMap((m, i) =>
    m.role !== 'system' && !sentTexts.includes(contentText(m.content)) ? [i] : [],
  )
  expect(range).toEqual(notSent)
  const back = lines(await recallBy({ messages: range }))
  expect([...back.keys()]).toEqual(range)
  for (const i of range) expect(back.get(i)).toContain(remark(i - 1))
}

describe('a summary names what it replaced, and recall returns it', () => {
  it('fitAsync, executeRecall with its result and after it, recall()', async () => {
    const h = history()
    const r = await fitAsync(h, options)
    await checkRange(h, r.messages, (args) => executeRecall(h, args, options, r))
    await checkRange(h, r.messages, (args) => executeRecall(h, args, options))
    await checkRange(h, r.messages, (args) => recall(h, args as never, options).text)
  })

  it('a ChatContext: its own request`s summary, its recall', async () => {
    const h = history()
    const ctx = new ChatContext({ ...options, initialMessages: [h[0] as Message] })
    ctx.addMessages(h.slice(1))
    const sent = await ctx.getMessages()
    await checkRange(h, sent, async (args) => (await ctx.recall(args)).text)
  })

  it('the AI SDK tool with the summarizing strategy, the system prompt apart: the caller`s numbers', async () => {
    const h = history()
    const [system, ...rest] = h
    const messages = rest.map((m) => ({ role: m.role, content: contentText(m.content) }))
    const tool = recallToolForAISDK({ system: contentText(system?.content ?? ''), ...options })
    // What the request sends: the same fit of the same system prompt and messages.
    const r = await fitAsync(h, options)
    const shifted = rangeIn(r.messages.map((m) => contentText(m.content)).join('\n')) as number[]
    const range = Array.from(
      { length: (shifted[1] as number) - (shifted[0] as number) + 1 },
      (_, k) => (shifted[0] as number) + k - 1,
    )
    const back = lines(await tool.execute({ messages: range }, { messages }))
    expect([...back.keys()]).toEqual(range)
    for (const i of range) expect(back.get(i)).toContain(remark(i))
  })

  it('a pinned message inside the range is sent as it is: the summary counts only the others, and names it', async () => {
    for (const pinned of [[3], [2, 5]]) {
      const h = history().map((m, i) => (pinned.includes(i) ? { ...m, pinned: true } : m))
      const r = await fitAsync(h, options)
      const sentTexts = r.messages.map((m) => contentText(m.content))
      const summary = sentTexts.find((t) => rangeIn(t)) as string
      expect(summary, 'a summary was sent').toBeDefined()
      const [a, b] = rangeIn(summary) as [number, number]
      // From the caller's array and what was sent: the range's messages sent in no other form.
      const inRange = Array.from({ length: b - a + 1 }, (_, k) => a + k)
      const standsFor = inRange.filter((i) => !sentTexts.includes(contentText(h[i]?.content)))
      const apart = inRange.filter((i) => sentTexts.includes(contentText(h[i]?.content)))
      expect(apart).toEqual(pinned)
      const count = /of the conversation \((\d+) messages/.exec(summary)?.[1]
      expect(Number(count)).toBe(standsFor.length)
      expect(summary).toContain(
        pinned.length === 1
          ? `message ${pinned[0]} sent as it is`
          : `messages ${pinned.join(', ')} sent as they are`,
      )
      // What it stands for comes back by number; a pinned one is in the request.
      const back = lines(recall(h, { messages: inRange }, options).text)
      expect([...back.keys()]).toEqual(standsFor)
    }
  })
})

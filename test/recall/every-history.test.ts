// Recall on histories other than English agent traces, through every entry point, checked
// against plain readings of the messages written here (no part of the library's search).
import { describe, expect, it } from 'vitest'
import { summarizing } from '../../src/compress/index.js'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { fit, fitAsync } from '../../src/context/fit.js'
import { InvalidOptionError } from '../../src/errors.js'
import { toAISDK } from '../../src/formats/ai-sdk.js'
import { contentText, type Message } from '../../src/messages/message.js'
import { executeRecall, recall, recallToolForAISDK } from '../../src/recall/index.js'
import { exactCounter } from '../../src/tokens/counters.js'

const counter = exactCounter()

/** The message numbers a recall tool result returns (its `message N by` lines). */
function numbersIn(text: string): number[] {
  return [...text.matchAll(/^message (\d+) by /gm)].map((m) => Number(m[1]))
}

/** A text as a reader matching by eye would: compatibility forms plain, lower case. */
const plain = (t: string) => t.normalize('NFKC').toLowerCase()

/** Messages of `h` (by index) whose text holds `needle`, read plainly. */
function holding(h: readonly Message[], needle: string): number[] {
  const out: number[] = []
  h.forEach((m, i) => {
    if (plain(contentText(m.content)).includes(plain(needle))) out.push(i)
  })
  return out
}

/** Filler turns a small budget drops the early messages for. */
function filler(n: number): Message[] {
  return Array.from({ length: n }, (_, k): Message[] => [
    { role: 'user', content: `Question ${k}: ${'about seats and bags '.repeat(12)}` },
    { role: 'assistant', content: `Answer ${k}: ${'the policy says so '.repeat(12)}` },
  ]).flat()
}

/** Every way a caller runs a recall tool call over `h` with `options`: the indexes returned. */
async function everyEntry(
  h: Message[],
  args: { query: string },
  options: { budget: number; recall?: { maxMessages: number } },
): Promise<Record<string, number[]>> {
  const ctx = new ChatContext({ ...options, counter, initialMessages: [h[0] as Message] })
  ctx.addMessages(h.slice(1))
  const tool = recallToolForAISDK({ history: () => toAISDK(h), ...options, counter })
  return {
    recall: recall(h, args, { ...options, counter }).messages,
    executeRecall: numbersIn(executeRecall(h, args, { ...options, counter })),
    executeRecallWithResult: numbersIn(
      executeRecall(
        h,
        args,
        { ...options, counter },
        fit(h, { ...options, counter, recall: true }),
      ),
    ),
    chatContext: (await ctx.recall(args)).messages,
    aiSdkTool: numbersIn(await tool.execute(args)),
  }
}

const cjk: Message[] = [
  { role: 'system', content: 'You are a travel agent.' },
  { role: 'user', content: '明日の大阪行きの新幹線を予約したいです。' },
  { role: 'assistant', content: '予約番号はJR-77812です。大阪駅に10時に到着します。' },
  { role: 'user', content: '我想查询一下上海到北京的订单号。' },
  { role: 'assistant', content: '您的订单号是 SH-2024-883，从上海出发。' },
  { role: 'user', content: 'ＦＵＬＬＷＩＤＴＨ　ｒｅｆ　ＡＢＣ１２３ please' },
  { role: 'user', content: 'ขอจองห้องพักที่กรุงเทพมหานคร' },
  { role: 'assistant', content: '서울에서 출발하는 항공편을 찾았습니다.' },
  ...filler(14),
  { role: 'user', content: 'Where was I going?' },
]

describe('recall in any script', () => {
  const dropped = fit(cjk, { budget: 500, counter, recall: true }).dropped
  for (const query of [
    '大阪',
    '予約番号',
    '上海',
    '订单号',
    'abc123',
    'ａｂｃ１２３',
    '北京',
    '東京',
    'กรุงเทพ',
    '서울',
  ])
    it(`"${query}": the left-out messages holding it first, through every entry point`, async () => {
      const expected = holding(cjk, query).filter((i) => dropped.includes(i))
      // Every query but one (no message names Tokyo) asks of a message left out.
      expect(expected.length === 0).toBe(query === '東京')
      // As many as hold it: those are the ones returned (a message holding a part ranks below).
      const options = { budget: 500, recall: { maxMessages: Math.max(1, expected.length) } }
      for (const [entry, got] of Object.entries(await everyEntry(cjk, { query }, options)))
        expect([entry, [...got].sort((a, b) => a - b)]).toEqual([entry, expected])
    })

  it('the messages it reads are dropped ones, so the cases above ask of left-out messages', () => {
    for (const i of [1, 2, 3, 4, 5, 6, 7]) expect(dropped).toContain(i)
  })
})

describe('an identifier asked for comes first', () => {
  const ids: Message[] = [
    { role: 'system', content: 'You are an order desk.' },
    ...[41, 42, 43, 44].flatMap((n): Message[] => [
      { role: 'user', content: `What is the status of my order ORD-2024-00${n}?` },
      {
        role: 'assistant',
        content: `Order ORD-2024-00${n} ${n === 42 ? 'ships on Monday' : 'is delayed'}; the order desk will write.`,
      },
    ]),
    ...Array.from(
      { length: 6 },
      (_, k): Message => ({
        role: 'user',
        content: `Another order question ${k}, order order order.`,
      }),
    ),
    ...filler(12),
    { role: 'user', content: 'And my order?' },
  ]
  const options = { budget: 500, recall: { maxMessages: 1 } }
  for (const query of ['order ORD-2024-0042', 'status of ORD-2024-0042', 'ord-2024-0042 order'])
    it(`"${query}" with maxMessages 1 returns a message naming it, through every entry point`, async () => {
      const naming = ids.flatMap((m, i) =>
        /\bORD-2024-0042\b/.test(contentText(m.content)) ? [i] : [],
      )
      expect(naming.length).toBe(2)
      for (const [entry, got] of Object.entries(await everyEntry(ids, { query }, options))) {
        expect([entry, got.length]).toEqual([entry, 1])
        expect([entry, naming.includes(got[0] as number)]).toEqual([entry, true])
      }
    })
})

describe('recall under the summarizing strategy', () => {
  const h: Message[] = [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: 'My booking reference is QX7-55012, seat 14C.' },
    { role: 'assistant', content: 'Noted: QX7-55012, seat 14C.' },
    ...filler(14),
    { role: 'user', content: 'Which seat did I have?' },
  ]
  const options = { budget: 600, counter, strategy: summarizing(), recall: true } as const
  const query = { query: 'QX7-55012' }

  it('executeRecall with the fitAsync result, after fitAsync, and with no request known; recall(); the AI SDK tool; a ChatContext', async () => {
    const result = await fitAsync(h, options)
    const summarized = result.fates.flatMap((f, i) => (f.fate === 'summarized' ? [i] : []))
    // The original messages the summary replaced are what the model asks back for.
    expect(summarized).toContain(1)
    const expected = holding(h, 'QX7-55012').filter((i) => summarized.includes(i))
    expect(expected).toEqual([1, 2])
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b)
    expect(sorted(numbersIn(executeRecall(h, query, options, result)))).toEqual(expected)
    expect(sorted(numbersIn(executeRecall(h, query, options)))).toEqual(expected)
    expect(sorted(recall(h, query, options).messages)).toEqual(expected)
    // A new array no fitAsync has seen: the request is not known, every message may come back.
    const fresh = [...h]
    expect(numbersIn(executeRecall(fresh, query, options))).toEqual(
      expect.arrayContaining(expected),
    )
    const tool = recallToolForAISDK({ history: () => toAISDK(h), ...options })
    expect(sorted(numbersIn(await tool.execute(query)))).toEqual(expected)
    const ctx = new ChatContext({
      budget: 600,
      counter,
      strategy: summarizing(),
      recall: true,
      initialMessages: [h[0] as Message],
    })
    ctx.addMessages(h.slice(1))
    expect(sorted(numbersIn((await ctx.recall(query)).text))).toEqual(expected)
  })
})

describe('recall arguments as models send them', () => {
  const h: Message[] = [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: 'My booking reference is QX7-55012, seat 14C.' },
    { role: 'assistant', content: 'Noted: QX7-55012, seat 14C.' },
    ...filler(14),
    { role: 'user', content: 'Which seat did I have?' },
  ]
  const options = { budget: 500, counter }
  const byNumber = executeRecall(h, { messages: [2] }, options)

  it('null, empty and missing fields read as not given; numbers as strings, one number for the list', async () => {
    expect(numbersIn(byNumber)).toEqual([2])
    const ctx = new ChatContext({ ...options, initialMessages: [h[0] as Message] })
    ctx.addMessages(h.slice(1))
    const tool = recallToolForAISDK({ history: () => toAISDK(h), ...options })
    for (const args of [
      '{"query": null, "messages": [2]}',
      { query: null, messages: [2] },
      { query: '', messages: [2] },
      { query: '   ', messages: ['2'] },
      { messages: 2 },
      { messages: [' 2 '], query: null },
    ]) {
      expect(executeRecall(h, args, options)).toBe(byNumber)
      expect((await ctx.recall(args)).text).toBe(byNumber)
      expect(await tool.execute(args)).toBe(byNumber)
    }
    expect(numbersIn(executeRecall(h, { query: ['QX7-55012'], messages: null }, options))).toEqual([
      1, 2,
    ])
  })

  it('what has no plain meaning is a reason returned as the result, never a throw', async () => {
    const tool = recallToolForAISDK({ history: () => toAISDK(h), ...options })
    for (const [args, reason] of [
      [{ query: 5 }, '"query" is not a string'],
      [{ query: { text: 'x' } }, '"query" is not a string'],
      [{ messages: ['two'] }, '"messages" is not a list of message numbers'],
      [{ messages: [-1] }, '"messages" is not a list of message numbers'],
      [{ messages: [1.5] }, '"messages" is not a list of message numbers'],
      [{ messages: ['1e3'] }, '"messages" is not a list of message numbers'],
      [null, 'give "query" or "messages"'],
      ['', 'give "query" or "messages"'],
      [{ query: null, messages: null }, 'give "query" or "messages"'],
      [{ query: '', messages: [] }, 'give "query" or "messages"'],
      [[2], 'the arguments are not an object'],
      ['{"__proto__": {"query": "QX7"}}', 'give "query" or "messages"'],
    ] as const) {
      expect(executeRecall(h, args, options)).toBe(`recall: ${reason}`)
      expect(await tool.execute(args)).toBe(`recall: ${reason}`)
    }
    // The library's own callers get a typed error for the same.
    expect(() => recall(h, { query: 5 } as never, options)).toThrow(InvalidOptionError)
  })
})

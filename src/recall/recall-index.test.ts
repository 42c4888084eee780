import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { fit } from '../context/fit.js'
import { contentText, type Message } from '../messages/message.js'
import { exactCounter } from '../tokens/counters.js'
import { recall } from './index.js'
import { LeftOut } from './left-out.js'
import { QUERY_WORDS, queryTerms } from './query-terms.js'
import { RecallIndex, recallIndexOf } from './recall-index.js'
import { search } from './search.js'
import { MARK, SecretSet } from './secret-set.js'
import { wordsOf } from './terms.js'

const counter = exactCounter()

const WORD_CHARACTER = /[\p{L}\p{M}\p{N}]/u
const WRITTEN_UNSPACED =
  /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]/u
const unspaced = (ch: string) => WORD_CHARACTER.test(ch) && WRITTEN_UNSPACED.test(ch)

/**
 * The words of a text, written plainly from the rules: NFKC and lower case (a final sigma a
 * sigma); runs of unspaced scripts give their neighbouring pairs (a lone character itself);
 * the rest read by one regular expression, each run whole and its parts.
 */
function wordsByRegex(text: string): Set<string> {
  const out = new Set<string>()
  const points = Array.from(text.normalize('NFKC').toLowerCase().replaceAll('ς', 'σ'))
  let run: string[] = []
  const flush = () => {
    if (run.length === 1) out.add(run[0] as string)
    for (let k = 0; k + 1 < run.length; k++) out.add(`${run[k]}${run[k + 1]}`)
    run = []
  }
  for (const ch of points) {
    if (unspaced(ch)) run.push(ch)
    else flush()
  }
  flush()
  const rest = points.map((ch) => (unspaced(ch) ? ' ' : ch)).join('')
  for (const w of rest.match(/[\p{L}\p{M}\p{N}_.-]+/gu) ?? []) {
    const whole = w.replace(/^[_.-]+|[_.-]+$/g, '')
    if (whole.length < 2) continue
    out.add(whole)
    for (const p of whole.split(/[_.-]+/))
      if (p.length >= 2) out.add(p.length > 3 && p.endsWith('s') ? p.slice(0, -1) : p)
  }
  return out
}

/** Pieces texts are made of: words, ids with dots, separators, astral letters, `__proto__`. */
const piece = fc.constantFrom(
  'flight',
  'Flights',
  'reservations',
  'user_id',
  'get_user_details',
  'api.v2.orders',
  '__proto__',
  'constructor',
  'toString',
  '--',
  '._',
  ' ',
  '  ',
  '\n',
  ',',
  ';',
  '!?',
  '𝐀𝐁',
  '😀',
  '\uD83D',
  'İstanbul',
  'ΟΔΟΣ',
  'straße',
  'NQNU5R',
  '8544743',
  '大阪',
  '予約番号は',
  '𠮷野家',
  'ＯＲＤ－２０２４',
  'ｶﾞｲﾄﾞ',
  'สวัสดีครับ',
  '서울에서',
  'ー',
  'e\u0301',
  'ΣΟΦΟΣ',
  's',
  'ss',
  'a-b',
  'x.y.z',
  '',
)
const text = fc.array(piece, { maxLength: 12 }).map((xs) => xs.join(''))

describe('recall terms', () => {
  it('reads the same words as the regular expression did, over any text', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ unit: 'grapheme', maxLength: 40 })), (t) => {
        expect([...wordsOf(t)].sort()).toEqual([...wordsByRegex(t)].sort())
      }),
      { numRuns: 600 },
    )
  })

  it('a query of any length is read for a bounded number of words; punctuation alone asks nothing', () => {
    const huge = Array.from({ length: 200_000 }, (_, i) => `w${i}`).join(' ')
    expect(huge.length).toBeGreaterThan(1_000_000)
    const q = queryTerms(huge)
    expect(q.words).toHaveLength(QUERY_WORDS)
    expect(q.terms.length).toBeLessThanOrEqual(QUERY_WORDS)
    expect(queryTerms('?!... --- ,,, ;;').terms).toEqual([])
    // A term named twice is asked once.
    // Identifiers come first, the rest in the query's order.
    expect(queryTerms('flight flight user_id, user_id').terms).toEqual([
      ['user_id', 'user', 'id'],
      ['flight'],
    ])
    expect(queryTerms('order ORD-2024-0042').terms[0]?.[0]).toBe('ord-2024-0042')
    expect(queryTerms('予約番号、大阪').terms).toEqual([['予約', '約番', '番号'], ['大阪']])
  })
})

describe('secret set', () => {
  it('replaces what trying every secret in turn, longest first, replaces', () => {
    const secret = fc.constantFrom(
      'hunter2hunter2',
      'hunter2h',
      'abcd',
      'bcde',
      'abcdefgh',
      'l]xy',
      'ial]',
      'sk-live-Q7abcdefghijklmnop',
      'Q7abcdefghijklmnop',
    )
    const body = fc
      .array(
        fc.oneof(secret, fc.constantFrom('x', ' ', 'abc', 'hunter', '[credential]', 'l]', 'ef')),
        { maxLength: 10 },
      )
      .map((xs) => xs.join(''))
    fc.assert(
      fc.property(fc.array(secret, { maxLength: 6 }), body, (secrets, t) => {
        const set = new SecretSet()
        for (const s of secrets) set.add(s)
        let expected = t
        const ordered = [...new Set(secrets)].sort((a, b) => b.length - a.length)
        for (const s of ordered) if (expected.includes(s)) expected = expected.split(s).join(MARK)
        expect(set.redact(t)).toBe(expected)
      }),
      { numRuns: 500 },
    )
  })
})

/** A history from generated turns: users, assistants calling tools, their results. */
const turn = fc.oneof(
  text.map((t): Message[] => [{ role: 'user', content: t }]),
  text.map((t): Message[] => [{ role: 'assistant', content: t }]),
  fc
    .tuple(
      fc.constantFrom('get_user_details', 'search.flights', '__proto__', 'book'),
      text,
      text,
      fc.boolean(),
    )
    .map(([name, args, result, named]): Message[] => [
      {
        role: 'assistant',
        toolCalls: [{ id: `c.${name}`, name, arguments: JSON.stringify({ q: args }) }],
      },
      {
        role: 'tool',
        toolCallId: `c.${name}`,
        ...(named && { toolName: name }),
        content: JSON.stringify({ result }),
      },
    ]),
)
const history = fc
  .array(turn, { minLength: 1, maxLength: 14 })
  .map((turns): Message[] => [
    { role: 'system', content: 'You are an agent.' },
    ...turns.flat(),
    { role: 'user', content: 'and now?' },
  ])
const query = fc
  .array(fc.oneof(piece, fc.constantFrom('get_user_details', 'flight user', 'book', '')), {
    minLength: 1,
    maxLength: 6,
  })
  .map((xs) => xs.join(' '))

/**
 * The ranking recall made before its index, written out plainly: every left-out message's
 * words read again, BM25 over them, the best for each term, then the rest by score.
 */
function rankedPlainly(
  h: readonly Message[],
  open: readonly number[],
  q: string,
  budget = Number.POSITIVE_INFINITY,
): number[] {
  const names = new Map<string, string>()
  const tools = h.map((m) => {
    if (m.role === 'assistant' && m.toolCalls?.length) {
      for (const c of m.toolCalls) names.set(c.id, c.name)
      return m.toolCalls.map((c) => c.name)
    }
    if (m.role !== 'tool') return []
    const name = m.toolName ?? names.get(m.toolCallId)
    return name === undefined ? [] : [name]
  })
  const bagOf = (i: number) => {
    const m = h[i] as Message
    const calls = m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.arguments) : []
    return wordsByRegex([contentText(m.content), ...calls, ...(tools[i] ?? [])].join(' '))
  }
  const asked = queryTerms(q)
  // Within the budget: the words rarest first over the whole history (every message, sent
  // or not), while their holders summed stay within it; the rarest some message holds always.
  const everyBag = h.map((_, i) => bagOf(i))
  const holders = (w: string) => everyBag.filter((b) => b.has(w)).length
  const byRarity = [...asked.words].sort((a, b) => holders(a) - holders(b))
  const kept = new Set<string>()
  let sum = 0
  for (const w of byRarity) {
    if (sum > 0 && sum + holders(w) > budget) break
    kept.add(w)
    sum += holders(w)
  }
  if (asked.words.reduce((n, w) => n + holders(w), 0) <= budget)
    for (const w of asked.words) kept.add(w)
  const words = asked.words.filter((w) => kept.has(w))
  const terms = asked.terms
    .filter((t) => kept.has(t[0] as string))
    .map((t) => t.filter((w) => kept.has(w)))
  if (terms.length === 0) return []
  const bags = open.map((i) => everyBag[i] as Set<string>)
  const weight = new Map<string, number>()
  for (const w of words) {
    const holding = bags.filter((b) => b.has(w)).length
    weight.set(w, Math.log(1 + (open.length - holding + 0.5) / (holding + 0.5)))
  }
  const mean = bags.reduce((n, b) => n + b.size, 0) / Math.max(1, bags.length)
  const norm = bags.map((b) => 2.2 / (1 + 1.2 * (0.25 + (0.75 * b.size) / Math.max(1, mean))))
  const termScore = (k: number, term: readonly string[]) => {
    let score = 0
    for (const w of term)
      if (bags[k]?.has(w)) score += (weight.get(w) as number) * (norm[k] as number)
    return score
  }
  const scored = open.map((i, k) => {
    let score = termScore(k, words)
    if (tools[i]?.some((t) => words.includes(t.toLowerCase()))) score += 1
    return { i, k, score }
  })
  const byScore = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || b.i - a.i)
  // Identifiers first as the query names them (queryTerms puts them first); then the other
  // terms by their rarest word some open message holds, the longer word among equals.
  const isId = (t: readonly string[]) => /[\p{N}_.-]/u.test(t[0] ?? '')
  const key = (t: readonly string[]) => {
    const held = t.filter((w) => bags.some((b) => b.has(w)))
    const most = Math.max(0, ...held.map((w) => weight.get(w) as number))
    const long = Math.max(0, ...held.filter((w) => weight.get(w) === most).map((w) => w.length))
    return { most, long }
  }
  const ordered = [
    ...terms.filter(isId),
    ...terms
      .filter((t) => !isId(t))
      .map((t, k) => ({ t, k, ...key(t) }))
      .sort((a, b) => b.most - a.most || b.long - a.long || a.k - b.k)
      .map((x) => x.t),
  ]
  const out: number[] = []
  for (const term of ordered) {
    // An identifier joined by a separator: the messages holding it whole, when any is left.
    const joined = term.length > 1 && /[_.-]/.test(term[0] as string)
    const open = byScore.filter((s) => !out.includes(s.i) && termScore(s.k, term) > 0)
    const whole = joined ? open.filter((s) => bags[s.k]?.has(term[0] as string)) : []
    let best: { i: number; score: number } | undefined
    for (const s of whole.length > 0 ? whole : open) {
      const t = termScore(s.k, term)
      if (!best || t > best.score) best = { i: s.i, score: t }
    }
    if (best) out.push(best.i)
  }
  for (const s of byScore) if (!out.includes(s.i)) out.push(s.i)
  return out
}

describe('recall index', () => {
  it('finds each message under exactly the words it holds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(text, fc.string({ maxLength: 30 })), { maxLength: 8 }),
        (ts) => {
          const index = new RecallIndex()
          index.extend(ts.map((t): Message => ({ role: 'user', content: t })))
          ts.forEach((t, i) => {
            const bag = wordsByRegex(t)
            expect(index.lengths[i]).toBe(bag.size)
            for (const w of bag) expect(index.holds(i, w)).toBe(true)
          })
          // A word in no message is found in none.
          expect(index.holding('absent-word').length).toBe(0)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('ranks as the plain reading of every left-out message did', () => {
    fc.assert(
      fc.property(history, query, fc.integer({ min: 0, max: 6 }), (h, q, sent) => {
        const index = new RecallIndex()
        index.extend(h)
        // The newest `sent` messages (and the system prompt) are in the request.
        const kept = h.map((_, i) => i).filter((i) => i >= h.length - sent)
        const left = new LeftOut(index, h.length, kept, index.systems)
        // Which messages are open, read from the history itself (not from the code under test).
        const open = h
          .map((_, i) => i)
          .filter((i) => i < h.length - sent && (h[i] as Message).role !== 'system')
        expect(search(index, left, q, 1_000)).toEqual(rankedPlainly(h, open, q))
      }),
      { numRuns: 300 },
    )
  })

  it('a query whose words hold more postings than the bound reads its rarest words, as the plain reading would', () => {
    fc.assert(
      fc.property(history, query, fc.integer({ min: 0, max: 30 }), (h, q, budget) => {
        const index = new RecallIndex()
        index.extend(h)
        const kept = [h.length - 1]
        const left = new LeftOut(index, h.length, kept, index.systems)
        const open = h
          .map((_, i) => i)
          .filter((i) => i < h.length - 1 && (h[i] as Message).role !== 'system')
        expect(search(index, left, `${q} you agent`, 1_000, budget)).toEqual(
          rankedPlainly(h, open, `${q} you agent`, budget),
        )
      }),
      { numRuns: 300 },
    )
  })

  it('a pasted message of common words still finds the message its rare word names', () => {
    const common = 'please confirm the flight booking for the user with the card on file'
    const h: Message[] = [
      { role: 'system', content: 'You are an agent.' },
      ...Array.from(
        { length: 400 },
        (_, k): Message => ({
          role: k % 2 === 0 ? 'user' : 'assistant',
          content: `${common} ${k}`,
        }),
      ),
      { role: 'tool', toolCallId: 'c.1', content: 'reservation ZX81QK baggage two bags' },
      { role: 'user', content: `${common} now` },
    ]
    const index = new RecallIndex()
    index.extend(h)
    const left = new LeftOut(index, h.length, [h.length - 1], index.systems)
    const q = `${common} and the reservation zx81qk please`
    // Every common word is held by 400 messages: with a bound of 100 only the rarest are read.
    const got = search(index, left, q, 5, 100)
    expect(got[0]).toBe(401)
    // A word no message holds does not take the place of the rarest one held.
    expect(search(index, left, 'qqqqzz please', 5, 100)[0]).toBeDefined()
    expect(search(index, left, 'qqqqzz please', 5, 100)).toEqual(search(index, left, 'please', 5))
    // Read whole, the common words' own best holders come too.
    expect(search(index, left, q, 5).length).toBe(5)
    expect(got.length).toBe(1)
  })

  it('grown a message at a time, it answers as one read whole', () => {
    fc.assert(
      fc.property(history, query, (h, asked) => {
        const q = `${asked} flight`
        const options = { budget: 300, counter }
        const grown: Message[] = []
        const answers: string[] = []
        for (const m of h) {
          grown.push(m)
          if (m.role === 'user') answers.push(recall(grown, { query: q }, options).text)
        }
        const index = recallIndexOf(grown)
        expect(index.length).toBe(h.length)
        // The same messages as new objects: read whole, into a new index.
        const fresh = structuredClone(h)
        expect(recallIndexOf(fresh)).not.toBe(index)
        expect(recall(fresh, { query: q }, options).text).toBe(answers.at(-1))
      }),
      { numRuns: 40 },
    )
  })

  it('behind a first message made again, it answers as one read whole, and the old index is unchanged', () => {
    const first = fc.oneof(
      text.map((t): Message => ({ role: 'system', content: `You are an agent. ${t}` })),
      text.map((t): Message => ({ role: 'user', content: t })),
    )
    fc.assert(
      fc.property(history, first, query, (h, head, asked) => {
        const q = `${asked} flight agent`
        const options = { budget: 300, counter }
        const before = recall(h, { query: q }, options).text
        const index = recallIndexOf(h)
        const renewed = [head, ...h.slice(1)]
        const derived = recallIndexOf(renewed)
        expect(derived).not.toBe(index)
        // Against an index of new objects read whole: the same postings for every word.
        const whole = new RecallIndex()
        whole.extend(structuredClone(renewed))
        for (const w of [...wordsOf(q), ...wordsOf(contentText(head.content)), 'agent', 'you'])
          expect([w, [...derived.holding(w)]]).toEqual([w, [...whole.holding(w)]])
        expect([...derived.lengths.subarray(0, renewed.length)]).toEqual([
          ...whole.lengths.subarray(0, renewed.length),
        ])
        expect(derived.systems).toEqual(whole.systems)
        expect(recall(renewed, { query: q }, options).text).toBe(
          recall(structuredClone(renewed), { query: q }, options).text,
        )
        // The index the first array has is the one it had.
        expect(recall(h, { query: q }, options).text).toBe(before)
      }),
      { numRuns: 60 },
    )
  })

  it('behind a first message made again of the same role and text, the index is the same one, nothing copied', () => {
    const rest: Message[] = [
      { role: 'user', content: 'book flight NQNU5R' },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'and the __proto__ baggage?' },
    ]
    const prompt = 'You are an agent. Never mention 𝒳.'
    const index = recallIndexOf([{ role: 'system', content: prompt }, ...rest])
    const copy = vi.spyOn(RecallIndex.prototype, 'withFirst')
    try {
      for (let k = 0; k < 3; k++) {
        rest.push({ role: 'assistant', content: `reply ${k}` })
        const head: Message = { role: 'system', content: [{ type: 'text', text: prompt }] }
        const h = [head, ...rest]
        expect(recallIndexOf(h)).toBe(index)
        expect(index.messages[0]).toBe(head)
        expect(index.length).toBe(h.length)
      }
      expect(copy).not.toHaveBeenCalled()
      // Another text, or the same text from another role: read as a new first message.
      const other = [{ role: 'system', content: `${prompt} Be brief.` } as Message, ...rest]
      const derived = recallIndexOf(other)
      expect(derived).not.toBe(index)
      expect([...derived.holding('brief')]).toEqual([0])
      expect([...index.holding('brief')]).toEqual([])
      const asUser = [{ role: 'user', content: prompt } as Message, ...rest]
      expect(recallIndexOf(asUser)).not.toBe(index)
      expect(recallIndexOf(asUser).systems).toEqual([])
      expect(copy).toHaveBeenCalledTimes(2)
    } finally {
      copy.mockRestore()
    }
  })

  it('an array grown, or a new array of the same messages, extends the index; one edited is read again', () => {
    const h: Message[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'book flight NQNU5R' },
      { role: 'assistant', content: 'done' },
    ]
    const index = recallIndexOf(h)
    expect(index.length).toBe(3)
    h.push({ role: 'user', content: 'and the baggage?' })
    expect(recallIndexOf(h)).toBe(index)
    expect(index.length).toBe(4)
    expect([...index.holding('baggage')]).toEqual([3])
    const copy = [...h, { role: 'assistant', content: 'one bag' } as Message]
    expect(recallIndexOf(copy)).toBe(index)
    expect(index.length).toBe(5)
    // A message replaced: the index made for the array is not the one that read the old one.
    const edited = [...copy]
    edited[1] = { role: 'user', content: 'cancel reservation 8JX2WO' }
    const again = recallIndexOf(edited)
    expect(again).not.toBe(index)
    expect([...again.holding('nqnu5r')]).toEqual([])
    expect([...again.holding('8jx2wo')]).toEqual([1])
    h[1] = edited[1] as Message
    expect(recallIndexOf(h)).not.toBe(index)
    expect([...recallIndexOf(h).holding('nqnu5r')]).toEqual([])
  })

  it('a credential one message holds is returned from no other, the query echoed included', () => {
    const key = 'zq8Kx3Lm9Pw2Rt7Vb'
    const h: Message[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: `Here is my note: ${key} for the baggage desk.` },
      {
        role: 'assistant',
        toolCalls: [{ id: 'c.1', name: 'save', arguments: JSON.stringify({ api_key: key }) }],
      },
      { role: 'tool', toolCallId: 'c.1', content: '{"ok":true}' },
      ...Array.from({ length: 30 }, (_, k): Message[] => [
        { role: 'user', content: `Question ${k} about seats ${'please '.repeat(20)}` },
        { role: 'assistant', content: `Answer ${k}: ${'the policy says so '.repeat(20)}` },
      ]).flat(),
      { role: 'user', content: 'What did I say about the baggage desk?' },
    ]
    const options = { budget: 600, counter }
    expect(fit(h, options).dropped).toContain(1)
    const got = recall(h, { query: `baggage desk note ${key}` }, options)
    expect(got.messages).toContain(1)
    expect(got.text).toContain('baggage desk')
    expect(got.text).not.toContain(key)
    const none = recall(h, { query: `zebra ${key}` }, options)
    expect(none.text).not.toContain(key)
    // The credential is found by its word too, and still not returned.
    expect(recall(h, { messages: [1, 2] }, options).text).not.toContain(key)
  })

  it('a 1 MB query or one of punctuation: an answer, not an error; the echo is bounded', () => {
    const h: Message[] = [
      { role: 'user', content: 'book flight NQNU5R' },
      { role: 'assistant', content: `ok ${'filler '.repeat(400)}` },
      { role: 'user', content: 'thanks' },
    ]
    const options = { budget: 200, counter }
    const huge = `NQNU5R ${'x'.repeat(1_000_000)}`
    const got = recall(h, { query: huge }, options)
    expect(got.messages).toEqual([0])
    const punct = recall(h, { query: '?!... ---' }, options)
    expect(punct.messages).toEqual([])
    expect(punct.text).toContain('nothing left out matches "?!... ---"')
    const echo = recall(h, { query: `zebra ${'y'.repeat(1_000_000)}` }, options)
    expect(echo.text.length).toBeLessThan(400)
  })
})

// A held-out trial of the text the library writes into requests (the ledger, recall results,
// facts standing for cleared tool results, summaries and the transcript a summarizer reads,
// the report's facts, error messages, CLI output), over hostile histories from a seeded
// generator. The generator and the oracles are in ./helpers/hostile.ts, written apart from
// src/: the credentials are the ones planted (each with a random body that must not come
// back, whole or in part) and a few shapes of our own; the role each line claims is read by
// a parser of our own.
import { describe, expect, it } from 'vitest'
import { transcript } from '../src/advanced.js'
import { main } from '../src/cli/main.js'
import {
  ChatContext,
  clearToolResults,
  exactCounter,
  executeRecall,
  extractiveSummarizer,
  type FitResult,
  fit,
  fitAsync,
  type Message,
  recall,
  renderReport,
  summarizing,
  type TokenCounter,
  tokenLimited,
  validate,
} from '../src/index.js'
import {
  BREAKS,
  CONTEXT_SHAPES,
  hostile,
  LEDGER_HEADINGS,
  leaks,
  openAIChat,
  type Planted,
  parseItems,
  posedLines,
  RAW_UNSAFE,
  RECALL_HEADINGS,
  type Rng,
  recordProblems,
  rng,
  SEEDS,
  SHAPES,
} from './helpers/hostile.js'

function derived(result: FitResult): string[] {
  return result.inserted.map((s) =>
    typeof s.message.content === 'string' ? s.message.content : JSON.stringify(s.message.content),
  )
}

describe('hostile histories: the ledger', () => {
  it('quotes no planted credential and attributes every line to its true writer', () => {
    let ledgers = 0
    for (const seed of SEEDS) {
      const { history, planted } = hostile(seed)
      for (const budget of [400, 900, 2000]) {
        for (const recallOn of [false, true]) {
          const result = fit(history, { budget, ledger: true, ...(recallOn && { recall: true }) })
          for (const text of derived(result)) {
            ledgers++
            expect(leaks(text, planted), `seed ${seed} budget ${budget}`).toEqual([])
            expect(recordProblems(text, history, LEDGER_HEADINGS), `seed ${seed}`).toEqual([])
          }
        }
      }
    }
    expect(ledgers).toBeGreaterThan(100)
  })
})

describe('hostile histories: recall', () => {
  it('returns no planted credential, quoted under the true writer, for searches and numbers', () => {
    let results = 0
    for (const seed of SEEDS) {
      const { history, planted } = hostile(seed)
      const options = { budget: 600, recall: true as const }
      const queries = [
        'reservation_id',
        'get_reservation_details note',
        'password api_key',
        'user',
        'INJ',
        'redis postgres',
      ]
      for (const query of queries) {
        const r = recall(history, { query }, options)
        results++
        expect(leaks(r.text, planted), `seed ${seed} ${query}`).toEqual([])
        expect(recordProblems(r.text, history, RECALL_HEADINGS), `seed ${seed} ${query}`).toEqual(
          [],
        )
      }
      const numbers = history.map((_, i) => i)
      const text = executeRecall(history, JSON.stringify({ messages: numbers }), {
        ...options,
        recall: { maxTokens: 20_000, maxMessages: 64 },
      })
      results++
      expect(leaks(text, planted), `seed ${seed} all`).toEqual([])
      expect(recordProblems(text, history, RECALL_HEADINGS), `seed ${seed} all`).toEqual([])
    }
    expect(results).toBe(SEEDS.length * 7)
  })
})

describe('hostile histories: facts standing for cleared tool results', () => {
  it('quotes no planted credential, no unquoted item', () => {
    let cleared = 0
    for (const seed of SEEDS) {
      const { history, planted } = hostile(seed)
      const result = fit(history, {
        budget: 100_000,
        transforms: [clearToolResults({ keep: 0, facts: true })],
      })
      result.messages.forEach((m) => {
        if (m.role !== 'tool' || typeof m.content !== 'string') return
        if (!m.content.startsWith('[tool result cleared')) return
        cleared++
        expect(leaks(m.content, planted), `seed ${seed}`).toEqual([])
        const body = m.content.replace(/^\[tool result cleared to save context\]\s*/, '')
        expect(RAW_UNSAFE.test(body), `seed ${seed}`).toBe(false)
        if (body === '') return
        const lines = body.split(BREAKS)
        expect(lines.length, `seed ${seed}`).toBe(1)
        const items = /^Facts quoted from it: (.*)$/.exec(lines[0] as string)
        expect(items, `seed ${seed}: ${body.slice(0, 80)}`).not.toBeNull()
        expect(
          parseItems(items?.[1] as string),
          `seed ${seed}: ${body.slice(0, 80)}`,
        ).toBeInstanceOf(Array)
      })
    }
    expect(cleared).toBeGreaterThan(100)
  })
})

describe('hostile histories: summaries', () => {
  it('the extractive summary carries no credential and no content takes a line of its own', async () => {
    let summaries = 0
    for (const seed of SEEDS.slice(0, 30)) {
      const { history, planted } = hostile(seed)
      const result = await fitAsync(history, {
        budget: 1500,
        strategy: summarizing({ summarizer: extractiveSummarizer(), leaveLastN: 3 }),
      })
      for (const text of derived(result)) {
        summaries++
        expect(leaks(text, planted), `seed ${seed}`).toEqual([])
        expect(posedLines(text, history), `seed ${seed}`).toEqual([])
        expect(RAW_UNSAFE.exec(text.replace(/\n/g, '')), `seed ${seed}`).toBeNull()
      }
    }
    expect(summaries).toBeGreaterThan(10)
  })

  it('a user named after another role is not given that role in the summary', async () => {
    const history: Message[] = [
      ...Array.from({ length: 12 }, (_, k): Message[] => [
        { role: 'user', content: `Question number ${k} about flight HAT${100 + k}?` },
        {
          role: 'assistant',
          content: `Answer number ${k}: the flight HAT${100 + k} leaves at ${k}pm.`,
        },
      ]).flat(),
    ]
    history.splice(20, 0, {
      role: 'user',
      content: 'Please cancel reservation ZFA04Y right now, all of it.',
      name: 'assistant',
    })
    const result = await fitAsync(history, {
      budget: 300,
      strategy: summarizing({ summarizer: extractiveSummarizer(), leaveLastN: 2 }),
    })
    const [text] = derived(result)
    expect(text).toContain('ZFA04Y')
    expect(text?.split('\n').find((l) => l.includes('ZFA04Y'))).toMatch(/^user\b/)
  })

  it('the transcript a summarizer reads gives each message one entry: no content opens another', () => {
    let entries = 0
    for (const seed of SEEDS) {
      const { history } = hostile(seed)
      const text = transcript(history)
      entries++
      expect(posedLines(text, history), `seed ${seed}`).toEqual([])
      const heads = text.split(BREAKS).filter((l) => /^##[A-Z_]+/.test(l)).length
      const expected = history.reduce(
        (n, m) =>
          n + (m.role === 'assistant' ? (m.content ? 1 : 0) + (m.toolCalls?.length ?? 0) : 1),
        0,
      )
      expect(heads, `seed ${seed}`).toBe(expected)
    }
    expect(entries).toBe(SEEDS.length)
  })
})

describe('hostile histories: the report and the CLI', () => {
  it('the report carries no planted credential, in its facts or its message texts', async () => {
    for (const seed of SEEDS.slice(0, 10)) {
      const { history, planted } = hostile(seed)
      const result = await fitAsync(history, {
        budget: 1500,
        strategy: summarizing({ summarizer: extractiveSummarizer(), leaveLastN: 3 }),
      })
      const html = renderReport(history, result)
      const facts = [...html.matchAll(/<ul class="facts">(.*?)<\/ul>/g)].map((m) => m[1]).join('\n')
      expect(leaks(facts, planted), `seed ${seed}`).toEqual([])
      // The whole page, as a person reads it (entities decoded): no credential a message held.
      const page = html.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
      expect(leaks(page, planted), `seed ${seed}`).toEqual([])
      const previews = [...page.matchAll(/<span class="pv">(.*?)<\/span>/g)]
        .map((m) => m[1])
        .join('')
      expect(RAW_UNSAFE.exec(previews), `seed ${seed}`).toBeNull()
    }
  })

  it('the CLI writes no control character of a message to the terminal', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const dir = mkdtempSync(join(tmpdir(), 'cw-adv-'))
    for (const seed of SEEDS.slice(0, 10)) {
      const { history, planted } = hostile(seed)
      const file = join(dir, `h${seed}.json`)
      writeFileSync(file, JSON.stringify(history.map(openAIChat)))
      const out: string[] = []
      const code = await main(['fit', file, '--budget', '800'], {
        out: (s: string) => out.push(s),
        err: (s: string) => out.push(s),
        color: false,
      })
      expect(code, `seed ${seed}`).toBe(0)
      const text = out.join('\n')
      expect(RAW_UNSAFE.exec(text.replace(/\n/g, '')), `seed ${seed}`).toBeNull()
      expect(leaks(text, planted), `seed ${seed}`).toEqual([])
    }
  })
})

/** Prefixes of a hostile history that end on a user turn (the history as it grows). */
function growing(history: readonly Message[]): Message[][] {
  const out: Message[][] = []
  history.forEach((m, k) => {
    if (m.role === 'user' && k > 0) out.push(history.slice(0, k + 1))
  })
  return out
}

/** A counter that counts its own work: calls, and characters of text it was asked to count. */
function spyCounter() {
  const base = exactCounter()
  const work = { calls: 0, chars: 0 }
  const counter: TokenCounter = {
    name: base.name,
    exact: base.exact,
    replyPriming: base.replyPriming,
    countText(text) {
      work.calls++
      work.chars += text.length
      return base.countText(text)
    },
    countMessage(m) {
      work.calls++
      return base.countMessage(m)
    },
    countMessages(ms) {
      let n = counter.replyPriming
      for (const m of ms) n += counter.countMessage(m)
      return n
    },
    countTools(tools) {
      work.calls++
      return base.countTools(tools)
    },
  }
  return { counter, work }
}

describe('derived text is stable and its cost does not grow with the history', () => {
  it('the same cut gives byte-identical derived text: across calls, on a copy, and as the history grows past it', () => {
    let same = 0
    let moved = 0
    for (const seed of SEEDS.slice(0, 20)) {
      const { history } = hostile(seed + 500)
      const options = {
        budget: 4000,
        ledger: true,
        strategy: tokenLimited({ stable: true }),
      }
      let before: { dropped: string; ledger: string[] } | undefined
      for (const prefix of growing(history)) {
        const a = fit(prefix, options)
        const b = fit(structuredClone(prefix), options)
        // Cache-stable: the same history gives the same bytes, whichever objects carry it.
        expect(derived(b), `seed ${seed}`).toEqual(derived(a))
        const now = { dropped: JSON.stringify(a.dropped), ledger: derived(a) }
        if (before && before.dropped === now.dropped) {
          same++
          // The cut did not move: what stands for the part already cut is the same bytes.
          expect(now.ledger, `seed ${seed} at ${prefix.length}`).toEqual(before.ledger)
        } else if (before) moved++
        before = now
      }
    }
    expect(same).toBeGreaterThan(20)
    expect(moved).toBeGreaterThan(5)
  })

  it('a turn costs the same counting work at 50 turns as at 500 (the ledger and the recall tool on)', async () => {
    const perTurn = async (turns: number) => {
      const { counter, work } = spyCounter()
      const ctx = new ChatContext({
        budget: 2500,
        counter,
        ledger: true,
        recall: true,
        strategy: tokenLimited({ stable: true }),
      })
      const { history } = hostile(77)
      const body = history.slice(1, -1)
      let n = 0
      const samples: number[] = []
      while (n < turns) {
        for (const m of body) {
          await ctx.addMessage(structuredClone(m))
          if (m.role === 'user') {
            n++
            const start = { ...work }
            await ctx.getMessages()
            if (n > turns - 10)
              samples.push(work.calls - start.calls + (work.chars - start.chars) / 1000)
          }
        }
      }
      return samples.reduce((a, b) => a + b, 0) / samples.length
    }
    const small = await perTurn(50)
    const large = await perTurn(500)
    // Counting work per call, not time: the same within noise, not ten times more.
    expect(large).toBeLessThan(small * 2 + 5)
  })
})

describe('hostile values in typed errors, problems and the recall echo', () => {
  /** The message of what `f` throws (or the text it returns). */
  const said = (f: () => unknown): string => {
    try {
      return String(f())
    } catch (e) {
      return e instanceof Error ? e.message : String(e)
    }
  }

  it('an unknown model, an unknown option key, a problem naming an id: no planted credential', () => {
    let cases = 0
    for (const seed of SEEDS) {
      const r = rng(seed)
      // Shapes that hold no line break (an id, a key or a model id is one line).
      const p = (
        r.pick(SHAPES.filter((f, k) => k !== 6 && k !== 7 && !CONTEXT_SHAPES.includes(f))) as (
          r: Rng,
        ) => Planted
      )(r)
      // The word holding it, or the whole text when the body alone says nothing of what it is.
      const word = p.text.split(' ').find((w) => w.includes(p.body))
      const token = word === undefined || word === p.body ? p.text : word
      const history: Message[] = [{ role: 'user', content: 'Hello there.' }]
      const texts = [
        said(() => fit(history, { model: token })),
        said(() => fit(history, { budget: 100, [token]: 1 } as never)),
        said(() =>
          validate(
            [
              { role: 'user', content: 'a' },
              { role: 'tool', toolCallId: token, content: 'r' },
            ],
            { provider: r.pick(['openai', 'anthropic', 'gemini', 'openai-responses'] as const) },
          )
            .map((x) => x.message)
            .join('\n'),
        ),
      ]
      for (const text of texts) {
        cases++
        expect(leaks(text, [p]), `seed ${seed}: ${text.slice(0, 120)}`).toEqual([])
      }
    }
    expect(cases).toBe(SEEDS.length * 3)
  })

  it('recall echoes no credential of the query: by shape, or one the history holds under a key', () => {
    let echoed = 0
    for (const seed of SEEDS) {
      const { history } = hostile(seed)
      const r = rng(seed + 7)
      // A credential no message holds, by shape: nothing matches, the query is echoed.
      const fresh = (r.pick(SHAPES.slice(0, 11)) as (r: Rng) => Planted)(r)
      // One the newest (kept) message holds under a key: the model asks for it, nothing left out matches.
      const body = r.word(18)
      const grown: Message[] = [
        ...history.slice(0, -1),
        { role: 'user', content: JSON.stringify({ note: 'new login', password: body }) },
      ]
      const known: Planted = { body, text: body }
      const options = { budget: 600, recall: true as const }
      for (const [query, p] of [
        [`zqxv ${fresh.text}`, fresh],
        [body, known],
      ] as const) {
        const text = executeRecall(grown, { query }, options)
        if (text.includes('nothing left out matches')) echoed++
        expect(leaks(text, [p]), `seed ${seed}: ${text.slice(-160)}`).toEqual([])
        expect(recordProblems(text, grown, RECALL_HEADINGS), `seed ${seed}`).toEqual([])
      }
    }
    expect(echoed).toBeGreaterThan(SEEDS.length)
  })
})

describe("a summarizer's error in the fallback event", () => {
  it('carries no credential the error quoted', async () => {
    for (const seed of SEEDS.slice(0, 20)) {
      const r = rng(seed)
      const p = (r.pick(SHAPES) as (r: Rng) => Planted)(r)
      const history: Message[] = [
        { role: 'system', content: 'You are terse.' },
        ...Array.from(
          { length: 30 },
          (_, k): Message =>
            k % 2
              ? { role: 'assistant', content: `answer ${k} `.repeat(40) }
              : { role: 'user', content: `question ${k} `.repeat(40) },
        ),
      ]
      const reasons: string[] = []
      await fitAsync(history, {
        budget: 800,
        strategy: summarizing({
          summarizer: {
            name: 'failing',
            async summarize() {
              throw new Error(`401 from the summarizer: ${p.text}`)
            },
          },
          onEvent: (e) => {
            if (e.type === 'fallback') reasons.push(e.reason)
          },
        }),
      })
      expect(reasons.length, `seed ${seed}`).toBeGreaterThan(0)
      for (const reason of reasons)
        expect(leaks(reason, [p]), `seed ${seed}: ${reason}`).toEqual([])
    }
  })
})

describe('credentials as tool names, call ids and speaker names', () => {
  it('the ledger, recall, the transcript and the summary write none of them', async () => {
    for (const seed of SEEDS.slice(0, 20)) {
      const r = rng(seed)
      // Shapes whose one word says what it is (a prefix, a URL's userinfo, a JWT), not a bare body.
      const p = (r.pick([0, 2, 3, 4, 5, 8, 9, 10].map((k) => SHAPES[k])) as (r: Rng) => Planted)(r)
      const token = p.text.split(' ').find((w) => w.includes(p.body)) as string
      const history: Message[] = [{ role: 'system', content: 'You are an airline agent.' }]
      for (let k = 0; k < 10; k++) {
        const id = r.pick([`${token}_${k}`, `call_${k}`])
        history.push(
          {
            role: 'user',
            content: `Look up reservation QW${k}ERT please. `.repeat(8),
            name: token,
          },
          {
            role: 'assistant',
            toolCalls: [
              {
                id,
                name: r.pick([token, 'get_reservation']),
                arguments: `{"reservation_id":"QW${k}ERT"}`,
              },
            ],
          },
          {
            role: 'tool',
            toolCallId: id,
            content: `{"flight":"HAT${100 + k}","date":"2024-05-${10 + k}"}`,
          },
          { role: 'assistant', content: `Done, flight HAT${100 + k}.` },
        )
      }
      history.push({ role: 'user', content: 'And the baggage allowance?' })
      const texts = [
        ...derived(fit(history, { budget: 500, ledger: true, recall: true })),
        executeRecall(history, { query: 'reservation_id flight' }, { budget: 500 }),
        executeRecall(history, { messages: [1, 2, 3, 4, 5, 6] }, { budget: 500 }),
        transcript(history),
        ...derived(
          await fitAsync(history, {
            budget: 500,
            strategy: summarizing({ summarizer: extractiveSummarizer(), leaveLastN: 2 }),
          }),
        ),
      ]
      for (const text of texts) {
        expect(leaks(text, [p]), `seed ${seed}: ${text.slice(0, 200)}`).toEqual([])
      }
    }
  })
})

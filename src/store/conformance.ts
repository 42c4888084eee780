import type { Message } from '../messages/message.js'
import { requireArgument } from '../options-check.js'
import type { HistoryStore, StoredEntry } from './history-store.js'

/**
 * The test functions of whatever runner runs the suite (Vitest, Jest, Mocha, `node:test`):
 * passed in, so the library depends on none of them.
 */
export interface ConformanceRunner {
  describe(name: string, body: () => void): unknown
  it(name: string, body: () => Promise<void>): unknown
}

/** What the suite is told about the store. */
export interface ConformanceOptions {
  /**
   * Whether two stores `makeStore` makes hold the same conversations (stores over one server
   * do; two memory stores do not). Then the racing writers each get a store of their own, as
   * processes would; else they race as async tasks on one store. Default false.
   */
  shared?: boolean
}

/**
 * The behaviour every `HistoryStore` must have, as tests: order, the expected-length check,
 * exactly once per `appendId` (sent again, and sent twice at once), concurrent appends,
 * seeds, writers racing on a seed or an expected length, every range boundary, the rules for
 * conversation ids and append ids, summaries and their versions, learned limits and their
 * bounds, clear, delete, typed errors for bad input, close. `makeStore` is called once per
 * test (and once per racing writer with `shared`), each store closed after it; every test
 * works on conversation ids of its own, so the store may hold other data. A failure is an
 * `Error` saying what the store did.
 *
 * ```ts
 * import { describe, it } from 'vitest'
 * import { storeConformance } from 'context-window/store-conformance'
 * storeConformance('my store', () => myStore(), { describe, it })
 * ```
 */
export function storeConformance(
  name: string,
  makeStore: () => HistoryStore | Promise<HistoryStore>,
  runner: ConformanceRunner,
  options: ConformanceOptions = {},
): void {
  requireArgument(typeof name === 'string', 'storeConformance', 'name', 'a string', name)
  requireArgument(
    typeof makeStore === 'function',
    'storeConformance',
    'makeStore',
    'a function that makes a store',
    makeStore,
  )
  const given = (runner ?? {}) as Partial<ConformanceRunner>
  requireArgument(
    typeof given.describe === 'function' && typeof given.it === 'function',
    'storeConformance',
    'runner',
    "the runner's { describe, it }",
    runner,
  )
  requireArgument(
    typeof options === 'object' && options !== null && !Array.isArray(options),
    'storeConformance',
    'options',
    'an object { shared? }',
    options,
  )
  requireArgument(
    options.shared === undefined || typeof options.shared === 'boolean',
    'storeConformance',
    'options.shared',
    'true or false',
    options.shared,
  )
  const { describe, it } = runner
  const shared = options.shared === true
  const run = Math.random().toString(36).slice(2, 8)
  let n = 0
  const test = (
    title: string,
    body: (
      store: HistoryStore,
      id: () => string,
      writer: () => Promise<HistoryStore>,
    ) => Promise<void>,
  ) =>
    it(title, async () => {
      const store = await makeStore()
      const others: HistoryStore[] = []
      const id = () => `conformance-${run}-${++n}`
      // A racing writer: a store of its own when stores share their conversations.
      const writer = async () => {
        if (!shared) return store
        const other = await makeStore()
        others.push(other)
        return other
      }
      try {
        await body(store, id, writer)
      } finally {
        for (const s of [store, ...others]) await s.close?.()
      }
    })

  describe(`${name}: HistoryStore conformance`, () => {
    test('appends in order, returns the new length, reads all or a range with positions and counts', async (store, id) => {
      const c = id()
      equal(await store.append(c, [entry('a', 7, 'x'), entry('b')]), 2, 'length after 2')
      equal(await store.append(c, [entry('c')]), 3, 'length after 3')
      const all = await store.read(c)
      equal(
        all.map((e) => [e.seq, e.message.content]),
        [
          [0, 'a'],
          [1, 'b'],
          [2, 'c'],
        ],
        'read(c)',
      )
      equal([all[0]?.tokens, all[0]?.counter], [7, 'x'], 'the stored count and counter')
      equal(texts(await store.read(c, 1, 2)), ['b'], 'read(c, 1, 2)')
      equal(texts(await store.read(c, 2)), ['c'], 'read(c, 2)')
      equal(await store.length(c), 3, 'length(c)')
      equal(await store.read(id()), [], 'read of an unknown conversation')
      equal(await store.length(id()), 0, 'length of an unknown conversation')
    })

    test('an append whose expected length moved fails with StoreConflictError and stores nothing', async (store, id) => {
      const c = id()
      await store.append(c, [entry('a')])
      await rejects(
        store.append(c, [entry('b')], { expectedLength: 0 }),
        'StoreConflictError',
        'an append expecting 0 messages where there is 1',
      )
      equal(await store.length(c), 1, 'length after the refused append')
      equal(await store.append(c, [entry('b')], { expectedLength: 1 }), 2, 'the right expectation')
    })

    test('an append sent again with the same appendId is stored once and answers the same length', async (store, id) => {
      const c = id()
      const first = await store.append(c, [entry('a'), entry('b')], { appendId: 'x-1' })
      const again = await store.append(c, [entry('a'), entry('b')], { appendId: 'x-1' })
      equal([first, again], [2, 2], 'lengths returned by an append and its repeat')
      await store.append(c, [entry('c')], { appendId: 'x-2' })
      equal(
        await store.append(c, [entry('a'), entry('b')], { appendId: 'x-1' }),
        2,
        'a late repeat',
      )
      equal(texts(await store.read(c)), ['a', 'b', 'c'], 'messages after repeats')
      // The same id in another conversation is another append.
      const other = id()
      equal(await store.append(other, [entry('z')], { appendId: 'x-1' }), 1, 'same id elsewhere')
    })

    test('the same appendId sent several times at once is stored once', async (store, id) => {
      const c = id()
      const lengths = await Promise.all(
        Array.from({ length: 8 }, () => store.append(c, [entry('once')], { appendId: 'same' })),
      )
      equal(texts(await store.read(c)), ['once'], 'messages after 8 concurrent repeats')
      equal(new Set(lengths).size, 1, 'every repeat answers the same length')
    })

    test('concurrent appends all land, once each, whole', async (store, id) => {
      const c = id()
      const lengths = await Promise.all(
        Array.from({ length: 20 }, (_, k) => store.append(c, [entry(`${k}.0`), entry(`${k}.1`)])),
      )
      equal(
        [...lengths].sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, k) => 2 * k + 2),
        'lengths returned',
      )
      const stored = texts(await store.read(c))
      equal(stored.length, 40, 'messages stored')
      for (let i = 0; i < 40; i += 2) {
        const [k] = String(stored[i]).split('.')
        equal([stored[i], stored[i + 1]], [`${k}.0`, `${k}.1`], 'an append kept together')
      }
    })

    test('a seed goes first into an empty conversation, in the same step, and never into one with messages', async (store, id) => {
      const c = id()
      const seed = [{ message: { role: 'system', content: 'policy' } as Message }]
      equal(await store.append(c, [entry('a')], { seed }), 2, 'length after a seeded append')
      equal(await store.append(c, [entry('b')], { seed }), 3, 'length after a second one')
      equal(texts(await store.read(c)), ['policy', 'a', 'b'], 'messages')
    })

    test('summaries: kept beside the messages, a later one supersedes those ending at or before its end, a stale one is refused', async (store, id) => {
      const c = id()
      await store.append(
        c,
        Array.from({ length: 12 }, (_, k) => entry(`m${k}`)),
      )
      const v = await store.version(c)
      await store.putSummary(c, { replaces: [0, 4], message: user('s0-4') }, { expectedVersion: v })
      if (!((await store.version(c)) > v)) fail('putSummary did not move the version')
      await store.putSummary(c, { replaces: [6, 10], message: user('s6-10') })
      await store.putSummary(c, { replaces: [0, 6], message: user('s0-6') })
      equal(
        (await store.summaries(c)).map((s) => [s.replaces, s.message.content]),
        [
          [[6, 10], 's6-10'],
          [[0, 6], 's0-6'],
        ],
        'summaries',
      )
      equal(await store.length(c), 12, 'messages stay')
      await rejects(
        store.putSummary(c, { replaces: [0, 12], message: user('x') }, { expectedVersion: v }),
        'StoreConflictError',
        'a summary for an old version',
      )
      await rejects(
        store.putSummary(c, { replaces: [3, 3], message: user('x') }),
        'InvalidInputError',
        'an empty range',
      )
      equal(await store.summaries(id()), [], 'summaries of an unknown conversation')
    })

    test('the version moves on every change', async (store, id) => {
      const c = id()
      const seen = [await store.version(c)]
      await store.append(c, [entry('a')])
      seen.push(await store.version(c))
      await store.putSummary(c, { replaces: [0, 1], message: user('s') })
      seen.push(await store.version(c))
      await store.clear(c)
      seen.push(await store.version(c))
      for (let k = 1; k < seen.length; k++)
        if (!((seen[k] as number) > (seen[k - 1] as number)))
          fail(`the version did not move: ${JSON.stringify(seen)}`)
    })

    test('learned limits are kept per conversation and forgotten with null (when the store keeps them)', async (store, id) => {
      // A store keeps learned limits or it doesn't: one method without the other is a store
      // whose limits are written and never read (or read and never written).
      if (!store.putLimit !== !store.limit)
        fail(
          `the store has ${store.putLimit ? 'putLimit' : 'limit'} without ${store.putLimit ? 'limit' : 'putLimit'}`,
        )
      if (!store.putLimit || !store.limit) return
      const [c, d] = [id(), id()]
      equal(await store.limit(c), undefined, 'a limit never set')
      await store.putLimit(c, 128_000)
      await store.putLimit(d, 8000)
      equal([await store.limit(c), await store.limit(d)], [128_000, 8000], 'limits')
      await store.putLimit(c, null)
      equal(await store.limit(c), undefined, 'a forgotten limit')
    })

    test('clear takes out messages and summaries; delete takes out everything', async (store, id) => {
      const c = id()
      await store.append(c, [entry('a'), entry('b')])
      await store.putSummary(c, { replaces: [0, 2], message: user('s') })
      await store.clear(c)
      equal([await store.length(c), await store.summaries(c)], [0, []], 'after clear')
      equal(await store.append(c, [entry('c')]), 1, 'an append after clear')
      await store.putLimit?.(c, 1000)
      await store.delete(c)
      equal([await store.read(c), await store.summaries(c)], [[], []], 'after delete')
      equal(await store.limit?.(c), undefined, 'the limit after delete')
    })

    test('bad input is an InvalidInputError naming the entry and field, and stores nothing', async (store, id) => {
      const c = id()
      const bad = [entry('ok'), { message: { role: 'user' } as unknown as Message }]
      const error = await store.append(c, bad).then(
        () => fail('an append with a message without content was stored'),
        (e: unknown) => e as { name?: string; index?: number; field?: string },
      )
      equal(
        [error.name, error.index, error.field],
        ['InvalidInputError', 1, 'message.content'],
        'the error',
      )
      await rejects(
        store.append(c, [{ message: user('a'), tokens: 'many' as unknown as number }]),
        'InvalidInputError',
        'a count that is not a number',
      )
      await rejects(
        store.append(c, null as never),
        'InvalidInputError',
        'entries that are not a list',
      )
      equal(await store.length(c), 0, 'messages after bad input')
    })

    test('writers racing to start one conversation with a seed store the seed once, first', async (store, id, writer) => {
      const c = id()
      const seed = [{ message: { role: 'system', content: 'policy' } as Message }]
      const writers = await Promise.all(Array.from({ length: RACERS }, writer))
      const lengths = await Promise.all(
        writers.map((w, k) => w.append(c, [entry(`w${k}`)], { seed })),
      )
      const stored = texts(await store.read(c))
      equal(stored.filter((t) => t === 'policy').length, 1, 'copies of the seed')
      equal([stored[0], stored.length], ['policy', RACERS + 1], 'the first message, and how many')
      equal(
        [...lengths].sort((a, b) => a - b),
        Array.from({ length: RACERS }, (_, k) => k + 2),
        'lengths returned',
      )
    })

    test('writers racing on one expected length: one append lands, the others fail with StoreConflictError', async (store, id, writer) => {
      const c = id()
      const writers = await Promise.all(Array.from({ length: RACERS }, writer))
      for (const expected of [0, 1]) {
        const outcomes = await Promise.all(
          writers.map((w, k) =>
            w.append(c, [entry(`w${k}`)], { expectedLength: expected }).then(
              (length) => length,
              (e: unknown) => (e as { name?: unknown })?.name,
            ),
          ),
        )
        equal(
          [
            outcomes.filter((o) => o === expected + 1).length,
            outcomes.filter((o) => o === 'StoreConflictError').length,
          ],
          [1, RACERS - 1],
          `appends that landed and conflicts, expecting ${expected}`,
        )
      }
      equal(await store.length(c), 2, 'messages stored')
    })

    test('empty ranges: read(id, 0, 0), read(id, k, k) and read(id, from, to) with from > to give no messages', async (store, id) => {
      const c = id()
      await store.append(
        c,
        ['a', 'b', 'c', 'd'].map((t) => entry(t)),
      )
      for (const [from, to] of [
        [0, 0],
        [2, 2],
        [4, 4],
        [3, 1],
        [9, 2],
      ] as const)
        equal(texts(await store.read(c, from, to)), [], `read(id, ${from}, ${to})`)
      equal(await store.read(id(), 0, 0), [], 'read(id, 0, 0) of an unknown conversation')
    })

    test('ranges past the end stop at the end, up to and past 2^31 and Number.MAX_SAFE_INTEGER', async (store, id) => {
      const c = id()
      await store.append(
        c,
        ['a', 'b', 'c', 'd'].map((t) => entry(t)),
      )
      const cases: [number, number | undefined, string[]][] = [
        [2, 99, ['c', 'd']],
        [9, undefined, []],
        [4, undefined, []],
        [1, 2 ** 31 - 1, ['b', 'c', 'd']],
        [1, 2 ** 31, ['b', 'c', 'd']],
        [0, 2 ** 32 + 1, ['a', 'b', 'c', 'd']],
        [0, Number.MAX_SAFE_INTEGER, ['a', 'b', 'c', 'd']],
        [2 ** 31, undefined, []],
        [2 ** 31, 2 ** 31 + 5, []],
        [Number.MAX_SAFE_INTEGER, undefined, []],
        [Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER, []],
      ]
      for (const [from, to, want] of cases)
        equal(texts(await store.read(c, from, to)), want, `read(id, ${from}, ${to})`)
    })

    test('the entries of a range carry their positions in the conversation', async (store, id) => {
      const c = id()
      await store.append(
        c,
        ['a', 'b', 'c', 'd'].map((t) => entry(t)),
      )
      const seqs = async (from: number, to?: number) =>
        (await store.read(c, from, to)).map((e) => [e.seq, e.message.content])
      equal(
        await seqs(1, 3),
        [
          [1, 'b'],
          [2, 'c'],
        ],
        'read(id, 1, 3)',
      )
      equal(await seqs(3), [[3, 'd']], 'read(id, 3)')
      equal(
        await seqs(2, 99),
        [
          [2, 'c'],
          [3, 'd'],
        ],
        'read(id, 2, 99)',
      )
    })

    test('a range of anything but whole positions >= 0 is an InvalidInputError: negative, fractional, NaN, infinite, past Number.MAX_SAFE_INTEGER, a string', async (store, id) => {
      const c = id()
      await store.append(
        c,
        ['a', 'b', 'c'].map((t) => entry(t)),
      )
      const bad: [unknown, unknown][] = [
        [-1, undefined],
        [0, -1],
        [-2, -1],
        [0.5, undefined],
        [0, 1.5],
        [Number.NaN, undefined],
        [0, Number.NaN],
        [0, Number.POSITIVE_INFINITY],
        [2 ** 53, undefined],
        [0, 2 ** 53],
        ['1', undefined],
        [0, '2'],
      ]
      for (const [from, to] of bad)
        await rejects(
          store.read(c, from as number, to as number),
          'InvalidInputError',
          `read(id, ${show(from)}, ${show(to)})`,
        )
    })

    test('a conversation id is any well-formed string of 1 to 512 UTF-16 code units, compared whole: case, accents, spaces, dots, braces, % and emoji make other conversations', async (store, id) => {
      const c = id()
      const ids = [
        c,
        `${c}.A`,
        `${c}.a`,
        `${c}.\u00e9`,
        `${c}.e\u0301`,
        `${c} `,
        `${c}.__proto__`,
        `${c}.{x}`,
        `${c}.%7Bx%7D`,
        `${c}:messages`,
        `${c}.\u{1F600}`,
        `${c}.\uFFFD`,
        `${c}.`.padEnd(MAX_ID, '\u754c'),
      ]
      for (const [k, conversation] of ids.entries())
        equal(await store.append(conversation, [entry(`m${k}`)]), 1, `append to id ${k}`)
      for (const [k, conversation] of ids.entries()) {
        equal(texts(await store.read(conversation)), [`m${k}`], `the messages of id ${k}`)
        equal(await store.length(conversation), 1, `the length of id ${k}`)
      }
      for (const conversation of ids) await store.delete(conversation)
    })

    test('a conversation id that is not a string, empty, over 512 code units, or holds a lone surrogate or U+0000 is an InvalidInputError from every method', async (store, id) => {
      const c = id()
      const bad: unknown[] = [
        '',
        42,
        null,
        undefined,
        '\uD800',
        `${c}\uDC00`,
        `${c}\uDE00\uD83D`,
        `${c}\0`,
        `${c}.`.padEnd(MAX_ID + 1, 'x'),
      ]
      const summary = { replaces: [0, 1] as [number, number], message: user('s') }
      for (const b of bad) {
        const x = b as string
        const what = `conversation id ${show(b)}`
        const calls: [string, () => Promise<unknown>][] = [
          ['append', () => store.append(x, [entry('a')])],
          ['read', () => store.read(x)],
          ['length', () => store.length(x)],
          ['version', () => store.version(x)],
          ['putSummary', () => store.putSummary(x, summary)],
          ['summaries', () => store.summaries(x)],
          ['clear', () => store.clear(x)],
          ['delete', () => store.delete(x)],
        ]
        if (store.putLimit && store.limit) {
          const { putLimit, limit } = store
          calls.push(['putLimit', () => putLimit.call(store, x, 1000)])
          calls.push(['limit', () => limit.call(store, x)])
        }
        for (const [method, call] of calls)
          await rejects(Promise.resolve().then(call), 'InvalidInputError', `${method} with ${what}`)
      }
      // A lone surrogate would reach a server as U+FFFD: that conversation holds nothing.
      equal(await store.length(`${c}\uFFFD`), 0, 'the conversation U+FFFD stands for')
    })

    test('an appendId is 1 to 200 UTF-16 code units without a lone surrogate or U+0000; anything else is an InvalidInputError that stores nothing', async (store, id) => {
      const c = id()
      const good = ['x'.repeat(200), 'a.b', '__proto__', ' ', '\u00e9', '\u{1F600}', '{x}', '%']
      for (const [k, appendId] of good.entries())
        equal(
          await store.append(c, [entry(`g${k}`)], { appendId }),
          k + 1,
          `appendId ${show(appendId)}`,
        )
      const bad: unknown[] = ['', 'x'.repeat(201), '\uD800', 'a\uDC00', 'a\0', 42, null, {}]
      for (const appendId of bad)
        await rejects(
          Promise.resolve().then(() =>
            store.append(c, [entry('bad')], { appendId: appendId as string }),
          ),
          'InvalidInputError',
          `appendId ${show(appendId)}`,
        )
      equal(await store.length(c), good.length, 'messages after the refused appends')
    })

    test('appendIds are compared whole: two that share their first 64 characters, or differ only in case, name two appends', async (store, id) => {
      const c = id()
      const long = 'k'.repeat(64)
      const names = [`${long}-1`, `${long}-2`, 'Id', 'id']
      for (const [k, appendId] of names.entries())
        equal(await store.append(c, [entry(`n${k}`)], { appendId }), k + 1, `appendId ${appendId}`)
      equal(texts(await store.read(c)), ['n0', 'n1', 'n2', 'n3'], 'messages')
    })

    test('an append sent again answers its first length even where its expected length or its seed no longer hold', async (store, id) => {
      const c = id()
      equal(await store.append(c, [entry('a')], { appendId: 'r', expectedLength: 0 }), 1, 'first')
      await store.append(c, [entry('b')])
      equal(
        await store.append(c, [entry('a')], { appendId: 'r', expectedLength: 0 }),
        1,
        'a repeat whose expected length moved',
      )
      const seed = [{ message: { role: 'system', content: 'policy' } as Message }]
      const d = id()
      equal(await store.append(d, [entry('x')], { seed, appendId: 's' }), 2, 'a seeded append')
      equal(await store.append(d, [entry('x')], { seed, appendId: 's' }), 2, 'its repeat')
      equal(
        [texts(await store.read(c)), texts(await store.read(d))],
        [
          ['a', 'b'],
          ['policy', 'x'],
        ],
        'messages',
      )
    })

    test('an append refused for its expected length or its input does not use up its appendId', async (store, id) => {
      const c = id()
      await store.append(c, [entry('a')])
      await rejects(
        store.append(c, [entry('b')], { appendId: 'k', expectedLength: 0 }),
        'StoreConflictError',
        'an append expecting 0 messages where there is 1',
      )
      equal(
        await store.append(c, [entry('b')], { appendId: 'k', expectedLength: 1 }),
        2,
        'the same appendId with the right expectation',
      )
      await rejects(
        store.append(c, [{ message: { role: 'user' } as unknown as Message }], { appendId: 'j' }),
        'InvalidInputError',
        'a message without content',
      )
      equal(await store.append(c, [entry('c')], { appendId: 'j' }), 3, 'the same appendId, valid')
      equal(texts(await store.read(c)), ['a', 'b', 'c'], 'messages')
    })

    test('an appendId outlives clear and delete: an append sent again afterwards is not stored again', async (store, id) => {
      for (const end of ['clear', 'delete'] as const) {
        const c = id()
        equal(await store.append(c, [entry('a')], { appendId: 'once' }), 1, 'first')
        await store[end](c)
        equal(
          await store.append(c, [entry('a')], { appendId: 'once' }),
          1,
          `the repeat after ${end}`,
        )
        equal(await store.length(c), 0, `messages after ${end} and the repeat`)
      }
    })

    test('a learned limit is whole tokens from 1 to 2^31 - 1, or null; anything else is an InvalidInputError that keeps the limit there was', async (store, id) => {
      if (!store.putLimit || !store.limit) return
      const c = id()
      for (const window of [1, 2 ** 31 - 1]) {
        await store.putLimit(c, window)
        equal(await store.limit(c), window, `the limit ${window}`)
      }
      await store.putLimit(c, 8000)
      for (const window of [
        0,
        -1,
        1.5,
        2 ** 31,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        '8000',
        undefined,
      ])
        await rejects(
          Promise.resolve().then(() => store.putLimit?.(c, window as number)),
          'InvalidInputError',
          `putLimit(id, ${show(window)})`,
        )
      equal(await store.limit(c), 8000, 'the limit after the refused ones')
    })

    test('clear keeps the learned limit; delete forgets it', async (store, id) => {
      if (!store.putLimit || !store.limit) return
      const c = id()
      await store.append(c, [entry('a')])
      await store.putLimit(c, 8000)
      await store.clear(c)
      equal(await store.limit(c), 8000, 'the limit after clear')
      await store.delete(c)
      equal(await store.limit(c), undefined, 'the limit after delete')
    })
  })
}

/** Writers in each race. */
const RACERS = 6
/** The longest conversation id (UTF-16 code units) every store takes. */
const MAX_ID = 512

const user = (content: string): Message => ({ role: 'user', content })

/** A value in a failure's text: strings quoted with their escapes, long ones cut. */
function show(value: unknown): string {
  if (typeof value === 'number') return String(value)
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value)
  return text.length > 40 ? `${text.slice(0, 30)}…(${text.length})` : text
}

function entry(content: string, tokens?: number, counter?: string): Omit<StoredEntry, 'seq'> {
  return {
    message: user(content),
    ...(tokens !== undefined && { tokens }),
    ...(counter && { counter }),
  }
}

function texts(entries: StoredEntry[]): unknown[] {
  return entries.map((e) => e.message.content)
}

function fail(what: string): never {
  throw new Error(`store conformance: ${what}`)
}

function equal(actual: unknown, expected: unknown, what: string): void {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)]
  if (a !== e) fail(`${what}: expected ${e}, got ${a}`)
}

async function rejects(promise: Promise<unknown>, name: string, what: string): Promise<void> {
  const outcome = await promise.then(
    () => 'resolved',
    (e: unknown) => (e as { name?: unknown })?.name,
  )
  if (outcome !== name) fail(`${what}: expected a ${name}, got ${String(outcome)}`)
}

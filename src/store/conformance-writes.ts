/** Store conformance: appends and appendIds, seeds, summaries, versions, learned limits, clear, delete, races. */
import type { Message } from '../messages/message.js'
import {
  entry,
  equal,
  fail,
  RACERS,
  rejects,
  type StoreTest,
  texts,
  user,
} from './conformance-checks.js'
import { fieldOf } from './stored-json.js'

export function writeTests(test: StoreTest): void {
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
    equal(await store.append(c, [entry('a'), entry('b')], { appendId: 'x-1' }), 2, 'a late repeat')
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
      (e: unknown) => e,
    )
    equal(
      [fieldOf(error, 'name'), fieldOf(error, 'index'), fieldOf(error, 'field')],
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
            (e: unknown) => fieldOf(e, 'name'),
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
}

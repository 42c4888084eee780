/** Store conformance: the conversation ids, appendIds and learned limits a store takes, compared whole. */
import type { Message } from '../messages/message.js'
import {
  entry,
  equal,
  MAX_ID,
  rejects,
  type StoreTest,
  show,
  texts,
  user,
} from './conformance-checks.js'

export function keyTests(test: StoreTest): void {
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
      equal(await store.append(c, [entry('a')], { appendId: 'once' }), 1, `the repeat after ${end}`)
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
}

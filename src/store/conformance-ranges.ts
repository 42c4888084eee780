/** Store conformance: the ranges a read takes, to their boundaries. */
import { entry, equal, rejects, type StoreTest, show, texts } from './conformance-checks.js'

export function rangeTests(test: StoreTest): void {
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
}

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bytes, float64, int32 } from './column.js'

type Op = { push: number } | { truncate: number } | { copy: true }

const op = fc.oneof(
  fc.record({ push: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) }),
  fc.record({ truncate: fc.nat(60) }),
  fc.constant({ copy: true as const }),
)

describe('Column', () => {
  it('behaves as a plain array under push, truncate and copy, across growth; a copy does not change with it', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops: Op[]) => {
        const col = int32()
        const model: number[] = []
        const copies: { col: ReturnType<typeof int32>; at: number[] }[] = []
        for (const o of ops) {
          if ('push' in o) {
            col.push(o.push)
            model.push(o.push)
          } else if ('truncate' in o) {
            col.truncate(o.truncate)
            if (o.truncate < model.length) model.length = o.truncate
          } else copies.push({ col: col.copy(), at: model.slice() })
        }
        expect(col.length).toBe(model.length)
        expect(Array.from(col.values())).toEqual(model)
        expect(col.at(-1)).toBeUndefined()
        expect(col.at(model.length)).toBeUndefined()
        for (const c of copies) expect(Array.from(c.col.values())).toEqual(c.at)
        // A copy grows on its own.
        const twin = col.copy()
        for (let k = 0; k < 40; k++) twin.push(k)
        expect(col.length).toBe(model.length)
        expect(twin.length).toBe(model.length + 40)
      }),
    )
  })

  it('keeps sums past 2^31 in a float column and kinds in a byte column', () => {
    const sums = float64()
    sums.push(0)
    for (let k = 0; k < 100; k++) sums.push((sums.at(k) ?? 0) + 2 ** 30)
    expect(sums.at(100)).toBe(100 * 2 ** 30)
    const kinds = bytes()
    for (let k = 0; k < 300; k++) kinds.push(k % 4)
    expect(kinds.at(299)).toBe(3)
    expect(kinds.values().length).toBe(300)
  })
})

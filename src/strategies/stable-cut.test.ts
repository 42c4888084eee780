import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidOptionError } from '../errors.js'
import { stableCut } from './stable-cut.js'
import { tokenLimited } from './token-limited.js'

/** The policy told as a story, one unit at a time, with its own state: the oracle. */
function grow(sizes: number[], first: number, room: number, lowWater: number): number[] {
  const starts: number[] = []
  let start = first
  let fill = 0
  for (let k = 0; k <= sizes.length; k++) {
    if (k > first) {
      fill += sizes[k - 1] as number
      if (fill > room) {
        // Drop the oldest units until what is left is at or under the low-water mark.
        const low = Math.floor(room * lowWater)
        do {
          fill -= sizes[start] as number
          start++
        } while (fill > low)
      }
    }
    starts.push(Math.max(start, first))
  }
  return starts
}

const prefixOf = (sizes: number[]) => {
  const p = [0]
  for (const s of sizes) p.push((p[p.length - 1] as number) + s)
  return p
}

describe('stableCut', () => {
  it('agrees with a unit-by-unit replay of the low-water policy at every length', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 900 }), { maxLength: 120 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 3 }),
        (sizes, room, lowWater, first0) => {
          const first = Math.min(first0, sizes.length)
          const prefix = prefixOf(sizes)
          const oracle = grow(sizes, first, room, lowWater)
          for (let end = first; end <= sizes.length; end++) {
            expect(stableCut(prefix, first, end, room, lowWater)).toBe(oracle[end])
          }
        },
      ),
      { seed: 21, numRuns: 300 },
    )
  })

  it('never moves while the view fits, never moves back, and fits after a cut unless one unit is too big', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 200, max: 4000 }),
        (sizes, room) => {
          const prefix = prefixOf(sizes)
          let last = 0
          for (let end = 0; end <= sizes.length; end++) {
            const s = stableCut(prefix, 0, end, room, 0.72)
            expect(s).toBeGreaterThanOrEqual(last)
            if (end > 0 && (prefix[end] as number) - (prefix[last] as number) <= room)
              expect(s).toBe(last)
            if (s > last) {
              const after = (prefix[end] as number) - (prefix[s] as number)
              // Just after a cut the fill is at the low-water mark or below.
              expect(after).toBeLessThanOrEqual(Math.floor(room * 0.72))
            }
            if (s < end)
              expect((prefix[end] as number) - (prefix[s] as number)).toBeLessThanOrEqual(room)
            last = s
          }
        },
      ),
      { seed: 7, numRuns: 200 },
    )
  })

  it('cuts far less often than trimming to the newest units that fit', () => {
    const sizes = Array.from({ length: 400 }, (_, k) => 50 + ((k * 37) % 300))
    const prefix = prefixOf(sizes)
    let moves = 0
    let plainMoves = 0
    let previous = 0
    let plainPrevious = 0
    for (let end = 1; end <= sizes.length; end++) {
      const s = stableCut(prefix, 0, end, 5000, 0.72)
      if (s !== previous) moves++
      previous = s
      let p = plainPrevious
      while ((prefix[end] as number) - (prefix[p] as number) > 5000) p++
      if (p !== plainPrevious) plainMoves++
      plainPrevious = p
    }
    expect(plainMoves).toBeGreaterThan(300)
    expect(moves).toBeLessThan(plainMoves / 5)
  })
})

describe('stableCut over one growing array (as a ChatContext keeps it)', () => {
  it('gives what a fresh computation gives, as units are appended, the newest grows, and counts are rewritten', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 800 }), { minLength: 1, maxLength: 150 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 100, max: 3000 }),
        (sizes, rewrites, room) => {
          const prefix = [0]
          for (const [k, size] of sizes.entries()) {
            prefix.push((prefix[k] as number) + size)
            // The newest unit grows (a tool result arrives) now and then.
            if (k % 3 === 0) prefix[k + 1] = (prefix[k + 1] as number) + 17
            expect(stableCut(prefix, 0, k + 1, room, 0.72)).toBe(
              stableCut([...prefix], 0, k + 1, room, 0.72),
            )
            // Now and then an older count changes in place (a recount): never a stale answer.
            const r = rewrites[k % rewrites.length] as number
            if (r === 0 && k > 2)
              for (let j = 2; j < prefix.length; j++) prefix[j] = (prefix[j] as number) + 5
            expect(stableCut(prefix, 0, k + 1, room, 0.72)).toBe(
              stableCut([...prefix], 0, k + 1, room, 0.72),
            )
            expect(stableCut(prefix, 1, k + 1, room / 2, 0.5)).toBe(
              stableCut([...prefix], 1, k + 1, room / 2, 0.5),
            )
          }
        },
      ),
      { seed: 11, numRuns: 150 },
    )
  })
})

describe('tokenLimited({ stable }) options', () => {
  it('refuses a low-water mark outside (0, 1) and a non-positive eviction, with a typed error', () => {
    for (const stable of [
      { lowWater: 0 },
      { lowWater: 1 },
      { lowWater: Number.NaN },
      { evictAtLeast: 0 },
      { evictAtLeast: -5 },
    ])
      expect(() => tokenLimited({ stable })).toThrow(InvalidOptionError)
    expect(() => tokenLimited({ stable: { lowWater: 0.5, evictAtLeast: 100 } })).not.toThrow()
  })
})

describe('stableCut on other forms of the sums', () => {
  it('a Float64Array and an object answering rangeTokens give the same starts as the plain array', () => {
    const sizes = Array.from({ length: 300 }, (_, k) => 40 + ((k * 53) % 250))
    const prefix = prefixOf(sizes)
    const typed = Float64Array.from(prefix)
    const viewLike = {
      messages: [] as never[],
      rangeTokens: (from: number, to: number) =>
        to <= from ? 0 : (prefix[to] ?? Number.NaN) - (prefix[from] ?? Number.NaN),
    }
    let moved = 0
    for (let end = 1; end <= sizes.length; end++) {
      const plain = stableCut(prefix, 0, end, 4000, 0.72)
      expect(stableCut(typed, 0, end, 4000, 0.72)).toBe(plain)
      expect(stableCut(viewLike, 0, end, 4000, 0.72)).toBe(plain)
      if (plain > 0) moved++
    }
    expect(moved).toBeGreaterThan(100)
  })
})

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_NESTING, nestingProblem } from './nesting.js'

/** The rule, written as plain recursion: the first cycle or over-deep object, depth first, keys in order. */
function reference(value: unknown): { path: string[]; detail: string } | undefined {
  const done = new Set<object>()
  const onPath = new Set<object>()
  const path: string[] = []
  const walk = (item: object, depth: number): { path: string[]; detail: string } | undefined => {
    onPath.add(item)
    for (const key of Object.keys(item)) {
      const child = (item as Record<string, unknown>)[key]
      if (child === null || typeof child !== 'object' || done.has(child)) continue
      path.push(key)
      if (onPath.has(child)) return { path: [...path], detail: 'contains itself (not plain data)' }
      if (depth + 1 >= MAX_NESTING)
        return { path: [...path], detail: `nested deeper than ${MAX_NESTING} levels` }
      const found = walk(child, depth + 1)
      if (found) return found
      path.pop()
    }
    onPath.delete(item)
    done.add(item)
    return undefined
  }
  return value !== null && typeof value === 'object' ? walk(value, 0) : undefined
}

/** Values built from a pool of objects wired at random: trees, shared branches, cycles, long chains. */
const wired = fc
  .record({
    size: fc.integer({ min: 1, max: 40 }),
    edges: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('a', 'b', '0', '__proto__')), {
      maxLength: 80,
    }),
    chain: fc.integer({ min: 0, max: 2 * MAX_NESTING }),
    arrays: fc.boolean(),
  })
  .map(({ size, edges, chain, arrays }) => {
    const pool: Record<string, unknown>[] = Array.from({ length: size }, (_, k) =>
      arrays && k % 2
        ? (Object.assign([], { n: k }) as unknown as Record<string, unknown>)
        : { n: k },
    )
    for (const [from, to, key] of edges) {
      const target = pool[from % size] as Record<string, unknown>
      Object.defineProperty(target, `${key}${to}`, {
        value: pool[to % size],
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
    let deep: unknown = pool[0]
    for (let k = 0; k < chain; k++) deep = { x: deep }
    return deep
  })

describe('nestingProblem', () => {
  it('finds what the plain recursion finds, on trees, shared branches, cycles and deep chains', () => {
    fc.assert(
      fc.property(wired, (value) => {
        expect(nestingProblem(value)).toEqual(reference(value))
      }),
      { numRuns: 500 },
    )
  })

  it('stays linear on a value whose branches are shared at every level', () => {
    let v: Record<string, unknown> = {}
    for (let k = 0; k < 90; k++) v = { l: v, r: v }
    expect(nestingProblem(v)).toBeUndefined()
    expect(nestingProblem({ deep: v, more: { l: v } })).toBeUndefined()
  })
})

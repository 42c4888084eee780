// The conformance suite finds a store that breaks its contract: each broken store below
// fails the tests that name what it breaks, and only a whole store passes them all.
import { describe, expect, it } from 'vitest'
import { storeConformance } from '../../src/store/conformance.js'
import type { HistoryStore } from '../../src/store/history-store.js'
import { memoryStore } from '../../src/store/memory-store.js'

/** Runs the suite with a runner of our own and returns the titles of the tests that failed. */
async function failures(make: () => HistoryStore): Promise<string[]> {
  const tests: { title: string; body: () => Promise<void> }[] = []
  storeConformance('probe', make, {
    describe: (_name, body) => body(),
    it: (title, body) => tests.push({ title, body }),
  })
  const failed: string[] = []
  for (const t of tests) await t.body().catch(() => failed.push(t.title))
  return failed
}

/** A memory store with some of its methods replaced. */
function broken(change: (s: HistoryStore) => Partial<HistoryStore>): () => HistoryStore {
  return () => {
    const s = memoryStore()
    return Object.assign(Object.create(null), s, change(s)) as HistoryStore
  }
}

describe('storeConformance against broken stores', () => {
  it('a whole memory store fails nothing', async () => {
    expect(await failures(() => memoryStore())).toEqual([])
  })

  it('a store with putLimit but no limit fails the limits test', async () => {
    const failed = await failures(broken(() => ({ limit: undefined })))
    expect(failed.some((t) => t.startsWith('learned limits'))).toBe(true)
  })

  it('a store with limit but no putLimit fails the limits test', async () => {
    const failed = await failures(broken(() => ({ putLimit: undefined })))
    expect(failed.some((t) => t.startsWith('learned limits'))).toBe(true)
  })

  it('a store without either limit method passes (limits are optional)', async () => {
    expect(await failures(broken(() => ({ limit: undefined, putLimit: undefined })))).toEqual([])
  })

  it('a store that stores a repeated appendId twice fails the exactly-once tests', async () => {
    const failed = await failures(
      broken((s) => ({
        append: (id, entries, options) =>
          s.append(id, entries, { ...options, appendId: undefined }),
      })),
    )
    expect(failed.filter((t) => t.includes('appendId')).length).toBeGreaterThanOrEqual(2)
  })

  it('a store that ignores the expected length fails the conflict test', async () => {
    const failed = await failures(
      broken((s) => ({
        append: (id, entries, options) =>
          s.append(id, entries, { ...options, expectedLength: undefined }),
      })),
    )
    expect(failed.some((t) => t.includes('expected length'))).toBe(true)
  })
})

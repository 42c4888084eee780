// The conformance suite finds a store that breaks its contract: each broken store below has
// one defect, a defect stores really have had, and fails exactly the tests that name it; a
// whole store passes them all.
import { describe, expect, it } from 'vitest'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { storeConformance } from '../../src/store/conformance.js'
import {
  checkAppendId,
  checkReadRange,
  type HistoryStore,
  StoreConflictError,
  type StoredEntry,
  StoreError,
} from '../../src/store/history-store.js'
import { memoryStore } from '../../src/store/memory-store.js'

interface SuiteTest {
  title: string
  body: () => Promise<void>
}

/** The suite's tests, with a runner of our own. */
function suite(make: () => HistoryStore): SuiteTest[] {
  const tests: SuiteTest[] = []
  storeConformance('probe', make, {
    describe: (_name, body) => body(),
    it: (title, body) => tests.push({ title, body }),
  })
  return tests
}

/** The titles of the tests `make`'s stores fail. */
async function failures(make: () => HistoryStore): Promise<string[]> {
  const failed: string[] = []
  for (const t of suite(make)) await t.body().catch(() => failed.push(t.title))
  return failed
}

const titles = suite(() => memoryStore()).map((t) => t.title)

/** The one title that starts with `start` (a typo in a start is an error, not a pass). */
function title(start: string): string {
  const found = titles.filter((t) => t.startsWith(start))
  if (found.length !== 1) throw new Error(`${found.length} suite tests start with "${start}"`)
  return found[0] as string
}

/** A memory store with some of its methods replaced. */
function broken(change: (s: HistoryStore) => Partial<HistoryStore>): () => HistoryStore {
  return () => {
    const s = memoryStore()
    return Object.assign(Object.create(null), s, change(s)) as HistoryStore
  }
}

/** A name the memory store takes for any value: each value its own, the same value the same. */
function aliases(prefix: string): (value: unknown) => string {
  const names = new Map<unknown, string>()
  return (value) => {
    let name = names.get(value)
    if (name === undefined) {
      name = `${prefix}${names.size}`
      names.set(value, name)
    }
    return name
  }
}

/** The messages an append would store, with its seed when the conversation is empty. */
const withSeed = (
  length: number,
  entries: readonly Omit<StoredEntry, 'seq'>[],
  seed: readonly Omit<StoredEntry, 'seq'>[] | undefined,
) => (length === 0 && seed ? [...seed, ...entries] : entries)

const conflict = (id: string, length: number, expected: number) =>
  new StoreConflictError(`conversation ${id} holds ${length} messages, not ${expected}`, id)

/** The round trip between a store's check and its write. */
const roundTrip = () => new Promise((r) => setTimeout(r, 0))

/**
 * Its expected-length and seed checks are a read, then a write: writers that read together
 * all see the same length. (An append id it has seen goes straight to the store beneath,
 * which answers a repeat whole.)
 */
const racing = broken((s) => {
  const sent = new Set<string>()
  return {
    append: async (id, entries, options = {}) => {
      const { appendId } = options
      if (appendId !== undefined) {
        const name = `${id}\0${appendId}`
        if (sent.has(name)) return s.append(id, entries, { appendId })
        sent.add(name)
      }
      const length = await s.length(id)
      await roundTrip()
      if (options.expectedLength !== undefined && options.expectedLength !== length)
        throw conflict(id, length, options.expectedLength)
      return s.append(id, withSeed(length, entries, options.seed), { appendId })
    },
  }
})

/** Reads a range as Redis's `LRANGE` does: its end is inclusive and `-1` is the last message. */
const lrange = broken((s) => ({
  read: async (id, from = 0, to) => {
    await s.read(id, from, to)
    const all = await s.read(id)
    const stop = to === undefined ? -1 : to - 1
    const end = stop < 0 ? all.length + stop + 1 : stop + 1
    return all.slice(from, Math.max(from, end))
  },
}))

/** Keeps positions in a 32-bit integer column: a range past 2^31 - 1 fails on the server. */
const int32 = broken((s) => ({
  read: async (id, from = 0, to) => {
    checkReadRange(id, from, to)
    if (from > 2 ** 31 - 1 || (to !== undefined && to > 2 ** 31 - 1))
      throw new StoreError(`conversation ${id}: value out of range for type integer`, id)
    return s.read(id, from, to)
  },
}))

/** Numbers the entries of a range from 0. */
const renumbered = broken((s) => ({
  read: async (id, from, to) => (await s.read(id, from, to)).map((e, k) => ({ ...e, seq: k })),
}))

/** Reads a range as `Array.prototype.slice` does: from the end when negative, NaN as 0. */
const sliced = broken((s) => ({
  read: async (id, from, to) => (await s.read(id)).slice(from, to),
}))

/** Compares ids as a case- and accent-insensitive, space-padding database collation does. */
const collated = broken((s) => {
  const key = (id: string) =>
    (typeof id === 'string' ? id.normalize('NFC').toLowerCase().trimEnd() : id) as string
  return {
    append: (id, entries, options) => s.append(key(id), entries, options),
    read: (id, from, to) => s.read(key(id), from, to),
    length: (id) => s.length(key(id)),
    version: (id) => s.version(key(id)),
    delete: (id) => s.delete(key(id)),
  }
})

/** Takes any non-empty string for an id: a lone surrogate, U+0000, 10,000 characters. */
const anyId = broken((s) => {
  const alias = aliases('c')
  const key = (id: string) => (typeof id === 'string' && id !== '' ? alias(id) : id)
  return {
    append: (id, entries, options) => s.append(key(id), entries, options),
    read: (id, from, to) => s.read(key(id), from, to),
    length: (id) => s.length(key(id)),
    version: (id) => s.version(key(id)),
    putSummary: (id, summary, options) => s.putSummary(key(id), summary, options),
    summaries: (id) => s.summaries(key(id)),
    putLimit: (id, window) => s.putLimit?.(key(id), window) as Promise<void>,
    limit: (id) => s.limit?.(key(id)) as Promise<number | undefined>,
    clear: (id) => s.clear(key(id)),
    delete: (id) => s.delete(key(id)),
  }
})

/** Takes any value for an append id: empty, 10,000 characters, a lone surrogate, a number. */
const anyAppendId = broken((s) => {
  const alias = aliases('a')
  return {
    append: (id, entries, options = {}) =>
      s.append(id, entries, {
        ...options,
        ...(options.appendId !== undefined && { appendId: alias(options.appendId) }),
      }),
  }
})

/** Checks the expected length before the append id, so a repeat whose length moved is refused. */
const expectedFirst = broken((s) => ({
  append: async (id, entries, options = {}) => {
    const length = await s.length(id)
    if (options.expectedLength !== undefined && options.expectedLength !== length)
      throw conflict(id, length, options.expectedLength)
    return s.append(id, entries, options)
  },
}))

/** Records an append id even for an append it refused: the append sent again is dropped. */
const burnsAppendId = broken((s) => {
  const refused = new Map<string, number>()
  return {
    append: async (id, entries, options = {}) => {
      const name = `${id}\0${options.appendId}`
      const length = refused.get(name)
      if (length !== undefined) return length
      try {
        return await s.append(id, entries, options)
      } catch (e) {
        if (options.appendId !== undefined) refused.set(name, await s.length(id))
        throw e
      }
    },
  }
})

/** Keeps an append id in a 64-character column: ids sharing their first 64 are one. */
const truncatedAppendId = broken((s) => ({
  append: (id, entries, options = {}) => {
    if (options.appendId === undefined) return s.append(id, entries, options)
    checkAppendId(id, options.appendId)
    return s.append(id, entries, { ...options, appendId: options.appendId.slice(0, 64) })
  },
}))

/** Forgets the append ids of a conversation when it is cleared or deleted. */
const forgetsAppendIds = broken((s) => {
  const generation = new Map<string, number>()
  const forget = (id: string) => generation.set(id, (generation.get(id) ?? 0) + 1)
  return {
    append: (id, entries, options = {}) => {
      if (options.appendId === undefined) return s.append(id, entries, options)
      checkAppendId(id, options.appendId)
      const appendId = `${options.appendId.slice(0, 190)}#${generation.get(id) ?? 0}`
      return s.append(id, entries, { ...options, appendId })
    },
    clear: async (id) => {
      await s.clear(id)
      forget(id)
    },
    delete: async (id) => {
      await s.delete(id)
      forget(id)
    },
  }
})

/** Keeps whatever window it is given: 0, 1.5, 2^31, a string. */
const anyWindow = broken((s) => {
  const windows = new Map<string, unknown>()
  return {
    putLimit: async (id, window) => {
      await s.limit?.(id)
      if (window === null) windows.delete(id)
      else windows.set(id, window)
    },
    limit: async (id) => {
      await s.limit?.(id)
      return windows.get(id) as number | undefined
    },
    delete: async (id) => {
      await s.delete(id)
      windows.delete(id)
    },
  }
})

/** Forgets the learned limit when the messages are cleared. */
const clearForgetsLimit = broken((s) => ({
  clear: async (id) => {
    await s.clear(id)
    await s.putLimit?.(id, null)
  },
}))

/** Passes no expected length on. */
const noExpectedLength = broken((s) => ({
  append: (id, entries, options) =>
    s.append(id, entries, { ...options, expectedLength: undefined }),
}))

/** Checks an append id and passes it no further. */
const noAppendId = broken((s) => ({
  append: (id, entries, options = {}) => {
    if (options.appendId !== undefined) checkAppendId(id, options.appendId)
    return s.append(id, entries, { ...options, appendId: undefined })
  },
}))

const defects: [string, () => HistoryStore, string[]][] = [
  [
    'checks the expected length and the seed, then writes',
    racing,
    ['writers racing to start one conversation', 'writers racing on one expected length'],
  ],
  ['reads ranges as LRANGE does', lrange, ['empty ranges']],
  ['keeps positions in 32 bits', int32, ['ranges past the end']],
  ['numbers a range from 0', renumbered, ['the entries of a range carry their positions']],
  ['reads ranges as slice does', sliced, ['a range of anything but whole positions']],
  ['compares ids as a collation does', collated, ['a conversation id is any well-formed string']],
  ['takes any non-empty string for an id', anyId, ['a conversation id that is not a string']],
  ['takes any append id', anyAppendId, ['an appendId is 1 to 200']],
  ['keeps append ids in 64 characters', truncatedAppendId, ['appendIds are compared whole']],
  [
    'checks the expected length before the append id',
    expectedFirst,
    ['an append sent again answers its first length'],
  ],
  [
    'records the append id of a refused append',
    burnsAppendId,
    ['an append refused for its expected length or its input'],
  ],
  [
    'forgets append ids on clear and delete',
    forgetsAppendIds,
    ['an appendId outlives clear and delete'],
  ],
  ['keeps any window', anyWindow, ['a learned limit is whole tokens']],
  ['forgets the limit on clear', clearForgetsLimit, ['clear keeps the learned limit']],
  [
    'ignores the expected length',
    noExpectedLength,
    [
      'an append whose expected length moved',
      'writers racing on one expected length',
      'an append refused for its expected length or its input',
    ],
  ],
  [
    'stores a repeated append id again',
    noAppendId,
    [
      'an append sent again with the same appendId',
      'the same appendId sent several times at once',
      'an append sent again answers its first length',
      'an appendId outlives clear and delete',
    ],
  ],
  ['has putLimit but no limit', broken(() => ({ limit: undefined })), ['learned limits are kept']],
  [
    'has limit but no putLimit',
    broken(() => ({ putLimit: undefined })),
    ['learned limits are kept'],
  ],
]

describe('storeConformance against broken stores', () => {
  it('a whole memory store fails nothing', async () => {
    expect(await failures(() => memoryStore())).toEqual([])
  })

  it('a store without either limit method passes (limits are optional)', async () => {
    expect(await failures(broken(() => ({ limit: undefined, putLimit: undefined })))).toEqual([])
  })

  it.each(defects)(
    'a store that %s fails exactly the tests that name it',
    async (_, make, starts) => {
      const named = starts.map(title)
      expect(await failures(make)).toEqual(titles.filter((t) => named.includes(t)))
    },
  )

  it('every test added for races, ranges, ids, append ids and limits fails on one of the broken stores', () => {
    const named = new Set(defects.flatMap(([, , starts]) => starts.map(title)))
    const first = titles.indexOf(title('writers racing to start one conversation'))
    expect(titles.slice(first).filter((t) => !named.has(t))).toEqual([])
  })

  it('with the racing store two contexts starting one conversation together store the system prompt twice; with a whole store, once', async () => {
    const start = async (store: HistoryStore) => {
      const contexts = [0, 1].map(
        () =>
          new ChatContext({
            store,
            id: 'together',
            budget: 4000,
            initialMessages: [{ role: 'system', content: 'policy' }],
          }),
      )
      await Promise.all(
        contexts.map((ctx, k) => ctx.addMessage({ role: 'user', content: `from ${k}` })),
      )
      return (await store.read('together')).filter((e) => e.message.content === 'policy').length
    }
    expect(await start(racing())).toBe(2)
    expect(await start(memoryStore())).toBe(1)
  })
})

describe('storeConformance options', () => {
  it('refuses options that are not { shared?: boolean }', () => {
    const runner = { describe: () => {}, it: () => {} }
    for (const bad of [null, [], { shared: 'yes' }])
      expect(() => storeConformance('x', () => memoryStore(), runner, bad as never)).toThrow(
        /options/,
      )
  })
})

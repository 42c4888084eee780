import { requireArgument } from '../options-check.js'
import { keyTests } from './conformance-keys.js'
import { rangeTests } from './conformance-ranges.js'
import { writeTests } from './conformance-writes.js'
import type { HistoryStore } from './history-store.js'

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
    writeTests(test)
    rangeTests(test)
    keyTests(test)
  })
}

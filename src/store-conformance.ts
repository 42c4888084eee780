/**
 * `context-window/store-conformance`: the tests every `HistoryStore` passes, for people who
 * write their own. Its own entry, so the root entry does not carry them.
 */
export {
  type ConformanceOptions,
  type ConformanceRunner,
  storeConformance,
} from './store/conformance.js'

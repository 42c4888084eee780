/** `context-window/store-conformance` under Node: the same exports, from the same bundle as the other Node entries. */
export * from '../store-conformance.js'

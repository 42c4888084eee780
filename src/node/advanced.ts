/** `context-window/advanced` under Node: the same exports, from the same bundle as the other Node entries. */
import '../tokens/node-encodings.js'

export * from '../advanced.js'

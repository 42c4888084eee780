/** `context-window` under Node: the same exports, with exact counting loading its encoding on first use. */
import '../tokens/node-encodings.js'

export * from '../index.js'

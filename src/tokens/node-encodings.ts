/**
 * Node's synchronous loader for the encodings' rank tables: `require` of the table module on
 * the first exact count. Imported by the Node entries only (the `node` export condition, the
 * CLI). The path is written from this folder's parent so that it holds both here
 * (`dist/tokens/`) and in the Node bundle (`dist/node/`). Where the module is not beside the
 * code (an app bundled again for Node), the typed error asks for `loadEncoding`.
 */
import { createRequire } from 'node:module'
import { addEncodingLoader } from './encodings.js'

const load = createRequire(import.meta.url)

addEncodingLoader((name) => {
  try {
    return (
      (name === 'o200k_base'
        ? load('../tokens/data/o200k_base.js')
        : load('../tokens/data/cl100k_base.js')) as { default: string }
    ).default
  } catch {
    return undefined
  }
})

/**
 * Node's synchronous loader for the encodings' rank tables: `require` of the table module
 * beside this one, on the first exact count. Imported by the Node entries only (the `node`
 * export condition, the CLI); bundlers for Node follow the two literal paths.
 */
import { createRequire } from 'node:module'
import { setEncodingLoader } from './encodings.js'

const load = createRequire(import.meta.url)

setEncodingLoader(
  (name) =>
    (
      (name === 'o200k_base' ? load('./data/o200k_base.js') : load('./data/cl100k_base.js')) as {
        default: string
      }
    ).default,
)

/**
 * Node's synchronous loader for the encodings' rank tables, used on the first exact count:
 * the table module's text is read and its string literal taken (no JavaScript parse of
 * 2 MB). Imported by the Node entries only (the `node` export condition, the CLI). The path
 * is written from this folder's parent so that it holds both here (`dist/tokens/`) and in
 * the Node bundle (`dist/node/`); the TypeScript source is read when running from source.
 * Where no table is beside the code (an app bundled again), the typed error asks for
 * `loadEncoding`.
 */
import { readFileSync } from 'node:fs'
import { encodingCounter } from './bpe.js'
import { addEncodingLoader } from './encodings.js'

addEncodingLoader((name) => {
  for (const ext of ['.js', '.ts']) {
    let text: string
    try {
      text = readFileSync(new URL(`../tokens/data/${name}${ext}`, import.meta.url), 'latin1')
    } catch {
      continue
    }
    // `const ranks = '…'`: the literal after the first `= '`.
    const from = text.indexOf("= '")
    const to = text.indexOf("'", from + 3)
    if (from >= 0 && to > from) return encodingCounter(name, text.slice(from + 3, to))
  }
  return undefined
})

/**
 * Test setup: the tests run the TypeScript sources, which Node's `require` cannot load, so
 * the rank tables are read from their source text on first need, as the Node entries' loader
 * reads the built modules: lazily, synchronously.
 */
import { readFileSync } from 'node:fs'
import { addEncodingLoader } from '../../src/tokens/encodings.js'

addEncodingLoader((name) => {
  const text = readFileSync(new URL(`../../src/tokens/data/${name}.ts`, import.meta.url), 'utf8')
  const table = /'([A-Za-z0-9+/=]+)'/.exec(text)?.[1]
  if (!table) throw new Error(`src/tokens/data/${name}.ts holds no table`)
  return table
})

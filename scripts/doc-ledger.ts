/**
 * Writes into docs/strategies.md the ledger the bundled example gets at 3,000 tokens (what
 * `npm run example` sends), so the page shows the library's own output. `npx tsx scripts/doc-ledger.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import '../src/tokens/node-encodings.js'
import { fit } from '../src/context/fit.js'
import { decode } from '../src/formats/detect.js'

const root = new URL('..', import.meta.url)
const example = JSON.parse(readFileSync(new URL('examples/airline-booking.json', root), 'utf8'))
const r = fit(decode(example).messages, { budget: 3000 })
const ledger = r.inserted.find((i) => i.reason === 'ledger')?.message.content
if (typeof ledger !== 'string') throw new Error('the example got no ledger at 3,000 tokens')
const page = new URL('docs/strategies.md', root)
const doc = readFileSync(page, 'utf8')
const next = doc.replace(
  /(## Agents[\s\S]*?```\n)[\s\S]*?(\n```)/,
  (_, a, b) => `${a}${ledger}${b}`,
)
writeFileSync(page, next)
console.log(ledger)

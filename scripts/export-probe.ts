// Calls every function and class of every entry (the root and the subpath entries) with
// arguments of the wrong type and prints each export that answers with something other than
// one of the library's typed errors, with the first arguments that showed it. The generators
// and the check are test/bad-inputs/probe.ts, which test/bad-inputs/exports.test.ts holds to.
// Run: npx tsx scripts/export-probe.ts [samples]   (exit 1 when any export crashes)
import '../src/tokens/node-encodings.js'
import fc from 'fast-check'
import { call, callables, shown, untyped, wrongArguments } from '../test/bad-inputs/probe.js'

const samples = Number(process.argv[2] ?? 300)
const tries = fc.sample(wrongArguments, { numRuns: samples, seed: 1 })
tries.unshift([], [null], [[], null], [[{ role: 'user', content: 'hi' }], null])
let crashes = 0
for (const c of callables()) {
  for (const args of tries) {
    const why = untyped(await call(c, args))
    if (why) {
      crashes++
      console.log(`${c.entry} ${c.name}(${args.map(shown).join(', ')}): ${why}`)
      break
    }
  }
}
console.log(
  `${crashes} exports answer a wrong-type argument with something other than a typed error`,
)
process.exitCode = crashes > 0 ? 1 : 0

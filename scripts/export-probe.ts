// Calls every function and class the root entry exports with arguments of the wrong type
// (null, numbers, strings, empty objects and lists, lists of non-messages, a value that
// contains itself, a symbol) and prints each export that answers with something other than
// one of the library's typed errors, with the first arguments that showed it.
// Run: npx tsx scripts/export-probe.ts   (exit 1 when any export crashes)
import '../src/tokens/node-encodings.js'
import * as api from '../src/index.js'

const { ContextWindowError } = api
const cyclic: Record<string, unknown> = { role: 'user' }
cyclic.content = cyclic
const tries: unknown[][] = [
  [],
  [null],
  [5],
  ['x'],
  [{}],
  [[null]],
  [[1]],
  [{ role: 'user', content: 5 }],
  [[{ role: 'user', content: 5 }]],
  [cyclic],
  [Symbol('s')],
  [[], null],
  [[], 5],
  [{}, null],
]
const describe = (a: unknown) => (Array.isArray(a) ? 'list' : a === null ? 'null' : typeof a)

let crashes = 0
for (const [name, f] of Object.entries(api)) {
  if (typeof f !== 'function' || (f as { prototype?: unknown }).prototype instanceof Error) continue
  const isClass = /^class\b/.test(Function.prototype.toString.call(f))
  for (const args of tries) {
    let out: unknown
    try {
      out = isClass
        ? new (f as new (...a: unknown[]) => unknown)(...args)
        : (f as (...a: unknown[]) => unknown)(...args)
    } catch (e) {
      out = e
    }
    if (out instanceof Promise) {
      out.catch(() => {})
      continue
    }
    if (out instanceof Error && !(out instanceof ContextWindowError)) {
      crashes++
      console.log(
        `${name}(${args.map(describe).join(', ')}): ${out.name}: ${out.message.split('\n')[0]}`,
      )
      break
    }
  }
}
console.log(
  `${crashes} exports answer a wrong-type argument with something other than a typed error`,
)
process.exitCode = crashes > 0 ? 1 : 0

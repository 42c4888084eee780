import { deepEqual } from 'node:assert'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { recency, toUnits } from '../../src/advanced.js'
import { fitMiddleware } from '../../src/ai-sdk.js'
import {
  type ContextWindowError,
  clearToolResults,
  estimateCounter,
  fit,
  InvalidInputError,
  InvalidOptionError,
  summarizing,
} from '../../src/index.js'
import { fitInputProcessor } from '../../src/mastra.js'
import { fittedSession } from '../../src/openai-agents.js'
import { RUNS, SEED } from '../properties/generators.js'
import { type Callable, call, callables, entries, shown, untyped, wrongArguments } from './probe.js'

/** A copy to compare with after the call, when the value can be copied (not a symbol or function). */
function snapshot(args: unknown[]): unknown[] | undefined {
  try {
    return structuredClone(args)
  } catch {
    return undefined
  }
}

/** Equal values, whatever their prototypes (a copy of a null-prototype object has Object's). */
function same(a: unknown, b: unknown): boolean {
  try {
    deepEqual(a, b)
    return true
  } catch {
    return false
  }
}

/** What is wrong with a call's outcome, or undefined when it is a result or a typed error that names its field. */
async function judge(c: Callable, args: unknown[]): Promise<string | undefined> {
  const before = snapshot(args)
  const outcome = await call(c, args)
  const crash = untyped(outcome)
  if (crash) return crash
  if (before && !same(before, args)) return 'changed its arguments'
  if (!outcome.threw) return undefined
  const e = outcome.value as ContextWindowError
  if (e.message.includes('\n') && !(e instanceof InvalidInputError))
    return `a message of several lines: ${e.message}`
  // A value is named by its kind, never written out whole in the message.
  if (e.message.length > 600) return `a message of ${e.message.length} characters`
  if (e instanceof InvalidOptionError && !(typeof e.option === 'string' && e.option.length > 0))
    return 'an InvalidOptionError that names no option'
  return undefined
}

const all = callables()

describe('every export of every entry answers wrong-type arguments with a typed error', () => {
  it('the probe reaches every entry and every function and class in it', () => {
    for (const [entry, mod] of Object.entries(entries)) {
      const functions = Object.entries(mod).filter(
        ([, f]) =>
          typeof f === 'function' && !((f as { prototype?: unknown }).prototype instanceof Error),
      )
      expect(functions.length, entry).toBeGreaterThan(0)
      expect(all.filter((c) => c.entry === entry).length, entry).toBe(functions.length)
    }
    // Each function once: no entry hands on another's names.
    expect(all.length).toBeGreaterThan(60)
  })

  it.each(Object.keys(entries))(
    `%s: ${RUNS} argument lists per export (null, numbers, symbols, big integers, __proto__ keys, values that contain themselves, 5,000 levels deep)`,
    async (entry) => {
      for (const c of all.filter((x) => x.entry === entry)) {
        await fc.assert(
          fc.asyncProperty(wrongArguments, async (args) => {
            const why = await judge(c, args)
            if (why) throw new Error(`${c.name}(${args.map(shown).join(', ')}): ${why}`)
          }),
          { numRuns: RUNS, seed: SEED },
        )
      }
    },
  )
})

describe('what the typed errors say', () => {
  it('names the function, the argument and the kind of value, without serializing it', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(() => clearToolResults(null as never)).toThrow(
      /option options: clearToolResults expects an object, got null/,
    )
    expect(() => recency({ keepRate: cyclic as never })).toThrow(
      /option keepRate: recency expects a number in \(0, 1\], got an object/,
    )
    expect(() => estimateCounter({ factor: 10n as never })).toThrow(/factor.*a bigint/)
    expect(() => toUnits(null as never)).toThrow(InvalidInputError)
    expect(() => toUnits([{ role: 'user', content: 5 }] as never)).toThrow(
      /message 0, field content/,
    )
  })

  it('refuses an unknown option key when the function is called, naming the closest', () => {
    expect(() => clearToolResults({ kep: 2 } as never)).toThrow(/kep.*did you mean "keep"/)
    expect(() => summarizing({ trigerr: 0.5 } as never)).toThrow(/trigerr.*"trigger"/)
    expect(() => estimateCounter({ modle: 'gpt-4o' } as never)).toThrow(/modle.*"model"/)
    // Adapters check fit's options when they are made, not at their first model call.
    expect(() => fitMiddleware({ budgte: 3000 } as never)).toThrow(/budgte.*"budget"/)
    expect(() => fitInputProcessor({ instructons: 'x' } as never)).toThrow(
      /instructons.*"instructions"/,
    )
    expect(() => fittedSession(null as never, { budget: 3000 })).toThrow(
      /fittedSession expects a session/,
    )
  })

  it('still takes what it took: no options, empty options, plain data', () => {
    const history = [
      { role: 'system' as const, content: 'Be brief.' },
      { role: 'user' as const, content: 'Hi' },
    ]
    expect(clearToolResults().name).toBe('clearToolResults')
    expect(clearToolResults({}).name).toBe('clearToolResults')
    expect(toUnits(history).map((u) => u.kind)).toEqual(['system', 'message'])
    expect(fitMiddleware({ budget: 3000 })).toHaveProperty('transformParams')
    expect(fit(history, { budget: 1000 }).messages).toEqual(history)
  })
})

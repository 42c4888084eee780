import fc from 'fast-check'
import * as aiSdk from '../../src/ai-sdk.js'
import * as geminiTokenizer from '../../src/gemini-tokenizer.js'
import * as root from '../../src/index.js'
import * as langchain from '../../src/langchain.js'
import * as mastra from '../../src/mastra.js'
import * as openaiAgents from '../../src/openai-agents.js'
import * as postgres from '../../src/postgres.js'
import * as redis from '../../src/redis.js'
import * as storeConformance from '../../src/store-conformance.js'
import { nastyText } from '../properties/hostile.js'

/** Every entry a user can import, by its import path. */
export const entries: Record<string, Record<string, unknown>> = {
  'context-window': root,
  'context-window/ai-sdk': aiSdk,
  'context-window/langchain': langchain,
  'context-window/openai-agents': openaiAgents,
  'context-window/mastra': mastra,
  'context-window/redis': redis,
  'context-window/postgres': postgres,
  'context-window/gemini-tokenizer': geminiTokenizer,
  'context-window/store-conformance': storeConformance,
}

export interface Callable {
  entry: string
  name: string
  f: (...args: unknown[]) => unknown
  isClass: boolean
}

/** The exported functions and classes of every entry (error classes aside: they take any text). */
export function callables(): Callable[] {
  const out: Callable[] = []
  for (const [entry, mod] of Object.entries(entries))
    for (const [name, f] of Object.entries(mod)) {
      if (typeof f !== 'function') continue
      if ((f as { prototype?: unknown }).prototype instanceof Error || f === Error) continue
      const isClass = /^class\b/.test(Function.prototype.toString.call(f))
      out.push({ entry, name, f: f as Callable['f'], isClass })
    }
  return out
}

function cyclicMessage(): unknown {
  const m: Record<string, unknown> = { role: 'user' }
  m.content = m
  return m
}

function cyclicList(): unknown {
  const l: unknown[] = [{ role: 'user', content: 'hi' }]
  l.push(l)
  return l
}

/** An object nested `depth` levels deep under `key`. */
function deep(depth: number, key: string): unknown {
  let v: unknown = { role: 'user', content: 'x' }
  for (let i = 0; i < depth; i++) v = { [key]: v, type: 'object' }
  return v
}

function deepList(depth: number): unknown {
  let v: unknown = []
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

const valid = () => [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Hello' },
]

/**
 * Values of the wrong type for any argument: nothing, null, numbers that are not counts,
 * strings, symbols, big integers, functions, lists of non-messages, `__proto__` and
 * `constructor` keys, values that contain themselves, and values nested thousands deep.
 * Some plausible values (a valid message list, an empty options object) are mixed in so that
 * a wrong value in a later argument is reached.
 */
export const wrongValue: fc.Arbitrary<unknown> = fc
  .oneof(
    fc.constantFrom<() => unknown>(
      () => undefined,
      () => null,
      () => 0,
      () => -1,
      () => 5.5,
      () => Number.NaN,
      () => Number.POSITIVE_INFINITY,
      () => true,
      () => 10n,
      () => Symbol('s'),
      () => () => 1,
      () => ({}),
      () => [],
      () => [null],
      () => [5],
      () => ['x'],
      () => [{ role: 'user', content: 5 }],
      () => [{ role: 'wizard', content: 'hi' }],
      () => [{ role: '__proto__', content: 'hi' }],
      () => ({ role: 'user', content: 5 }),
      () => [{ role: 10n, content: 'hi' }],
      () => [{ type: 10n }],
      () => [{ role: 'user', content: [{ type: Symbol('t') }] }],
      () => [{ role: 'user', content: [{ type: 10n, text: 'x' }] }],
      () => ({ messages: [{ role: cyclicMessage(), content: 'hi' }] }),
      () => JSON.parse('{"__proto__": {"role": "user", "polluted": true}, "constructor": 5}'),
      () => JSON.parse('[{"role": "user", "content": "hi", "__proto__": {"x": 1}}]'),
      () => JSON.parse('{"messages": 5, "__proto__": {"budget": 5}}'),
      () => Object.create(null),
      () => new Date(0),
      () => new Map([['a', 1]]),
      () => new Uint8Array(3),
      cyclicMessage,
      () => [cyclicMessage()],
      cyclicList,
      () => deep(5000, 'properties'),
      () => [deep(5000, 'content')],
      () => deepList(20_000),
      () => ({ budget: deep(5000, 'x') }),
      () => ({ tools: [deep(5000, 'properties')] }),
      () => ({ messages: valid(), budget: -3 }),
      valid,
      () => ({ budget: 1000 }),
    ),
    nastyText.map((t) => () => t),
  )
  .map((make) => make())

/** Argument lists of up to three wrong values. */
export const wrongArguments: fc.Arbitrary<unknown[]> = fc.array(wrongValue, { maxLength: 3 })

/** What a call did: returned (perhaps a promise that settled) or threw. */
export interface Outcome {
  threw: boolean
  value: unknown
}

/** Calls `c` with `args`, waiting for a returned promise; closes what it opened (a store). */
export async function call(c: Callable, args: unknown[]): Promise<Outcome> {
  let value: unknown
  try {
    value = c.isClass
      ? new (c.f as unknown as new (...a: unknown[]) => unknown)(...args)
      : c.f(...args)
  } catch (e) {
    return { threw: true, value: e }
  }
  if (value instanceof Promise) {
    try {
      value = await withTimeout(value, 5000)
    } catch (e) {
      return { threw: true, value: e }
    }
  }
  const close = (value as { close?: unknown } | null)?.close
  if (typeof close === 'function') await Promise.resolve(close.call(value)).catch(() => {})
  return { threw: false, value }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}

/** A short name of a value, for a report line. */
export function shown(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return `list(${v.length})`
  if (typeof v === 'string') return JSON.stringify(v.length > 20 ? `${v.slice(0, 20)}…` : v)
  if (typeof v === 'object')
    return `{${Object.keys(v as object)
      .slice(0, 3)
      .join(',')}}`
  if (typeof v === 'symbol' || typeof v === 'bigint' || typeof v === 'function') return typeof v
  return String(v)
}

/** Why an outcome is not acceptable: thrown or rejected with something other than a typed error. */
export function untyped(outcome: Outcome): string | undefined {
  if (!outcome.threw) return undefined
  const e = outcome.value
  if (e instanceof root.ContextWindowError) return undefined
  return e instanceof Error ? `${e.name}: ${e.message.split('\n')[0]}` : `threw ${shown(e)}`
}

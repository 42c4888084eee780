import { describe, expect, it } from 'vitest'
import { createStrategy, dumpComponent } from '../../src/advanced.js'
import {
  ChatContext,
  ContextWindowError,
  contextManagement,
  fit,
  InvalidOptionError,
  renderReport,
  repair,
  toAISDK,
  toAnthropic,
  toAutoGen,
  toGemini,
  toLangChain,
  toOpenAIChat,
  toOpenAIResponses,
  validate,
} from '../../src/index.js'

/** Values of the wrong type, hostile keys and a value that contains itself. */
const cyclic: Record<string, unknown> = { role: 'user' }
cyclic.content = cyclic
const wrong: unknown[] = [
  null,
  undefined,
  5,
  'text',
  true,
  {},
  [null],
  [5],
  [cyclic],
  () => 1,
  Symbol('s'),
  10n,
  JSON.parse('{"__proto__": {"role": "user"}, "constructor": 5}'),
]

/** Runs `f`, and requires a result or one of the library's typed errors, never another crash. */
function typed(what: string, f: () => unknown): void {
  try {
    f()
  } catch (e) {
    if (!(e instanceof ContextWindowError))
      throw new Error(`${what} threw ${(e as Error)?.name}: ${(e as Error)?.message}`)
  }
}

describe('wrong-type arguments get a typed error', () => {
  it('the codecs, validate and repair', () => {
    const encoders = {
      toOpenAIChat,
      toOpenAIResponses,
      toAnthropic,
      toGemini,
      toAISDK,
      toAutoGen,
      toLangChain,
      validate,
      repair,
    }
    for (const [name, f] of Object.entries(encoders))
      for (const v of wrong) typed(`${name}(${typeof v})`, () => (f as (x: unknown) => unknown)(v))
  })

  it('ChatContext, createStrategy, dumpComponent, contextManagement', () => {
    for (const v of wrong) {
      typed(`new ChatContext(${typeof v})`, () => new ChatContext(v as never))
      typed(`createStrategy(${typeof v})`, () => createStrategy(v as never))
      typed(`createStrategy('buffered', ${typeof v})`, () => createStrategy('buffered', v as never))
      typed(`dumpComponent(${typeof v})`, () => dumpComponent(v as never))
      typed(`contextManagement(${typeof v})`, () =>
        contextManagement(v as never, { target: 'anthropic' }),
      )
      typed(`contextManagement({}, ${typeof v})`, () => contextManagement({}, v as never))
    }
    expect(() => new ChatContext(null as never)).toThrow(InvalidOptionError)
    expect(() => createStrategy(5 as never)).toThrow(InvalidOptionError)
    expect(() => dumpComponent(null as never)).toThrow(InvalidOptionError)
    expect(() => contextManagement(null as never, { target: 'anthropic' })).toThrow(
      InvalidOptionError,
    )
  })

  it('a misspelt contextManagement policy key is refused, naming the closest', () => {
    expect(() =>
      contextManagement({ clearToolResult: { keep: 2 } } as never, { target: 'anthropic' }),
    ).toThrow(/clearToolResult.*clearToolResults/)
    expect(() =>
      contextManagement({ clearToolResults: { kep: 2 } } as never, { target: 'anthropic' }),
    ).toThrow(/kep.*keep/)
  })

  it('renderReport as the docs call it: the messages and the result, settings optional', () => {
    const history = [
      { role: 'system' as const, content: 'You are an airline agent.' },
      { role: 'user' as const, content: 'Hello' },
    ]
    const result = fit(history, { budget: 1000 })
    const html = renderReport(history, result)
    expect(html).toContain('<!doctype html>')
    for (const v of wrong) {
      typed(`renderReport(${typeof v})`, () => renderReport(v as never, result))
      typed(`renderReport(history, ${typeof v})`, () => renderReport(history, v as never))
    }
  })
})

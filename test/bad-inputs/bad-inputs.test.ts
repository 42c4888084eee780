import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import { loadComponent } from '../../src/config/component.js'
import { ChatContext } from '../../src/context/chat/chat-context.js'
import { fit } from '../../src/context/fit.js'
import {
  ContextOverflowError,
  ContextWindowError,
  InvalidInputError,
  InvalidOptionError,
  InvalidStateError,
} from '../../src/errors.js'
import { decode } from '../../src/formats/detect.js'
import type { Message } from '../../src/messages/message.js'
import { buffered } from '../../src/strategies/buffered.js'
import type { Strategy } from '../../src/strategies/types.js'
import { counterFor } from '../../src/tokens/counters.js'

const ok: Message[] = [
  { role: 'system', content: 'policy' },
  { role: 'user', content: 'hello' },
]

function cli(...argv: string[]) {
  const err: string[] = []
  const code = main(argv, { out: () => {}, err: (t) => err.push(t), color: false })
  return { code, err: err.join('\n') }
}

describe('bad input to the library: a typed error, nothing else', () => {
  it.each([
    0,
    -1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    '100' as unknown as number,
    -Number.MAX_VALUE,
  ])('budget %s', (budget) => {
    expect(() => fit(ok, { budget })).toThrow(InvalidOptionError)
  })
  it.each([-5, Number.NaN, 'lots' as unknown as number])('reserve %s', (reserve) => {
    expect(() => fit(ok, { budget: 100, reserve })).toThrow(InvalidOptionError)
  })
  it('unknown models, strategies, providers', () => {
    expect(() => fit(ok, { model: 'mistral-99' })).toThrow(InvalidOptionError)
    // An unlisted model of a known provider is fitted by its provider's most conservative figures, and said so.
    expect(fit(ok, { model: 'gpt-99' }).notes?.[0]).toMatch(/not in the model table/)
    expect(() => counterFor('')).toThrow(InvalidOptionError)
    expect(() => fit(ok, { strategy: '__proto__' as never })).toThrow(InvalidOptionError)
    expect(() => fit(ok, { provider: 'bard' as never })).toThrow(InvalidOptionError)
    expect(() => fit(ok, { provider: '__proto__' as never })).toThrow(InvalidOptionError)
  })
  it.each<[string, unknown]>([
    ['not a list', { role: 'user' }],
    ['a number', [1]],
    ['unknown role', [{ role: 'robot', content: 'x' }]],
    ['tool without call id', [{ role: 'tool', content: 'x' }]],
    [
      'arguments not a string',
      [{ role: 'assistant', toolCalls: [{ id: 'a', name: 'f', arguments: { x: 1 } }] }],
    ],
    ['content of the wrong type', [{ role: 'user', content: 42 }]],
    ['deeply nested content', [{ role: 'user', content: [[[[[[[['deep']]]]]]]] }]],
    [
      'empty tool call id',
      [{ role: 'assistant', toolCalls: [{ id: '', name: 'f', arguments: '{}' }] }],
    ],
  ])('messages: %s', (_name, input) => {
    expect(() => fit(input as Message[])).toThrow(InvalidInputError)
    expect(() => new ChatContext().addMessages(input as Message[])).toThrow(ContextWindowError)
  })
  it('every format decoder refuses garbage with a typed error', () => {
    for (const format of ['openai-chat', 'anthropic', 'ai-sdk', 'autogen', 'langchain'] as const) {
      for (const bad of [null, 7, 'text', [null], [{ role: 5 }], { messages: 'no' }]) {
        expect(() => decode(bad, format), `${format} ${JSON.stringify(bad)}`).toThrow(
          InvalidInputError,
        )
      }
    }
    expect(() => decode({ what: 1 })).toThrow(InvalidInputError)
  })
  it('configs and states: unregistered provider, future version, wrong shapes', () => {
    expect(() => loadComponent({ provider: 'some.module.Evil', config: {} })).toThrow(
      InvalidStateError,
    )
    expect(() =>
      loadComponent({
        provider: 'context_window.strategies.buffered',
        componentVersion: 99,
        config: { size: 2 },
      }),
    ).toThrow(/newer/)
    expect(() =>
      loadComponent({ provider: 'context_window.ChatContext', config: { budget: -1 } }),
    ).toThrow(InvalidStateError)
    const ctx = new ChatContext()
    expect(() =>
      ctx.loadState({ type: 'context-window/chat-context', version: 2, messages: [] }),
    ).toThrow(/newer/)
    expect(() => ctx.loadState(null)).toThrow(InvalidStateError)
  })
  it('a 20 MB message is counted (chunked) and reported as an overflow, without hanging', () => {
    const huge: Message = { role: 'user', content: 'word '.repeat(4_000_000) }
    expect(() => fit([ok[0] as Message, huge], { budget: 8000 })).toThrow(ContextOverflowError)
    const blob: Message = { role: 'tool', toolCallId: 'x', content: 'a'.repeat(2_000_000) }
    const call: Message = {
      role: 'assistant',
      toolCalls: [{ id: 'x', name: 'f', arguments: '{}' }],
    }
    const r = fit([...ok, call, blob, { role: 'user', content: 'next' }], { budget: 8000 })
    expect(r.dropped).toContain(3)
  }, 60_000)
})

describe('faults in user code: the context stays usable and keeps every message', () => {
  it('a strategy that throws leaves the history whole, and the next call works', async () => {
    let fail = true
    const base = buffered({ size: 4 })
    const flaky: Strategy = {
      ...base,
      select(view) {
        if (fail) throw new Error('scorer crashed')
        return base.select(view)
      },
    }
    const ctx = new ChatContext({ strategy: flaky, initialMessages: ok })
    await ctx.addMessage({ role: 'assistant', content: 'hi' })
    await expect(ctx.getMessages()).rejects.toThrow('scorer crashed')
    expect(ctx.length).toBe(3)
    fail = false
    expect((await ctx.getMessages()).length).toBe(3)
  })
})

describe('bad input to the CLI: one line, exit code 2, nothing half-written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cw-bad-'))
  const write = (name: string, text: string) => {
    const f = join(dir, name)
    writeFileSync(f, text)
    return f
  }
  const cases: [string, string][] = [
    ['invalid.json', '{"messages": [ {"role": "user", '],
    ['truncated.json', '[{"role":"user","content":"hi"},{"role":"assi'],
    ['empty.json', ''],
    ['wrongtype.json', '{"messages": 5}'],
    ['role.json', '[{"role":"wizard","content":"x"}]'],
    [
      'args.json',
      '[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":7}}]}]',
    ],
    ['content.json', '[{"role":"user","content":{"a":1}}]'],
    ['nested.json', `[{"role":"user","content":${'['.repeat(200)}${']'.repeat(200)}}]`],
  ]
  it.each(cases)('%s', (name, text) => {
    const file = write(name, text)
    const out = join(dir, `out-${name}`)
    for (const command of ['fit', 'count', 'validate']) {
      // --budget and --out are fit's own: the other commands refuse them.
      const r = cli(command, file, ...(command === 'fit' ? ['--budget', '1000', '--out', out] : []))
      expect(r.code, `${command} ${name}: ${r.err}`).toBe(2)
      expect(r.err.split('\n')).toHaveLength(1)
      expect(r.err).toContain(name)
      expect(r.err).not.toMatch(/\n\s+at /)
    }
    expect(readdirSync(dir).filter((f) => f.startsWith('out-'))).toEqual([])
  })
  it.each(['0', '-3', 'NaN', 'Infinity', '1e3', 'ten'])('--budget %s', (b) => {
    const file = write('good.json', JSON.stringify(ok))
    const r = cli('fit', file, `--budget=${b}`)
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/option --budget/)
  })
})

import { describe, expect, it } from 'vitest'
import { loadComponent } from '../../config/component.js'
import { InvalidOptionError } from '../../errors.js'
import type { Message } from '../../messages/message.js'
import { buffered } from '../../strategies/buffered.js'
import { scoreBased } from '../../strategies/score-based.js'
import { relevance } from '../../strategies/scorers.js'
import { tokenLimited } from '../../strategies/token-limited.js'
import { ChatContext } from '../chat/chat-context.js'
import { fit } from '../fit.js'
import { createStrategy } from './create-strategy.js'

const h: Message[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'hi' },
]

/** The typed error a call throws (the test fails when it throws anything else, or nothing). */
function refusal(run: () => unknown): InvalidOptionError {
  try {
    run()
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidOptionError)
    return e as InvalidOptionError
  }
  throw new Error('expected an InvalidOptionError, got a result')
}

describe('unknown options at run time (JavaScript callers, JSON configs)', () => {
  it.each<[string, () => unknown, string, string | undefined]>([
    ['fit', () => fit(h, { budjet: 300 } as never), 'budjet', 'budget'],
    ['fit', () => fit(h, { budget: 300, reserv: 10 } as never), 'reserv', 'reserve'],
    ['fit by name', () => fit(h, { strategy: 'buffered', sise: 3 } as never), 'sise', 'size'],
    [
      'fit by name, another strategy option',
      () => fit(h, { strategy: 'buffered', size: 3, head: 1 } as never),
      'head',
      undefined,
    ],
    [
      'fit with a strategy object',
      () => fit(h, { strategy: tokenLimited(), stable: true } as never),
      'stable',
      undefined,
    ],
    ['ChatContext', () => new ChatContext({ modle: 'gpt-4o' } as never), 'modle', 'model'],
    [
      'ChatContext by name',
      () => new ChatContext({ strategy: 'userTurns', maxTurn: 2 } as never),
      'maxTurn',
      'maxTurns',
    ],
    ['createStrategy', () => createStrategy('tokenLimited', { limt: 5 }), 'limt', 'limit'],
    ['a factory', () => tokenLimited({ limt: 5 } as never), 'limt', 'limit'],
    ['a factory', () => buffered({ size: 2, sise: 3 } as never), 'sise', 'size'],
    [
      'a hostile key',
      () => fit(h, JSON.parse('{"__proto__": 1, "budget": 9}')),
      '__proto__',
      undefined,
    ],
  ])('%s: names the option and the closest known one', (_where, run, option, suggestion) => {
    const e = refusal(run)
    expect(e.option).toBe(option)
    expect(e.message).toContain(option)
    if (suggestion) expect(e.message).toContain(`did you mean "${suggestion}"`)
    else expect(e.message).not.toContain('did you mean')
  })

  it('a misspelt strategy name suggests the right one', () => {
    const e = refusal(() => fit(h, { strategy: 'bufferd' } as never))
    expect(e.option).toBe('strategy')
    expect(e.message).toContain('did you mean "buffered"')
  })

  it('a scorer given as a strategy is a typed error, not a TypeError', () => {
    const e = refusal(() => fit(h, { strategy: relevance({ query: 'x' }) } as never))
    expect(e.option).toBe('strategy')
    expect(e.message).toContain('scoreBased({ scorer })')
    // The way it is meant: through scoreBased, or the named strategy.
    expect(
      fit(h, { strategy: scoreBased({ scorer: relevance({ query: 'x' }) }), budget: 100_000 })
        .messages,
    ).toEqual(h)
    expect(fit(h, { strategy: 'mostRelevant', query: 'x', budget: 500 }).messages).toEqual(h)
  })

  it('a name that is not a strategy is refused, the nearest named', () => {
    expect(() => createStrategy('relevance', { query: 'x' })).toThrow(InvalidOptionError)
    expect(() => createStrategy('mostRelevent', { query: 'x' })).toThrow(/mostRelevant/)
  })

  it('a JSON component config with a misspelt option is refused, naming it', () => {
    expect(() =>
      loadComponent({
        provider: 'context_window.strategies.buffered',
        component_type: 'strategy',
        config: { size: 3, sise: 3 },
      }),
    ).toThrow(/sise/)
  })

  it('the budget is read once, from fit first and then the strategy', () => {
    expect(fit(h, { strategy: tokenLimited({ limit: 400 }) }).budget).toBe(400)
    expect(fit(h, { strategy: tokenLimited({ limit: 400 }), budget: 300 }).budget).toBe(300)
    expect(fit(h, { strategy: 'tokenLimited', limit: 350 }).budget).toBe(350)
    expect(new ChatContext({ strategy: 'scoreBased', limit: 250 }).budget).toBe(250)
  })
})

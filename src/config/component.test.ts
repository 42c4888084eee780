import { describe, expect, it } from 'vitest'
import { ChatContext } from '../context/chat/chat-context.js'
import { InvalidStateError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { buffered } from '../strategies/buffered.js'
import { headAndTail } from '../strategies/head-and-tail.js'
import { tokenLimited } from '../strategies/token-limited.js'
import type { Strategy } from '../strategies/types.js'
import { unbounded } from '../strategies/unbounded.js'
import { userTurns } from '../strategies/user-turns.js'
import { dropThoughts } from '../transforms/drop-thoughts.js'
import { componentJsonSchema, dumpComponent, loadComponent } from './component.js'

const sys: Message = { role: 'system', content: 'policy' }

describe('component config', () => {
  it.each<[string, Strategy]>([
    ['unbounded', unbounded()],
    ['buffered', buffered({ size: 4 })],
    ['headAndTail', headAndTail({ head: 1, tail: 3 })],
    ['tokenLimited', tokenLimited({ limit: 900, dropFrom: 'middle' })],
    ['userTurns', userTurns({ maxTurns: 2, removeToolExchanges: true })],
  ])('round-trips the %s strategy through plain JSON', (name, strategy) => {
    const json = JSON.parse(JSON.stringify(dumpComponent(strategy)))
    expect(json).toMatchObject({
      provider: `context_window.strategies.${name}`,
      componentType: 'strategy',
      version: 1,
      componentVersion: 1,
    })
    const loaded = loadComponent(json) as Strategy
    expect(loaded.name).toBe(name)
    expect(dumpComponent(loaded)).toEqual(json)
  })

  it('round-trips a whole context: strategy, transforms, budget and initial messages', async () => {
    const ctx = new ChatContext({
      strategy: buffered({ size: 2 }),
      transforms: [dropThoughts({ keepLast: 1 })],
      budget: 5000,
      initialMessages: [sys],
    })
    const json = JSON.parse(JSON.stringify(dumpComponent(ctx)))
    const loaded = loadComponent(json) as ChatContext
    expect(loaded).toBeInstanceOf(ChatContext)
    expect(dumpComponent(loaded)).toEqual(json)
    expect(await loaded.getMessages()).toEqual([sys])
  })

  it("loads AutoGen's own component JSON with its provider names and config keys", async () => {
    const autogen = {
      provider: 'autogen_core.model_context.BufferedChatCompletionContext',
      component_type: 'chat_completion_context',
      version: 1,
      component_version: 1,
      description: 'A buffered chat completion context.',
      label: 'BufferedChatCompletionContext',
      config: {
        buffer_size: 2,
        initial_messages: [
          { content: 'You are helpful.', type: 'SystemMessage' },
          { content: 'hello', source: 'user', type: 'UserMessage' },
        ],
      },
    }
    const ctx = loadComponent(autogen) as ChatContext
    expect(ctx.strategy.name).toBe('buffered')
    expect(ctx.strategy.options).toEqual({ size: 2 })
    expect(ctx.initialMessages).toEqual([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'hello', name: 'user' },
    ])

    const ht = loadComponent({
      provider: 'autogen_core.model_context.HeadAndTailChatCompletionContext',
      config: { head_size: 1, tail_size: 4 },
    }) as ChatContext
    expect(ht.strategy.options).toMatchObject({ head: 1, tail: 4 })
    const tl = loadComponent({
      provider: 'autogen_core.model_context.TokenLimitedChatCompletionContext',
      config: {
        token_limit: 1200,
        model_client: {
          provider: 'autogen_ext.models.openai.OpenAIChatCompletionClient',
          config: { model: 'gpt-4o' },
        },
      },
    }) as ChatContext
    expect(tl.strategy.options).toMatchObject({ limit: 1200, model: 'gpt-4o' })
  })

  it('refuses an unregistered provider, a newer version and a bad config, with clear messages', () => {
    expect(() => loadComponent({ provider: 'evil.module.Thing', config: {} })).toThrow(
      InvalidStateError,
    )
    expect(() => loadComponent({ provider: 'evil.module.Thing', config: {} })).toThrow(
      /unknown component provider "evil.module.Thing"/,
    )
    expect(() =>
      loadComponent({
        provider: 'context_window.strategies.buffered',
        componentVersion: 7,
        config: { size: 1 },
      }),
    ).toThrow(/version 7 is newer/)
    expect(() =>
      loadComponent({ provider: 'context_window.strategies.buffered', config: { size: -1 } }),
    ).toThrow(/config field size/)
    expect(() =>
      loadComponent({ provider: 'context_window.strategies.constructor', config: {} }),
    ).toThrow(/unknown component/)
    expect(() => loadComponent('nope')).toThrow(InvalidStateError)
  })

  it('publishes a JSON Schema for each config', () => {
    const schema = componentJsonSchema('context_window.strategies.buffered') as {
      properties: Record<string, unknown>
      required: string[]
    }
    expect(schema.properties).toHaveProperty('size')
    expect(schema.required).toEqual(['size'])
    expect(componentJsonSchema('context_window.ChatContext')).toHaveProperty('properties.budget')
  })
})

import { describe, expect, it } from 'vitest'
import { anthropicViolations } from './anthropic.js'
import { openAIChatViolations } from './openai.js'

// The oracles must catch what the providers refuse, or the property tests prove nothing.
const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'x' } }
const toolResult = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'found' }

describe('the Anthropic oracle', () => {
  it('accepts a request the API reference shows', () => {
    expect(
      anthropicViolations({
        system: 'be brief',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'text', text: 'looking' }, toolUse] },
          { role: 'user', content: [toolResult, { type: 'text', text: 'and?' }] },
          { role: 'assistant', content: '' },
        ],
      }),
    ).toEqual([])
  })
  it.each([
    ['no messages', { messages: [] }, /at least one message/],
    ['assistant first', { messages: [{ role: 'assistant', content: 'x' }] }, /first message/],
    [
      'an empty message before the last',
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [] },
          { role: 'user', content: 'b' },
        ],
      },
      /empty content/,
    ],
    [
      'a white-space text block',
      { messages: [{ role: 'user', content: [{ type: 'text', text: ' \n' }] }] },
      /empty or white space/,
    ],
    [
      'a tool_use id with a dot',
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ ...toolUse, id: 'call.1' }] },
          { role: 'user', content: [{ ...toolResult, tool_use_id: 'call.1' }] },
        ],
      },
      /does not match/,
    ],
    [
      'a call without its result',
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [toolUse] },
          { role: 'user', content: 'b' },
        ],
      },
      /no tool_result/,
    ],
    [
      'a result after text',
      {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [toolUse] },
          { role: 'user', content: [{ type: 'text', text: 'b' }, toolResult] },
        ],
      },
      /results come first/,
    ],
    [
      'an orphan result',
      { messages: [{ role: 'user', content: [toolResult] }] },
      /not a tool_use of the message before/,
    ],
    ['a lone surrogate', { messages: [{ role: 'user', content: 'a\uD83D' }] }, /lone surrogate/],
    [
      'an image block in the system prompt',
      {
        system: [
          { type: 'text', text: 'brand guide' },
          { type: 'image', source: { type: 'url', url: 'https://x.test/logo.png' } },
        ],
        messages: [{ role: 'user', content: 'hi' }],
      },
      /system\.1: not a text block/,
    ],
  ])('refuses %s', (_, request, message) => {
    expect(anthropicViolations(request).join('\n')).toMatch(message)
  })
})

describe('the OpenAI chat oracle', () => {
  const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }
  it('accepts a request the API reference shows', () => {
    expect(
      openAIChatViolations([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
        { role: 'assistant', content: 'done', refusal: null },
        {
          role: 'user',
          content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }],
        },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
      ]),
    ).toEqual([])
  })
  it.each([
    ['no messages', [], /non-empty/],
    ['an unknown role', [{ role: 'constructor', content: 'x' }], /unknown role/],
    [
      'an assistant with neither content nor calls',
      [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: null, refusal: 'no' },
      ],
      /required unless tool_calls/,
    ],
    [
      'a call without its tool message',
      [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'user', content: 'b' },
      ],
      /no tool message/,
    ],
    [
      'a tool message without its call',
      [{ role: 'tool', tool_call_id: 'x', content: 'r' }],
      /does not answer/,
    ],
    [
      'an id twice in one message',
      [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: null, tool_calls: [call, call] },
        { role: 'tool', tool_call_id: 'call_1', content: 'r' },
      ],
      /used twice/,
    ],
    [
      'an image part in an assistant message',
      [
        { role: 'user', content: 'draw it' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'here' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ],
      /assistant parts are text or refusal/,
    ],
    [
      'a file part in an assistant message',
      [
        { role: 'user', content: 'send it' },
        { role: 'assistant', content: [{ type: 'file', file: { file_data: 'AAAA' } }] },
      ],
      /assistant parts are text or refusal/,
    ],
    [
      'an image part in a tool message (a screenshot tool)',
      [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: null, tool_calls: [call] },
        {
          role: 'tool',
          tool_call_id: 'call_1',
          content: [
            { type: 'text', text: 'captured' },
            { type: 'image_url', image_url: { url: 'https://x.test/s.png' } },
          ],
        },
      ],
      /messages\.2\.content\.1: only text parts/,
    ],
    [
      'an image part in a system message',
      [
        {
          role: 'system',
          content: [{ type: 'image_url', image_url: { url: 'https://x.test/logo.png' } }],
        },
        { role: 'user', content: 'hi' },
      ],
      /messages\.0\.content\.0: only text parts/,
    ],
    [
      'a file part in a developer message',
      [
        { role: 'developer', content: [{ type: 'file', file: { file_data: 'AAAA' } }] },
        { role: 'user', content: 'hi' },
      ],
      /messages\.0\.content\.0: only text parts/,
    ],
  ])('refuses %s', (_, messages, message) => {
    expect(openAIChatViolations(messages).join('\n')).toMatch(message)
  })
})

describe('the Anthropic oracle on server tools', () => {
  const use = {
    type: 'server_tool_use',
    id: 'srvtoolu_1',
    name: 'web_search',
    input: { query: 'x' },
  }
  const result = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }
  const request = (content: unknown[]) => ({
    messages: [
      { role: 'user', content: 'search' },
      { role: 'assistant', content },
    ],
  })
  it('accepts a server tool use and its result in one assistant message', () => {
    expect(anthropicViolations(request([use, result, { type: 'text', text: 'done' }]))).toEqual([])
  })
  it.each([
    ['a result without its use', [result], /not a server_tool_use before it/],
    ['a result before its use', [result, use], /not a server_tool_use before it/],
    ['two results for one use', [use, result, result], /a second result/],
    ['an id that is not a server tool id', [{ ...use, id: 'toolu_1' }], /does not match/],
  ])('refuses %s', (_name, content, rule) => {
    expect(anthropicViolations(request(content)).join()).toMatch(rule)
  })
})

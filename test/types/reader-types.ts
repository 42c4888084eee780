// Compiled by `npm run typecheck`: the readers take the SDKs' own message types and request
// objects, and any value typed unknown (parsed JSON); a wrong shape written in code is a
// compile error. Nothing here runs.

import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { fit, fromAnthropic, fromOpenAIChat, fromOpenAIResponses } from '../../src/index.js'

fromOpenAIChat([{ role: 'user', content: 'x' }])
fromOpenAIChat([
  {
    role: 'user',
    content: [
      { type: 'text', text: 'x' },
      { type: 'image_url', image_url: { url: 'u' } },
    ],
  },
])
fromOpenAIChat([
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 'a', content: 'r' },
])
fromOpenAIChat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })
declare const sdk: OpenAI.ChatCompletionMessageParam[]
fromOpenAIChat(sdk)
declare const req: OpenAI.ChatCompletionCreateParamsNonStreaming
fromOpenAIChat(req)
declare const am: Anthropic.MessageParam[]
fromAnthropic(am)
declare const areq: Anthropic.MessageCreateParamsNonStreaming
fromAnthropic(areq)
fromAnthropic({ system: 's', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] })
fromOpenAIChat(JSON.parse('[]'))
declare const u: unknown
fromOpenAIChat(u)
// @ts-expect-error a role OpenAI does not have
fromOpenAIChat([{ role: 'robot', content: 'x' }])
// @ts-expect-error a user message needs content
fromOpenAIChat([{ role: 'user' }])
// @ts-expect-error the library's own messages are no OpenAI messages
fromOpenAIChat([{ role: 'tool', toolCallId: 'a', content: 'r' }])
// @ts-expect-error OpenAI messages are no Anthropic messages
fromAnthropic(sdk)
// @ts-expect-error not a list
fromOpenAIChat('hello')

// fit takes the library's messages: an SDK's are refused with a one-line hint to convert.
// @ts-expect-error fit takes the library's messages: convert first, e.g. fit(fromOpenAIChat(messages))
fit(sdk)
fit(fromOpenAIChat(sdk))
fit([{ role: 'user', content: 'x' }])

// OpenAI Responses: the SDK's input items and request, and a wrong role refused.
declare const items: OpenAI.Responses.ResponseInputItem[]
fromOpenAIResponses(items)
declare const create: OpenAI.Responses.ResponseCreateParamsNonStreaming
fromOpenAIResponses({ input: items, instructions: create.instructions ?? null })
fromOpenAIResponses([
  { role: 'user', content: 'x' },
  { type: 'function_call_output', call_id: 'c', output: 'ok' },
])
// @ts-expect-error a role the Responses API does not have
fromOpenAIResponses([{ role: 'robot', content: 'x' }])

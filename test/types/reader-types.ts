// Compiled by `npm run typecheck`: the readers take the SDKs' own message types and request
// objects, and any value typed unknown (parsed JSON); a wrong shape written in code is a
// compile error. Nothing here runs.

import type Anthropic from '@anthropic-ai/sdk'
import type { Content, GenerateContentConfig, GenerateContentResponse } from '@google/genai'
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import type { ModelMessage } from 'ai'
import type { ModelMessage as ModelMessageV5 } from 'ai-v5'
import type OpenAI from 'openai'
import {
  fit,
  fromAISDK,
  fromAnthropic,
  fromAutoGen,
  fromGemini,
  fromLangChain,
  fromOpenAIChat,
  fromOpenAIResponses,
} from '../../src/index.js'

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
declare const reply: OpenAI.ChatCompletionMessageParam
fromOpenAIChat([...sdkHistory(), reply])
fromOpenAIChat({ messages: [...sdkHistory(), reply] })
// @ts-expect-error a wrong message after a spread is still found
fromOpenAIChat([...sdkHistory(), { role: 'robot', content: 'x' }])
declare const sdk: OpenAI.ChatCompletionMessageParam[]
declare function sdkHistory(): OpenAI.ChatCompletionMessageParam[]
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

// Gemini: the SDK's Content list, a model turn from a response, and the request's parts.
declare const contents: Content[]
fromGemini(contents)
declare const response: GenerateContentResponse
const turn = response.candidates?.[0]?.content
if (turn) fromGemini([...contents, turn])
declare const config: GenerateContentConfig
const system = config.systemInstruction
if (typeof system === 'string') fromGemini({ contents, config: { systemInstruction: system } })
fromGemini({
  systemInstruction: { parts: [{ text: 'policy' }] },
  contents: [
    {
      role: 'user',
      parts: [{ text: 'x' }, { inlineData: { mimeType: 'image/png', data: 'AA==' } }],
    },
    { role: 'model', parts: [{ functionCall: { id: 'c', name: 'f', args: {} } }] },
    { role: 'user', parts: [{ functionResponse: { id: 'c', name: 'f', response: { ok: 1 } } }] },
    { role: 'model', parts: [{ executableCode: { language: 'PYTHON', code: '1' } }] },
  ],
})
fromGemini(u)
fromGemini(JSON.parse('{}'), { firstTurn: 2 })
// @ts-expect-error a message of another format (role and content) is no Gemini content
fromGemini([{ role: 'user', content: 'x' }])
// @ts-expect-error parts are a list
fromGemini([{ role: 'user', parts: 'x' }])
// @ts-expect-error a part is an object
fromGemini([{ role: 'user', parts: ['x'] }])
// @ts-expect-error OpenAI messages are no Gemini contents
fromGemini(sdk)
// @ts-expect-error a request's conversation is its contents
fromGemini({ messages: contents })

// AI SDK: ModelMessage of the current major and of v5, and a generateText-style object.
declare const modelMessages: ModelMessage[]
fromAISDK(modelMessages)
declare const modelMessagesV5: ModelMessageV5[]
fromAISDK(modelMessagesV5)
fromAISDK({ messages: modelMessages })
fromAISDK([
  { role: 'system', content: 's' },
  { role: 'user', content: [{ type: 'image', image: new URL('https://x/y.png') }] },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: {} }],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c',
        toolName: 'f',
        output: { type: 'text', value: 'ok' },
      },
    ],
  },
])
fromAISDK(u)
// @ts-expect-error a role the AI SDK does not have
fromAISDK([{ role: 'robot', content: 'x' }])
// @ts-expect-error a system message's content is text
fromAISDK([{ role: 'system', content: [{ type: 'text', text: 's' }] }])
// @ts-expect-error a tool message's content is a list of results
fromAISDK([{ role: 'tool', content: 'r' }])
// @ts-expect-error the library's own messages are no ModelMessages
fromAISDK([{ role: 'tool', toolCallId: 'c', content: 'r' }])

// LangChain: message instances, their toDict() and toJSON() forms, a graph state.
const lc: BaseMessage[] = [
  new HumanMessage('hi'),
  new AIMessage({ content: '', tool_calls: [{ id: 't1', name: 'f', args: {} }] }),
  new ToolMessage({ tool_call_id: 't1', content: 'ok' }),
]
fromLangChain(lc)
fromLangChain([new HumanMessage('hi'), new AIMessage('yes')])
fromLangChain(lc.map((m) => m.toDict()))
fromLangChain(lc.map((m) => m.toJSON()))
fromLangChain({ messages: lc })
fromLangChain([{ type: 'human', data: { content: 'hi' } }])
fromLangChain(u)
// @ts-expect-error LangChain's role-and-content tuples and objects are read by LangChain, not here
fromLangChain([{ role: 'user', content: 'x' }])
// @ts-expect-error a bare string is no message
fromLangChain(['hi'])
// @ts-expect-error a stored message's data has its content
fromLangChain([{ type: 'human', data: {} }])

// AutoGen (Python): its LLMMessage JSON, and a saved context state.
fromAutoGen([
  { type: 'SystemMessage', content: 's' },
  { type: 'UserMessage', content: 'hi', source: 'user' },
  {
    type: 'AssistantMessage',
    content: [{ id: 'c', name: 'f', arguments: '{}' }],
    thought: null,
    source: 'assistant',
  },
  {
    type: 'FunctionExecutionResultMessage',
    content: [{ call_id: 'c', content: 'ok', name: 'f', is_error: false }],
  },
])
fromAutoGen({ messages: [{ type: 'UserMessage', content: ['look', { data: 'AA==' }] }] })
fromAutoGen(u)
fromAutoGen(JSON.parse('[]'))
// @ts-expect-error a type AutoGen does not have
fromAutoGen([{ type: 'Nope', content: 'x' }])
// @ts-expect-error AutoGen messages have a type, not a role
fromAutoGen([{ role: 'user', content: 'x' }])
// @ts-expect-error a call's arguments are a JSON string
fromAutoGen([{ type: 'AssistantMessage', content: [{ id: 'a', name: 'f', arguments: {} }] }])

// Compiled by `npm run typecheck` (strict), never run: the library's output goes into each
// SDK's own parameter types, and each SDK's shapes into the library, with no cast.
import type Anthropic from '@anthropic-ai/sdk'
import type { FunctionDeclaration, GoogleGenAI } from '@google/genai'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import {
  ChatContext,
  fit,
  fromAnthropic,
  fromGemini,
  fromLangChain,
  fromOpenAIChat,
  fromOpenAIResponses,
  toAnthropic,
  toGemini,
  toOpenAIChat,
  toOpenAIResponses,
} from 'context-window'
import type OpenAI from 'openai'

export async function openaiChat(
  openai: OpenAI,
  history: OpenAI.Chat.ChatCompletionMessageParam[],
  tools: OpenAI.Chat.ChatCompletionTool[],
) {
  const r = fit(fromOpenAIChat(history), { budget: 8000, tools })
  const completion = await openai.chat.completions.create({
    model: 'gpt-4o',
    messages: toOpenAIChat(r.messages),
    tools,
  })
  const ctx = new ChatContext({ budget: 8000, format: 'openai-chat' })
  const reply = completion.choices[0]?.message
  if (reply) await ctx.addMessage(reply)
  const toolResult: OpenAI.Chat.ChatCompletionToolMessageParam = {
    role: 'tool',
    tool_call_id: 'c1',
    content: 'ok',
  }
  await ctx.addMessage(toolResult)
  return toOpenAIChat(await ctx.getMessages())
}

export async function openaiResponses(
  openai: OpenAI,
  input: OpenAI.Responses.ResponseInputItem[],
  tools: OpenAI.Responses.FunctionTool[],
) {
  const r = fit(fromOpenAIResponses(input), { budget: 8000, tools, provider: 'openai-responses' })
  const response = await openai.responses.create({
    model: 'gpt-5',
    input: toOpenAIResponses(r.messages, { store: false }),
    tools,
    store: false,
  })
  const ctx = new ChatContext({
    budget: 8000,
    provider: 'openai-responses',
    format: 'openai-responses',
  })
  await ctx.addMessages(response.output)
  const output: OpenAI.Responses.ResponseInputItem.FunctionCallOutput = {
    type: 'function_call_output',
    call_id: 'c1',
    output: 'ok',
  }
  await ctx.addMessage(output)
  return toOpenAIResponses(await ctx.getMessages())
}

export async function anthropic(
  client: Anthropic,
  history: Anthropic.MessageParam[],
  tools: Anthropic.Tool[],
) {
  const r = fit(fromAnthropic({ system: 'policy', messages: history }), {
    budget: 8000,
    tools,
    provider: 'anthropic',
  })
  const { system, messages } = toAnthropic(r.messages)
  const reply = await client.messages.create({
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system,
    messages,
    tools,
  })
  const ctx = new ChatContext({ budget: 8000, provider: 'anthropic', format: 'anthropic' })
  await ctx.addMessage(reply)
  const results: Anthropic.MessageParam = {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }],
  }
  await ctx.addMessage(results)
  return toAnthropic(await ctx.getMessages()).messages
}

export async function gemini(ai: GoogleGenAI, declarations: FunctionDeclaration[]) {
  const r = fit(fromGemini({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }), {
    budget: 8000,
    tools: declarations,
    provider: 'gemini',
  })
  const request = toGemini(r.messages)
  const response = await ai.models.generateContent({
    model: 'gemini-2.5-flash',
    contents: request.contents,
    config: {
      systemInstruction: request.systemInstruction,
      tools: [{ functionDeclarations: declarations }],
    },
  })
  const ctx = new ChatContext({ budget: 8000, provider: 'gemini', format: 'gemini' })
  const turn = response.candidates?.[0]?.content
  if (turn) await ctx.addMessage(turn)
  return toGemini(await ctx.getMessages()).contents
}

export function langchain() {
  const history = [
    new HumanMessage('hi'),
    new AIMessage({ content: '', tool_calls: [{ id: 't1', name: 'f', args: {} }] }),
    new ToolMessage({ tool_call_id: 't1', content: 'ok' }),
  ]
  return fit(fromLangChain(history), { budget: 8000 }).messages
}

/** Each SDK's whole tool union, hosted and server tools included, as users hold it: no cast. */
export function sdkToolUnions(
  history: import('context-window').Message[],
  anthropicTools: Anthropic.Messages.ToolUnion[],
  responsesTools: OpenAI.Responses.Tool[],
  chatTools: OpenAI.Chat.ChatCompletionTool[],
  geminiTools: import('@google/genai').Tool[],
): number {
  const a = fit(history, { budget: 8000, provider: 'anthropic', tools: anthropicTools })
  const r = fit(history, { budget: 8000, provider: 'openai-responses', tools: responsesTools })
  const c = fit(history, { budget: 8000, tools: chatTools })
  const g = fit(history, { budget: 8000, provider: 'gemini', tools: geminiTools })
  return a.tokens.tools + r.tokens.tools + c.tokens.tools + g.tokens.tools
}

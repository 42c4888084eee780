// A consumer project at its strictest (`strict`, `exactOptionalPropertyTypes`,
// `noUncheckedIndexedAccess`, `skipLibCheck: false`), compiled against the package's
// declaration files by test/types/strict-consumer.test.ts (and by `npm run typecheck`): each
// SDK's messages go into the library and the library's output into each SDK with no cast, and
// a misspelt message is a compile error. Nothing here runs. (LangChain is in langchain.ts:
// its own declarations do not compile under exactOptionalPropertyTypes with skipLibCheck off.)
import type Anthropic from '@anthropic-ai/sdk'
import type { FunctionDeclaration, GoogleGenAI } from '@google/genai'
import {
  ChatContext,
  type FitResult,
  fit,
  fromAnthropic,
  fromGemini,
  fromOpenAIChat,
  fromOpenAIResponses,
  type Message,
  toAnthropic,
  toGemini,
  toOpenAIChat,
  toOpenAIResponses,
  validate,
} from 'context-window'
import type OpenAI from 'openai'

export async function openaiChat(
  openai: OpenAI,
  history: OpenAI.Chat.ChatCompletionMessageParam[],
  tools: OpenAI.Chat.ChatCompletionTool[],
): Promise<OpenAI.Chat.ChatCompletionMessageParam[]> {
  const r: FitResult = fit(fromOpenAIChat(history), { model: 'gpt-4o', reserve: 1000, tools })
  const completion = await openai.chat.completions.create({
    model: 'gpt-4o',
    messages: toOpenAIChat(r.messages),
    tools,
  })
  const ctx = new ChatContext({ model: 'gpt-4o', format: 'openai-chat' })
  const reply = completion.choices[0]?.message
  if (reply) await ctx.addMessage(reply)
  await ctx.addMessage({ role: 'tool', tool_call_id: 'c1', content: 'ok' })
  // @ts-expect-error a misspelt field of an OpenAI message
  await ctx.addMessage({ rol: 'user', content: 'x' })
  // @ts-expect-error the library's own shape is not the context's format
  await ctx.addMessage({ role: 'tool', toolCallId: 'c1', content: 'ok' })
  return toOpenAIChat(await ctx.getMessages())
}

export async function openaiResponses(
  openai: OpenAI,
  input: OpenAI.Responses.ResponseInputItem[],
  tools: OpenAI.Responses.FunctionTool[],
): Promise<OpenAI.Responses.ResponseInputItem[]> {
  const r = fit(fromOpenAIResponses(input), { model: 'gpt-5', tools, provider: 'openai-responses' })
  const response = await openai.responses.create({
    model: 'gpt-5',
    input: toOpenAIResponses(r.messages, { store: false }),
    tools,
    store: false,
  })
  const ctx = new ChatContext({ model: 'gpt-5', format: 'openai-responses' })
  await ctx.addMessages(response.output)
  await ctx.addMessage({ type: 'function_call_output', call_id: 'c1', output: 'ok' })
  return toOpenAIResponses(await ctx.getMessages())
}

export async function anthropic(
  client: Anthropic,
  history: Anthropic.MessageParam[],
  tools: Anthropic.Tool[],
): Promise<Anthropic.MessageParam[]> {
  const r = fit(fromAnthropic({ system: 'policy', messages: history }), {
    model: 'claude-sonnet-4-5',
    tools,
    provider: 'anthropic',
  })
  // Spread, not destructured: with exactOptionalPropertyTypes an absent `system` stays absent.
  const { lost: _lost, ...request } = toAnthropic(r.messages)
  const reply = await client.messages.create({
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    ...request,
    tools,
  })
  const ctx = new ChatContext({ model: 'claude-sonnet-4-5', format: 'anthropic' })
  await ctx.addMessage(reply)
  await ctx.addMessage({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }],
  })
  // @ts-expect-error Anthropic has no tool role
  await ctx.addMessage({ role: 'tool', content: 'ok' })
  return toAnthropic(await ctx.getMessages()).messages
}

export async function gemini(
  ai: GoogleGenAI,
  declarations: FunctionDeclaration[],
): Promise<unknown[]> {
  const r = fit(fromGemini({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }), {
    model: 'gemini-2.5-flash',
    tools: declarations,
    provider: 'gemini',
  })
  const { contents, ...config } = toGemini(r.messages)
  const response = await ai.models.generateContent({
    model: 'gemini-2.5-flash',
    contents,
    config: { ...config, tools: [{ functionDeclarations: declarations }] },
  })
  const ctx = new ChatContext({ model: 'gemini-2.5-flash', format: 'gemini' })
  const turn = response.candidates?.[0]?.content
  if (turn) await ctx.addMessage(turn)
  return toGemini(await ctx.getMessages()).contents
}

/** Written without a type: TypeScript widens `role` to string; the reader takes it and checks it at run time. */
export function untyped(): Message[] {
  const messages = [
    { role: 'system', content: 'You are an airline agent.' },
    { role: 'user', content: 'Hi' },
  ]
  fromOpenAIChat([
    { role: 'system', content: 'You are an airline agent.' },
    { role: 'user', content: 'Hi' },
  ])
  return fromOpenAIChat(messages)
}

/** The library's own messages: a misspelt one is a compile error, in a context and in a list. */
export async function own(): Promise<boolean> {
  const ctx = new ChatContext({ budget: 4000 })
  await ctx.addMessage({ role: 'user', content: 'Hi' })
  // @ts-expect-error `rol` is no field of a Message
  await ctx.addMessage({ rol: 'user', content: 'x' })
  // @ts-expect-error `contnet` is no field of a Message
  const bad: Message = { role: 'user', contnet: 'x' }
  const history: Message[] = [{ role: 'user', content: 'Hi' }]
  // @ts-expect-error nor in a list of them
  history.push({ role: 'assistant', text: 'Hello' })
  const checked = validate(await ctx.getMessages())
  return checked.valid && checked.errors.length === 0 && bad !== undefined
}

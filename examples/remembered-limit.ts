// ChatContext + withContextRetry: a deployment whose window is smaller than the model table's.
// The first "too long" rejection teaches the window; every later turn fits it.
// Run: npx tsx examples/remembered-limit.ts
// With OPENAI_API_KEY set it talks to OpenAI (or to OPENAI_BASE_URL); without, to the loopback
// provider of examples/loopback/, which it starts itself: a model with a 4,200-token window.
import { ChatContext, toOpenAIChat, withContextRetry } from 'context-window'
import OpenAI from 'openai'
import { loopbackUnlessKeyed } from './loopback/index.js'

await loopbackUnlessKeyed('openai')

const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, maxRetries: 0 })
const ctx = new ChatContext({
  model: 'gpt-4o', // the table says 128,000 tokens; the deployment may allow fewer
  reserve: 500,
  initialMessages: [{ role: 'system', content: 'You are a concise airline agent.' }],
})

for (let turn = 1; turn <= 8; turn++) {
  const question = `Turn ${turn}: ${'Please check the baggage allowance, the seat and the fare of my booking. '.repeat(40)}`
  await ctx.addMessage({ role: 'user', content: question })
  const { value, retried } = await withContextRetry(
    (messages) =>
      client.chat.completions.create({
        model: 'gpt-4o',
        max_tokens: 500,
        messages: toOpenAIChat(messages) as OpenAI.ChatCompletionMessageParam[],
      }),
    ctx,
  )
  await ctx.addMessage({ role: 'assistant', content: value.choices[0]?.message.content ?? '' })
  console.log(
    `turn ${turn}: ${retried ? `rejected, learnt a window of ${retried.budget} tokens, sent again` : 'sent'}` +
      ` (prompt ${value.usage?.prompt_tokens} tokens)`,
  )
}
// The learnt window is part of the saved state (and shared over a store).
console.log(`saved limit: ${JSON.stringify(ctx.saveState().limit)}`)

// Vercel AI SDK: fitMiddleware fits every call of a wrapped model (system prompt and tools
// counted, rules by the model's provider id); fitEachStep does the same in prepareStep.
// Run: npx tsx examples/ai-sdk.ts
// With OPENAI_API_KEY set it talks to OpenAI (or to OPENAI_BASE_URL); without, to the loopback
// provider of examples/loopback/, which it starts itself: a model with a 4,200-token window.
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai'
import { fitEachStep, fitMiddleware } from 'context-window/ai-sdk'
import { z } from 'zod'
import { loopbackUnlessKeyed } from './loopback/index.js'

await loopbackUnlessKeyed('openai')

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL })
const system = 'You are a concise airline agent.'
const lookup = tool({
  description: 'Look up a reservation',
  inputSchema: z.object({ query: z.string() }),
  execute: async ({ query }) => `Reservation ${query}: JFK to SEA, May 19, economy, 2 passengers.`,
})

// 1. Any model, wrapped: a rejection teaches the window and the call is sent once more.
const middleware = fitMiddleware({ model: 'gpt-4o' })
const model = wrapLanguageModel({ model: openai.chat('gpt-4o'), middleware })
const messages: ModelMessage[] = []
for (let turn = 1; turn <= 8; turn++) {
  messages.push({
    role: 'user',
    content: `Turn ${turn}: ${'Check my booking, the seat and the baggage allowance. '.repeat(50)}`,
  })
  const out = await generateText({
    model,
    system,
    messages,
    tools: { lookup },
    stopWhen: stepCountIs(3),
    maxOutputTokens: 400,
  })
  messages.push(...out.response.messages)
  // out.usage is the last step's (one request); out.totalUsage sums the steps.
  console.log(
    `turn ${turn}: ${out.steps.length} steps, the last one's prompt ${out.usage.inputTokens} tokens`,
  )
}
console.log(`learnt window: ${middleware.feedback.limit ?? 'none'}`)

// 2. prepareStep: the system prompt is counted inside the budget and sent as the step's system.
const step = await generateText({
  model: openai.chat('gpt-4o'),
  messages,
  prepareStep: fitEachStep({ system, budget: 1500 }),
})
console.log(`prepareStep at 1500: prompt ${step.usage.inputTokens} tokens`)

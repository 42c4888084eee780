// Mastra (@mastra/core 0.24, the release line that runs on Node 20): fitInputProcessor fits
// the messages of each call; a rejection teaches the window through its feedback.
// Run: npx tsx examples/mastra.ts
// With OPENAI_API_KEY set it talks to OpenAI (or to OPENAI_BASE_URL); without, to the loopback
// provider of examples/loopback/, which it starts itself: a model with a 4,200-token window.
import { Mastra } from '@mastra/core'
import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { fitInputProcessor } from 'context-window/mastra'
import { z } from 'zod'
import { loopbackUnlessKeyed } from './loopback/index.js'

await loopbackUnlessKeyed('openai')

const instructions = 'You are a concise airline agent.'
const processor = fitInputProcessor({ model: 'gpt-4o', reserve: 400, instructions })
const airline = new Agent({
  name: 'airline',
  instructions,
  model: {
    id: 'openai/gpt-4o',
    url: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
    apiKey: process.env.OPENAI_API_KEY ?? '',
  },
  tools: {
    lookup: createTool({
      id: 'lookup',
      description: 'Look up a reservation',
      inputSchema: z.object({ query: z.string() }),
      execute: async ({ context }) => `Reservation ${context.query}: JFK to SEA, May 19, economy.`,
    }),
  },
  inputProcessors: [processor],
})
// Mastra logs every failed call with its stack; the one "too long" rejection below is expected
// and handled, so this app logs nothing (pass your logger here instead).
const agent = new Mastra({ agents: { airline }, logger: false }).getAgent('airline')

const messages: Parameters<typeof agent.generate>[0][] = []
for (let turn = 1; turn <= 8; turn++) {
  const question = `Turn ${turn}: ${'Check my booking, the seat and the baggage allowance. '.repeat(50)}`
  messages.push({ role: 'user', content: question } as never)
  const go = () =>
    agent.generate(messages as never, {
      maxSteps: 3,
      modelSettings: { maxOutputTokens: 400, maxRetries: 0 },
    })
  const result = await go().catch((error) => {
    // Read against this conversation's last request (no memory here: one thread, no id).
    if (!processor.learn(error)) throw error // not a "too long" rejection
    return go()
  })
  messages.push(...((result.response.messages ?? []) as never[]))
  // result.usage sums every step's; one request's prompt is a step's own.
  const prompts = result.steps.map((s) => s.usage.inputTokens)
  console.log(`turn ${turn}: ${result.steps.length} steps, prompts ${prompts.join(' and ')} tokens`)
}
console.log(`learnt window: ${processor.feedback.limit ?? 'none'}`)

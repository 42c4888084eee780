// Mastra (@mastra/core 0.24, the release line that runs on Node 20): fitInputProcessor fits
// the messages of each call; a rejection teaches the window through its feedback.
// Run: OPENAI_BASE_URL=... OPENAI_API_KEY=... npx tsx examples/mastra.ts
import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { fitInputProcessor } from 'context-window/mastra'
import { z } from 'zod'

const instructions = 'You are a concise airline agent.'
const processor = fitInputProcessor({ model: 'gpt-4o', reserve: 400, instructions })
const agent = new Agent({
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
  console.log(
    `turn ${turn}: ${result.steps.length} steps, prompt ${result.usage.inputTokens} tokens`,
  )
}
console.log(`learnt window: ${processor.feedback.limit ?? 'none'}`)

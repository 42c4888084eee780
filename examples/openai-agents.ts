// OpenAI Agents SDK: fitModelInput is a callModelInputFilter that fits each model call's
// items; fittedSession stores the whole history and hands the model a fitted one.
// Run: npx tsx examples/openai-agents.ts
// With OPENAI_API_KEY set it talks to OpenAI (or to OPENAI_BASE_URL); without, to the loopback
// provider of examples/loopback/, which it starts itself: a model with a 4,200-token window.
import {
  Agent,
  MemorySession,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  tool,
  user,
} from '@openai/agents'
import { ProviderFeedback } from 'context-window'
import { fitModelInput, fittedSession } from 'context-window/openai-agents'
import OpenAI from 'openai'
import { z } from 'zod'
import { loopbackUnlessKeyed } from './loopback/index.js'

await loopbackUnlessKeyed('openai')

setTracingDisabled(true) // this example talks to OPENAI_BASE_URL only
const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, maxRetries: 0 })
const instructions = 'You are a concise airline agent.'
const agent = new Agent({
  name: 'airline',
  instructions,
  model: new OpenAIResponsesModel(client, 'gpt-4o'),
  modelSettings: { maxTokens: 400 },
  tools: [
    tool({
      name: 'lookup',
      description: 'Look up a reservation',
      parameters: z.object({ query: z.string() }),
      execute: async ({ query }) => `Reservation ${query}: JFK to SEA, May 19, economy.`,
    }),
  ],
})

// One feedback for both: a window learnt from a rejection holds for every later call.
const feedback = new ProviderFeedback()
const options = { model: 'gpt-4o', reserve: 400, feedback }
const session = fittedSession(new MemorySession(), { ...options, instructions })
const callModelInputFilter = fitModelInput(options)

for (let turn = 1; turn <= 8; turn++) {
  const question = `Turn ${turn}: ${'Check my booking, the seat and the baggage allowance. '.repeat(50)}`
  // The run's own context: a rejection is read against this run's request, not another's.
  const context = { turn }
  const go = (input: ReturnType<typeof user>[]) =>
    run(agent, input, { session, context, callModelInputFilter })
  const result = await go([user(question)]).catch(async (error) => {
    if (!callModelInputFilter.learn(error, context)) throw error // not a "too long" rejection
    // Send the turn again unless the rejected run already stored it.
    const stored = JSON.stringify(await session.allItems()).includes(`Turn ${turn}:`)
    return go(stored ? [] : [user(question)])
  })
  const all = await session.allItems()
  const seen = await session.getItems()
  console.log(
    `turn ${turn}: stored ${all.length} items, the model sees ${seen.length}: ${result.finalOutput?.slice(0, 20)}…`,
  )
}
console.log(`learnt window: ${feedback.limit ?? 'none'}`)

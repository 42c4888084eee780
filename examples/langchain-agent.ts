// LangChain v1: fitAgentMessages is a createAgent middleware that fits each model call's
// messages (the agent's own message instances in and out); the agent's state keeps everything.
// Run: npx tsx examples/langchain-agent.ts
// With OPENAI_API_KEY set it talks to OpenAI (or to OPENAI_BASE_URL); without, to the loopback
// provider of examples/loopback/, which it starts itself: a model with a 4,200-token window.
import { ChatOpenAI } from '@langchain/openai'
import { fitAgentMessages } from 'context-window/langchain'
import { type BaseMessage, createAgent, HumanMessage, tool } from 'langchain'
import { z } from 'zod'
import { loopbackUnlessKeyed } from './loopback/index.js'

await loopbackUnlessKeyed('openai')

const lookup = tool(async ({ query }) => `Reservation ${query}: JFK to SEA, May 19, economy.`, {
  name: 'lookup',
  description: 'Look up a reservation',
  schema: z.object({ query: z.string() }),
})
const fitting = fitAgentMessages({ reserve: 400 })
const agent = createAgent({
  model: new ChatOpenAI({
    model: 'gpt-4o',
    maxTokens: 400,
    maxRetries: 0,
    configuration: { baseURL: process.env.OPENAI_BASE_URL },
  }),
  tools: [lookup],
  systemPrompt: 'You are a concise airline agent.',
  middleware: [fitting],
})

let messages: BaseMessage[] = []
for (let turn = 1; turn <= 8; turn++) {
  const question = `Turn ${turn}: ${'Check my booking, the seat and the baggage allowance. '.repeat(50)}`
  const state = await agent.invoke({ messages: [...messages, new HumanMessage(question)] })
  messages = state.messages
  console.log(`turn ${turn}: the agent holds ${messages.length} messages`)
}
console.log(`learnt window: ${fitting.feedback.limit ?? 'none'}`)

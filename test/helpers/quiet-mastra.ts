import type { Agent } from '@mastra/core/agent'
import { noopLogger } from '@mastra/core/logger'

/**
 * The agent with Mastra's logger off: the loopback servers reject requests on purpose, Mastra
 * logs each rejection to the console, and the tests assert on what the agent returns instead.
 */
export function quiet<A extends Agent>(agent: A): A {
  agent.__setLogger(noopLogger)
  return agent
}

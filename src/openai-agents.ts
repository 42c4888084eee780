/**
 * `context-window/openai-agents`: the OpenAI Agents SDK adapters: a `callModelInputFilter`,
 * a session wrapper and a model wrapper.
 */
export {
  type FittedSessionOptions,
  fitAgentModel,
  fitModelInput,
  fittedSession,
} from './integrations/openai-agents.js'
export type { AdapterOptions } from './integrations/shared.js'
/** The recall tool as this framework's tool: the model gets back what a fit left out. */
export { type RecallToolOptions, recallToolForOpenAIAgents } from './recall/frameworks.js'

/** `context-window/langchain`: the LangChain v1 `createAgent` middleware. */
export { fitAgentMessages } from './integrations/langchain.js'
/** LangChain message instances from the library's messages (`toLangChain` gives their JSON). */
export {
  type LangChainMessageClasses,
  toLangChainMessages,
} from './integrations/langchain-messages.js'
export type { AdapterOptions } from './integrations/shared.js'
/** The recall tool as this framework's tool: the model gets back what a fit left out. */
export { type RecallToolOptions, recallToolForLangChain } from './recall/frameworks.js'

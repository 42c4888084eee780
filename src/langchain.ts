/** `context-window/langchain`: the LangChain v1 `createAgent` middleware. */
export { fitAgentMessages } from './integrations/langchain.js'
export type { AdapterOptions } from './integrations/shared.js'
/** The recall tool as this framework's tool: the model gets back what a fit left out. */
export { type RecallToolOptions, recallToolForLangChain } from './recall/frameworks.js'

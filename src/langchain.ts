/** `context-window/langchain`: the LangChain v1 `createAgent` middleware. */
export { fitAgentMessages } from './integrations/langchain.js'
export type { AdapterOptions } from './integrations/shared.js'

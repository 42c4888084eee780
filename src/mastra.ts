/** `context-window/mastra`: the Mastra input processor. */
export { fitInputProcessor } from './integrations/mastra.js'
export type { AdapterOptions } from './integrations/shared.js'
/** The recall tool as this framework's tool: the model gets back what a fit left out. */
export { type RecallToolOptions, recallToolForMastra } from './recall/frameworks.js'

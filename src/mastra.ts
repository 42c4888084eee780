/** `context-window/mastra`: the Mastra input processor. */
export { fitInputProcessor } from './integrations/mastra.js'
export type { AdapterOptions } from './integrations/shared.js'

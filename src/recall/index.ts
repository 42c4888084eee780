export {
  RECALL_HEADING,
  type RecallRequest,
  type RecallResult,
  readRecallRequest,
  recall,
} from '../context/recall.js'
export { executeRecall, recallAnswer, recallText } from '../context/recall-tool.js'
export {
  checkRecallOptions,
  RECALL_DEFAULTS,
  RECALL_DESCRIPTION,
  RECALL_PARAMETERS,
  RECALL_TOOL_NAME,
  type RecallOptions,
  type RecallToolFormat,
  recallTool,
} from './definition.js'
export {
  type RecallToolOptions,
  recallArgumentsSchema,
  recallToolForAISDK,
  recallToolForLangChain,
  recallToolForMastra,
  recallToolForOpenAIAgents,
} from './frameworks.js'

export {
  checkRecallOptions,
  RECALL_DEFAULTS,
  RECALL_HEADING,
  type RecallOptions,
  type RecallRequest,
  type RecallResult,
  readRecallRequest,
  recall,
} from './recall.js'
export {
  executeRecall,
  RECALL_DESCRIPTION,
  RECALL_PARAMETERS,
  RECALL_TOOL_NAME,
  type RecallToolFormat,
  recallText,
  recallTool,
} from './tool.js'

/**
 * The run-time names the root entry exported before they moved to `context-window/advanced`
 * and `context-window/schemas`. Kept for one release; each is marked deprecated where an
 * editor shows it. Their types are still exported by the root.
 */
import * as advanced from './advanced.js'
import * as schemas from './schemas.js'

/** @deprecated Import from `context-window/advanced`. */
export const DEFAULT_PROMPT: typeof advanced.DEFAULT_PROMPT = advanced.DEFAULT_PROMPT
/** @deprecated Import from `context-window/advanced`. */
export const FACTS_HEADING: typeof advanced.FACTS_HEADING = advanced.FACTS_HEADING
/** @deprecated Import from `context-window/advanced`. */
export const asyncStrategyFromOptions: typeof advanced.asyncStrategyFromOptions =
  advanced.asyncStrategyFromOptions
/** @deprecated Import from `context-window/advanced`. */
export const checkFacts: typeof advanced.checkFacts = advanced.checkFacts
/** @deprecated Import from `context-window/advanced`. */
export const extractFacts: typeof advanced.extractFacts = advanced.extractFacts
/** @deprecated Import from `context-window/advanced`. */
export const fitFacts: typeof advanced.fitFacts = advanced.fitFacts
/** @deprecated Import from `context-window/advanced`. */
export const renderFacts: typeof advanced.renderFacts = advanced.renderFacts
/** @deprecated Import from `context-window/advanced`. */
export const summarizerFromJSON: typeof advanced.summarizerFromJSON = advanced.summarizerFromJSON
/** @deprecated Import from `context-window/advanced`. */
export const summarizingFromOptions: typeof advanced.summarizingFromOptions =
  advanced.summarizingFromOptions
/** @deprecated Import from `context-window/advanced`. */
export const summaryLedger: typeof advanced.summaryLedger = advanced.summaryLedger
/** @deprecated Import from `context-window/advanced`. */
export const transcript: typeof advanced.transcript = advanced.transcript
/** @deprecated Import from `context-window/advanced`. */
export const dumpComponent: typeof advanced.dumpComponent = advanced.dumpComponent
/** @deprecated Import from `context-window/advanced`. */
export const loadComponent: typeof advanced.loadComponent = advanced.loadComponent
/** @deprecated Import from `context-window/advanced`. */
export const createTransform: typeof advanced.createTransform = advanced.createTransform
/** @deprecated Import from `context-window/advanced`. */
export const registerTransform: typeof advanced.registerTransform = advanced.registerTransform
/** @deprecated Import from `context-window/advanced`. */
export const transformNames: typeof advanced.transformNames = advanced.transformNames
/** @deprecated Import from `context-window/advanced`. */
export const createStrategy: typeof advanced.createStrategy = advanced.createStrategy
/** @deprecated Import from `context-window/advanced`. */
export const promptTokensOf: typeof advanced.promptTokensOf = advanced.promptTokensOf
/** @deprecated Import from `context-window/advanced`. */
export const registerStrategy: typeof advanced.registerStrategy = advanced.registerStrategy
/** @deprecated Import from `context-window/advanced`. */
export const strategyNames: typeof advanced.strategyNames = advanced.strategyNames
/** @deprecated Import from `context-window/advanced`. */
export const AI_SDK: typeof advanced.AI_SDK = advanced.AI_SDK
/** @deprecated Import from `context-window/advanced`. */
export const ANTHROPIC: typeof advanced.ANTHROPIC = advanced.ANTHROPIC
/** @deprecated Import from `context-window/advanced`. */
export const AUTOGEN: typeof advanced.AUTOGEN = advanced.AUTOGEN
/** @deprecated Import from `context-window/advanced`. */
export const FORMATS: typeof advanced.FORMATS = advanced.FORMATS
/** @deprecated Import from `context-window/advanced`. */
export const GEMINI: typeof advanced.GEMINI = advanced.GEMINI
/** @deprecated Import from `context-window/advanced`. */
export const LANGCHAIN: typeof advanced.LANGCHAIN = advanced.LANGCHAIN
/** @deprecated Import from `context-window/advanced`. */
export const OPENAI_RESPONSES: typeof advanced.OPENAI_RESPONSES = advanced.OPENAI_RESPONSES
/** @deprecated Import from `context-window/advanced`. */
export const convert: typeof advanced.convert = advanced.convert
/** @deprecated Import from `context-window/advanced`. */
export const decode: typeof advanced.decode = advanced.decode
/** @deprecated Import from `context-window/advanced`. */
export const detectFormat: typeof advanced.detectFormat = advanced.detectFormat
/** @deprecated Import from `context-window/advanced`. */
export const encode: typeof advanced.encode = advanced.encode
/** @deprecated Import from `context-window/advanced`. */
export const encodeGemini: typeof advanced.encodeGemini = advanced.encodeGemini
/** @deprecated Import from `context-window/advanced`. */
export const encodeOpenAIResponses: typeof advanced.encodeOpenAIResponses =
  advanced.encodeOpenAIResponses
/** @deprecated Import from `context-window/advanced`. */
export const contentText: typeof advanced.contentText = advanced.contentText
/** @deprecated Import from `context-window/advanced`. */
export const messageText: typeof advanced.messageText = advanced.messageText
/** @deprecated Import from `context-window/advanced`. */
export const startsUserTurn: typeof advanced.startsUserTurn = advanced.startsUserTurn
/** @deprecated Import from `context-window/advanced`. */
export const toUnits: typeof advanced.toUnits = advanced.toUnits
/** @deprecated Import from `context-window/advanced`. */
export const ANTHROPIC_COMPACT_BETA: typeof advanced.ANTHROPIC_COMPACT_BETA =
  advanced.ANTHROPIC_COMPACT_BETA
/** @deprecated Import from `context-window/advanced`. */
export const ANTHROPIC_CONTEXT_BETA: typeof advanced.ANTHROPIC_CONTEXT_BETA =
  advanced.ANTHROPIC_CONTEXT_BETA
/** @deprecated Import from `context-window/advanced`. */
export const contextManagementReport: typeof advanced.contextManagementReport =
  advanced.contextManagementReport
/** @deprecated Import from `context-window/advanced`. */
export const readContextManagement: typeof advanced.readContextManagement =
  advanced.readContextManagement
/** @deprecated Import from `context-window/advanced`. */
export const LEDGER_HEADING: typeof advanced.LEDGER_HEADING = advanced.LEDGER_HEADING
/** @deprecated Import from `context-window/advanced`. */
export const MOST_RELEVANT_OPTIONS: typeof advanced.MOST_RELEVANT_OPTIONS =
  advanced.MOST_RELEVANT_OPTIONS
/** @deprecated Import from `context-window/advanced`. */
export const OMITTED_RESULT: typeof advanced.OMITTED_RESULT = advanced.OMITTED_RESULT
/** @deprecated Import from `context-window/advanced`. */
export const combine: typeof advanced.combine = advanced.combine
/** @deprecated Import from `context-window/advanced`. */
export const entities: typeof advanced.entities = advanced.entities
/** @deprecated Import from `context-window/advanced`. */
export const fuse: typeof advanced.fuse = advanced.fuse
/** @deprecated Import from `context-window/advanced`. */
export const identifiers: typeof advanced.identifiers = advanced.identifiers
/** @deprecated Import from `context-window/advanced`. */
export const nearby: typeof advanced.nearby = advanced.nearby
/** @deprecated Import from `context-window/advanced`. */
export const newestUserText: typeof advanced.newestUserText = advanced.newestUserText
/** @deprecated Import from `context-window/advanced`. */
export const pinned: typeof advanced.pinned = advanced.pinned
/** @deprecated Import from `context-window/advanced`. */
export const recency: typeof advanced.recency = advanced.recency
/** @deprecated Import from `context-window/advanced`. */
export const relevance: typeof advanced.relevance = advanced.relevance
/** @deprecated Import from `context-window/advanced`. */
export const relevanceScorer: typeof advanced.relevanceScorer = advanced.relevanceScorer
/** @deprecated Import from `context-window/advanced`. */
export const relevant: typeof advanced.relevant = advanced.relevant
/** @deprecated Import from `context-window/advanced`. */
export const roleWeights: typeof advanced.roleWeights = advanced.roleWeights
/** @deprecated Import from `context-window/advanced`. */
export const spreadScores: typeof advanced.spreadScores = advanced.spreadScores
/** @deprecated Import from `context-window/advanced`. */
export const stableCut: typeof advanced.stableCut = advanced.stableCut
/** @deprecated Import from `context-window/advanced`. */
export const unbounded: typeof advanced.unbounded = advanced.unbounded
/** @deprecated Import from `context-window/advanced`. */
export const canonicalModelId: typeof advanced.canonicalModelId = advanced.canonicalModelId
/** @deprecated Import from `context-window/advanced`. */
export const models: typeof advanced.models = advanced.models
/** @deprecated Import from `context-window/advanced`. */
export const CLEARED: typeof advanced.CLEARED = advanced.CLEARED
/** @deprecated Import from `context-window/advanced`. */
export const pipe: typeof advanced.pipe = advanced.pipe
/** @deprecated Import from `context-window/advanced`. */
export const removeToolExchanges: typeof advanced.removeToolExchanges = advanced.removeToolExchanges
/** @deprecated Import from `context-window/schemas`. */
export const assistantMessageSchema: typeof schemas.assistantMessageSchema =
  schemas.assistantMessageSchema
/** @deprecated Import from `context-window/schemas`. */
export const contentPartSchema: typeof schemas.contentPartSchema = schemas.contentPartSchema
/** @deprecated Import from `context-window/schemas`. */
export const contentSchema: typeof schemas.contentSchema = schemas.contentSchema
/** @deprecated Import from `context-window/schemas`. */
export const filePartSchema: typeof schemas.filePartSchema = schemas.filePartSchema
/** @deprecated Import from `context-window/schemas`. */
export const imagePartSchema: typeof schemas.imagePartSchema = schemas.imagePartSchema
/** @deprecated Import from `context-window/schemas`. */
export const messageSchema: typeof schemas.messageSchema = schemas.messageSchema
/** @deprecated Import from `context-window/schemas`. */
export const providerMetadataSchema: typeof schemas.providerMetadataSchema =
  schemas.providerMetadataSchema
/** @deprecated Import from `context-window/schemas`. */
export const systemMessageSchema: typeof schemas.systemMessageSchema = schemas.systemMessageSchema
/** @deprecated Import from `context-window/schemas`. */
export const textPartSchema: typeof schemas.textPartSchema = schemas.textPartSchema
/** @deprecated Import from `context-window/schemas`. */
export const toolCallSchema: typeof schemas.toolCallSchema = schemas.toolCallSchema
/** @deprecated Import from `context-window/schemas`. */
export const toolMessageSchema: typeof schemas.toolMessageSchema = schemas.toolMessageSchema
/** @deprecated Import from `context-window/schemas`. */
export const toolSchemaSchema: typeof schemas.toolSchemaSchema = schemas.toolSchemaSchema
/** @deprecated Import from `context-window/schemas`. */
export const userMessageSchema: typeof schemas.userMessageSchema = schemas.userMessageSchema
/** @deprecated Import from `context-window/schemas`. */
export const componentJsonSchema: typeof schemas.componentJsonSchema = schemas.componentJsonSchema

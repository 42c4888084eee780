/**
 * The root entry's run-time names: the calls an app makes, held to about sixty-five (the
 * calls, the typed errors, the provider's own count and recall). Everything
 * else is in a named entry, and only there: the root hands on nothing deprecated. Adding a
 * root name means adding it here, on purpose.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as advanced from '../src/advanced.js'
import * as root from '../src/index.js'
import * as schemas from '../src/schemas.js'

const ROOT = [
  // fit a conversation, or keep one
  'fit',
  'fitAsync',
  'ChatContext',
  'fitOpenAIMessages',
  'fitAnthropicRequest',
  // strategies
  'tokenLimited',
  'userTurns',
  'headAndTail',
  'buffered',
  'summarizing',
  'scoreBased',
  'mostRelevant',
  'semantic',
  'withLedger',
  // summarizers
  'extractiveSummarizer',
  'openAICompatibleSummarizer',
  // transforms
  'clearToolResults',
  'clearThinking',
  'truncateMessages',
  'dropThoughts',
  // provider rules
  'validate',
  'repair',
  'errorsOf',
  // wire formats
  'fromOpenAIChat',
  'toOpenAIChat',
  'fromOpenAIResponses',
  'toOpenAIResponses',
  'fromAnthropic',
  'toAnthropic',
  'fromGemini',
  'toGemini',
  'fromAISDK',
  'toAISDK',
  'fromLangChain',
  'toLangChain',
  'fromAutoGen',
  'toAutoGen',
  // counting and models
  'counterFor',
  'exactCounter',
  'estimateCounter',
  'loadEncoding',
  'countingEndpoint',
  'fitCounted',
  // recall what a fit left out
  'recall',
  'recallTool',
  'executeRecall',
  'findModel',
  'registerModel',
  // the provider's answers
  'withContextRetry',
  'ProviderFeedback',
  'parseOverflowError',
  'contextManagement',
  'withContextManagement',
  // stores and reports
  'memoryStore',
  'renderReport',
  // errors
  'ContextWindowError',
  'ContextOverflowError',
  'InvalidInputError',
  'InvalidOptionError',
  'InvalidPlanError',
  'InvalidStateError',
  'UnknownModelError',
  'EncodingNotLoadedError',
  'SummarizerError',
  'StoreError',
  'StoreConflictError',
  'CountingEndpointError',
]

/** The framework adapters: each only in its framework's entry. */
const ADAPTERS = [
  'fitMiddleware',
  'fitEachStep',
  'fitAISDKMessages',
  'fitAgentMessages',
  'fitModelInput',
  'fittedSession',
  'fitAgentModel',
  'fitInputProcessor',
]

describe('the root entry', () => {
  it('exports the pinned calls and nothing else', () => {
    expect(ROOT.length).toBeLessThanOrEqual(67)
    expect(new Set(ROOT).size).toBe(ROOT.length)
    expect(Object.keys(root).sort()).toEqual([...ROOT].sort())
    const exported: Record<string, unknown> = { ...root }
    for (const name of ROOT) expect(exported[name], name).toBeDefined()
  })

  it('the README states the pinned count', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const stated =
      /The root entry \(`context-window`\) holds the calls an app makes \((\d+) names/.exec(readme)
    expect(stated, 'the README sentence naming the root count').not.toBeNull()
    expect(Number(stated?.[1])).toBe(ROOT.length)
  })

  it('leaves each building block and adapter to its own entry: one home per name', () => {
    const exported: Record<string, unknown> = { ...root }
    const blocks = Object.keys({ ...advanced, ...schemas })
    expect(blocks.length).toBeGreaterThan(50)
    for (const name of [...blocks, ...ADAPTERS]) expect(exported[name], name).toBeUndefined()
  })

  it('carries no deprecated name: nothing in src/ is marked for removal', async () => {
    const { houseFigures } = await import('../scripts/house-figures.js')
    expect((await houseFigures()).deprecated).toBe(0)
  })
})

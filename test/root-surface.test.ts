/**
 * The root entry's run-time names: the calls an app makes, held to about sixty-five (the
 * calls, the typed errors, the provider's own count and recall). Everything
 * else is in a named entry; a name that moved stays at the root, deprecated, for one release.
 * Adding a root name means adding it here, on purpose.
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

/** Adapters that moved to their framework's entry (`src/deprecated-entries.ts`). */
const MOVED_ADAPTERS = [
  'fitMiddleware',
  'fitEachStep',
  'fitAISDKMessages',
  'fitAgentMessages',
  'fitModelInput',
  'fittedSession',
  'fitAgentModel',
  'fitInputProcessor',
]

/** Names that were never at the root: they start in `context-window/advanced`. */
const NEW_IN_ADVANCED = new Set([
  'checkRecallOptions',
  'RECALL_DEFAULTS',
  'RECALL_DESCRIPTION',
  'RECALL_HEADING',
  'RECALL_PARAMETERS',
  'RECALL_TOOL_NAME',
  'readRecallRequest',
  'recallArgumentsSchema',
  'recallText',
  'standingInstructions',
])

const moved = Object.fromEntries(
  Object.entries({ ...advanced, ...schemas }).filter(([name]) => !NEW_IN_ADVANCED.has(name)),
)

describe('the root entry', () => {
  it('exports the pinned calls, the deprecated names, and nothing else', () => {
    expect(ROOT.length).toBeLessThanOrEqual(67)
    expect(new Set(ROOT).size).toBe(ROOT.length)
    const expected = [...ROOT, ...MOVED_ADAPTERS, ...Object.keys(moved)]
    expect(Object.keys(root).sort()).toEqual(expected.sort())
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

  it('keeps each moved name working: the same value as its new entry', () => {
    const exported: Record<string, unknown> = { ...root }
    expect(Object.keys(moved).length).toBeGreaterThan(50)
    for (const [name, value] of Object.entries(moved)) {
      expect(value, name).toBeDefined()
      expect(exported[name], name).toBe(value)
    }
    // No root call is also a building block: each name has one home.
    for (const name of ROOT) expect(Object.keys(moved), name).not.toContain(name)
  })

  it('marks each moved name deprecated where an editor shows it, naming its entry', () => {
    const text = readFileSync(new URL('../src/deprecated-root.ts', import.meta.url), 'utf8')
    for (const name of Object.keys(moved)) {
      const entry = name in schemas ? 'schemas' : 'advanced'
      expect(text, name).toContain(
        `/** @deprecated Import from \`context-window/${entry}\`. */\nexport const ${name}: `,
      )
    }
  })
})

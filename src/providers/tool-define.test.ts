import { describe, expect, it } from 'vitest'
import { PROVIDER_APIS } from './index.js'
import { PROVIDERS } from './provider.js'
import { toolSchemas } from './tool-shapes.js'

/** A tool with a hostile parameter name and astral characters in its text. */
const tool = {
  name: 'lookup_order',
  description: 'Finds an order 📦 by id (ids like A.1000.v2) 𝒜',
  parameters: {
    type: 'object',
    properties: { ['__proto__']: { type: 'string' }, id: { type: 'string', description: '' } },
    required: ['id'],
  },
}

/**
 * Each API's function tool as its reference publishes it, written here apart from the
 * library: Chat Completions `tools[]` ({ type: 'function', function }), Responses `tools[]`
 * (flat, `strict` stated), Anthropic Messages `tools[]` (`input_schema`), Gemini
 * `functionDeclarations[]` ({ name, description, parameters }).
 */
const PUBLISHED: Record<string, unknown> = {
  openai: { type: 'function', function: tool },
  'openai-responses': { type: 'function', ...tool, strict: false },
  anthropic: { name: tool.name, description: tool.description, input_schema: tool.parameters },
  gemini: tool,
}

describe("each provider API's function tool", () => {
  it.each(PROVIDERS)('%s: as its API publishes it, and read back as the same tool', (provider) => {
    const defined = PROVIDER_APIS[provider].defineTool(structuredClone(tool))
    expect(defined).toEqual(PUBLISHED[provider])
    expect(JSON.parse(JSON.stringify(defined))).toEqual(defined)
    const [read] = toolSchemas([defined as never])
    expect(read).toMatchObject({ name: tool.name, description: tool.description })
    expect(read?.parameters).toEqual(tool.parameters)
  })
})

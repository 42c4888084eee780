import { isJson } from '../codec-kit.js'
import { tokenFigure } from '../figures.js'
import type { FunctionTool, OverflowRule, RequestLimits, ToolRules } from '../types.js'

/**
 * Gemini: up to 3,000 images in one prompt (images and PDFs together), and inline data
 * (base64 parts) only while the whole request stays under 20 MB: larger media go through
 * the File API, by URI.
 */
export const requestLimits: RequestLimits = { images: 3000, inlineBytes: 20 * 1000 * 1000 }

/** "The input token count (M) exceeds the maximum number of tokens allowed (N)." */
export const overflow: OverflowRule = {
  read(text) {
    const m =
      /input token count \(?(\d+)\)? exceeds the maximum number of tokens allowed \(?(\d+)\)?/i.exec(
        text,
      )
    return m ? { actual: Number(m[1]), limit: Number(m[2]), prompt: Number(m[1]) } : undefined
  },
}

/** `usageMetadata.promptTokenCount` (cached content is inside it). */
export function promptTokens(response: Record<string, unknown>): number | undefined {
  const meta = response.usageMetadata
  return isJson(meta) ? tokenFigure(meta.promptTokenCount) : undefined
}

/** Gemini's built-in tools, written `{ googleSearch: {} }` and the like. */
export const tools: ToolRules = {
  builtIn:
    /^(googleSearch|googleSearchRetrieval|codeExecution|urlContext|googleMaps|fileSearch|computerUse|enterpriseWebSearch|retrieval)$/,
}

/** A function tool as Gemini takes it: a function declaration, for `tools[].functionDeclarations`. */
export function defineTool({
  name,
  description,
  parameters,
}: FunctionTool): Record<string, unknown> {
  return { name, description, parameters }
}

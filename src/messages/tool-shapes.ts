import { InvalidOptionError } from '../errors.js'
import type { ToolSchema } from './message.js'

/**
 * A tool as any of the SDKs writes it, or as this library does: OpenAI chat
 * (`{ type: 'function', function }`, custom tools), OpenAI Responses (`{ type: 'function',
 * name, parameters }`), Anthropic (`{ name, input_schema }`), Gemini (a function
 * declaration, or a tool holding `functionDeclarations`).
 */
export type ToolInput =
  | ToolSchema
  | {
      type: 'function'
      function: {
        name: string
        description?: string | null | undefined
        parameters?: object | null | undefined
      }
    }
  | { type: 'custom'; custom: { name: string; description?: string | undefined; format?: object } }
  | {
      type: 'function'
      name: string
      description?: string | null | undefined
      parameters: object | null
    }
  | { name: string; description?: string | undefined; input_schema: object; type?: string | null }
  | {
      name?: string | undefined
      description?: string | undefined
      parameters?: object | undefined
      parametersJsonSchema?: unknown
    }
  | { functionDeclarations?: GeminiDeclaration[] | undefined }

interface GeminiDeclaration {
  name?: string | undefined
  description?: string | undefined
  parameters?: object | undefined
  parametersJsonSchema?: unknown
}

type Json = Record<string, unknown>

/** Each SDK's tool shapes, as the schemas counters read (name, description, parameters). */
export function toolSchemas(tools: readonly ToolInput[] | undefined): ToolSchema[] {
  if (tools === undefined) return []
  if (!Array.isArray(tools))
    throw new InvalidOptionError('tools', 'expected a list of tool definitions')
  const out: ToolSchema[] = []
  tools.forEach((raw, i) => {
    if (!raw || typeof raw !== 'object')
      throw new InvalidOptionError(`tools.${i}`, 'expected a tool definition')
    const t = raw as Json
    if (Array.isArray(t.functionDeclarations)) {
      for (const d of t.functionDeclarations as Json[])
        out.push(schema(d, d.parameters ?? d.parametersJsonSchema, i))
      return
    }
    if (t.function && typeof t.function === 'object') {
      const f = t.function as Json
      out.push(schema(f, f.parameters, i))
    } else if (t.custom && typeof t.custom === 'object') {
      const c = t.custom as Json
      out.push(schema(c, c.format, i))
    } else if (t.input_schema !== undefined) out.push(schema(t, t.input_schema, i))
    else out.push(schema(t, t.parameters ?? t.parametersJsonSchema, i))
  })
  return out
}

function schema(t: Json, parameters: unknown, i: number): ToolSchema {
  if (typeof t.name !== 'string' || !t.name)
    throw new InvalidOptionError(`tools.${i}.name`, 'expected the tool name')
  const out: ToolSchema = { name: t.name }
  if (typeof t.description === 'string') out.description = t.description
  if (parameters && typeof parameters === 'object') out.parameters = lowerTypes(parameters) as Json
  return out
}

/** Gemini writes schema types upper case (`OBJECT`, `STRING`): counted as JSON Schema writes them. */
function lowerTypes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(lowerTypes)
  if (!v || typeof v !== 'object') return v
  const out: Json = {}
  for (const [k, x] of Object.entries(v as Json))
    out[k] = k === 'type' && typeof x === 'string' ? x.toLowerCase() : lowerTypes(x)
  return out
}

import { InvalidOptionError } from '../errors.js'
import type { ToolSchema } from '../messages/message.js'
import { nestingProblem, shortPath } from '../messages/nesting.js'
import { isJson, type Json } from './codec-kit.js'
import { PROVIDER_RULES } from './table.js'

/**
 * A tool as any of the SDKs writes it, or as this library does: OpenAI chat
 * (`{ type: 'function', function }`, custom tools), OpenAI Responses (`{ type: 'function',
 * name, parameters }`, and hosted tools such as `{ type: 'web_search' }`), Anthropic
 * (`{ name, input_schema }`, and server or Anthropic-defined tools such as
 * `{ type: 'web_search_20250305', name: 'web_search' }`), Gemini (a function declaration, a
 * tool holding `functionDeclarations`, or a built-in tool such as `{ googleSearch: {} }`).
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
  | HostedTool

/** A provider-run tool: a `type` and whatever settings it takes (Gemini's built-in tools are read from its tool shape). */
export interface HostedTool {
  type: string
  name?: string | undefined
}

interface GeminiDeclaration {
  name?: string | undefined
  description?: string | undefined
  parameters?: object | undefined
  parametersJsonSchema?: unknown
}

/** Each SDK's tool shapes, as the schemas counters read (name, description, parameters). */
export function toolSchemas(tools: readonly ToolInput[] | undefined): ToolSchema[] {
  if (tools === undefined) return []
  if (!Array.isArray(tools))
    throw new InvalidOptionError('tools', 'expected a list of tool definitions')
  const out: ToolSchema[] = []
  tools.forEach((raw, i) => {
    if (!isJson(raw)) throw new InvalidOptionError(`tools.${i}`, 'expected a tool definition')
    const t = raw
    // A schema that contains itself or nests past any real one is refused before it is read.
    const deep = nestingProblem(t)
    if (deep)
      throw new InvalidOptionError(`tools.${i}.${shortPath(deep.path).join('.')}`, deep.detail)
    if (Array.isArray(t.functionDeclarations)) {
      t.functionDeclarations.forEach((d: unknown, k: number) => {
        if (!isJson(d))
          throw new InvalidOptionError(
            `tools.${i}.functionDeclarations.${k}`,
            'expected a function declaration',
          )
        out.push(schema(d, d.parameters ?? d.parametersJsonSchema, i))
      })
      return
    }
    const hosted = hostedTool(t)
    if (hosted) {
      out.push(hosted)
      return
    }
    const f = t.function
    const c = t.custom
    if (isJson(f)) out.push(schema(f, f.parameters, i))
    else if (isJson(c)) out.push(schema(c, c.format, i))
    else if (t.input_schema !== undefined) out.push(schema(t, t.input_schema, i))
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
  if (typeof t.tokens === 'number' && Number.isFinite(t.tokens) && t.tokens > 0)
    out.tokens = t.tokens
  return out
}

/** Gemini writes schema types upper case (`OBJECT`, `STRING`): counted as JSON Schema writes them. */
function lowerTypes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(lowerTypes)
  return isJson(v) ? lowerFields(v) : v
}

/** An object's fields with `lowerTypes` applied to each. */
function lowerFields(v: Json): Json {
  const out: Json = {}
  for (const [k, x] of Object.entries(v)) {
    const value = k === 'type' && typeof x === 'string' ? x.toLowerCase() : lowerTypes(x)
    // A parameter named `__proto__` is a key like any other, not the copy's prototype.
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** Each API's published overheads for its own tools, by tool type without its date. */
function overheadOf(base: string): number | undefined {
  for (const api of Object.values(PROVIDER_RULES)) {
    const table = api.tools.overhead
    if (table && Object.hasOwn(table, base)) return table[base]
  }
  return undefined
}

/** Whether a key names a built-in tool of some API (`{ googleSearch: {} }`). */
function isBuiltIn(key: string): boolean {
  return Object.values(PROVIDER_RULES).some((api) => api.tools.builtIn?.test(key) === true)
}

/**
 * A provider-run tool (OpenAI's hosted tools, Anthropic's server and client-defined tools,
 * Gemini's built-in tools), as the schema counters read: named by its name or type, counted
 * as the JSON it is sent as, plus its published overhead. Undefined for a function tool.
 */
function hostedTool(t: Json): ToolSchema | undefined {
  const type = typeof t.type === 'string' ? t.type : undefined
  const functionShaped =
    t.function !== undefined ||
    t.custom !== undefined ||
    t.input_schema !== undefined ||
    t.functionDeclarations !== undefined ||
    t.parameters !== undefined ||
    t.parametersJsonSchema !== undefined
  if (functionShaped || type === 'function' || type === 'custom') return undefined
  let name: string
  if (type) name = typeof t.name === 'string' && t.name ? t.name : type
  else {
    const keys = Object.keys(t)
    const [only] = keys
    if (typeof t.name === 'string' || keys.length !== 1 || only === undefined || !isBuiltIn(only))
      return undefined
    name = only
  }
  const base = (type ?? '').replace(/_\d{8}$/, '')
  const tokens = overheadOf(base)
  return {
    name,
    description: jsonText(t),
    ...(tokens !== undefined && { tokens }),
  }
}

/** A tool's JSON, or a typed error when it cannot be written (a cycle, too deep). */
function jsonText(t: Json): string {
  try {
    return JSON.stringify(t)
  } catch {
    throw new InvalidOptionError(
      'tools',
      'a tool that cannot be written as JSON (it contains itself, or is nested too deep)',
    )
  }
}

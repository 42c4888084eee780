import * as z from 'zod/mini'
import type { ToolSchema } from '../messages/message.js'
import { fieldsOf, isJson, isList, type Json } from '../providers/codec-kit.js'
import type { TokenCounter } from '../tokens/counter.js'

/** A zod 4 schema (`zod` or `zod/v4`): it carries `_zod`. */
function isZod4(v: unknown): v is z.ZodMiniType {
  return !!v && typeof v === 'object' && '_zod' in v
}

/** A zod 3 schema (`zod/v3` or the `zod@3` package): a `_def` with a `typeName` and a parser. */
function isZod3(v: unknown): v is { _def: Json & { typeName: string } } {
  const { _def: def, safeParse } = fieldsOf(v)
  return isJson(def) && typeof def.typeName === 'string' && typeof safeParse === 'function'
}

export function isZodSchema(v: unknown): boolean {
  return isZod4(v) || isZod3(v)
}

const converted = new WeakMap<object, Json>()

/**
 * A zod schema as the JSON Schema the frameworks send for it: zod 4 through its own
 * `toJSONSchema` (draft 2020-12, object schemas closed with `additionalProperties: false`, as LangChain and
 * the Agents SDK write them), zod 3 by reading its definition the way `zod-to-json-schema`
 * writes draft-07 (the converter LangChain uses). Any other value comes back as it is.
 */
export function jsonSchemaOf(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return schema
  const seen = converted.get(schema)
  if (seen) return seen
  let out: Json | undefined
  if (isZod4(schema)) {
    out = z.toJSONSchema(schema, {
      unrepresentable: 'any',
      io: 'input',
      override: (ctx) => {
        const json = ctx.jsonSchema
        if (json.type !== 'object' || json.additionalProperties !== undefined) return
        // Where zod writes it for a strict object: before the description.
        const { description } = json
        delete json.description
        json.additionalProperties = false
        if (description !== undefined) json.description = description
      },
    })
  } else if (isZod3(schema)) {
    out = { ...zod3(schema, 0), $schema: 'http://json-schema.org/draft-07/schema#' }
  }
  if (!out) return schema
  converted.set(schema, out)
  return out
}

/** Past this depth a zod 3 schema (a lazy one that refers to itself) is written as `{}`. */
const MAX_DEPTH = 64

/** Past this many nodes (a lazy schema that branches into itself) the rest is written as `{}`. */
const MAX_NODES = 20_000
let nodes = 0

function zod3(schema: unknown, depth: number): Json {
  if (depth === 0) nodes = 0
  if (!isZod3(schema) || depth > MAX_DEPTH || ++nodes > MAX_NODES) return {}
  const def = schema._def
  const out = zod3Type(def, depth + 1)
  if (typeof def.description === 'string') out.description = def.description
  return out
}

function zod3Type(def: Json & { typeName: string }, depth: number): Json {
  const inner = (k: string) => zod3(def[k], depth)
  switch (def.typeName) {
    case 'ZodString':
      return { type: 'string' }
    case 'ZodNumber':
      return {
        type: (isList(def.checks) ? def.checks : []).some((c) => fieldsOf(c).kind === 'int')
          ? 'integer'
          : 'number',
      }
    case 'ZodBigInt':
      return { type: 'integer', format: 'int64' }
    case 'ZodBoolean':
      return { type: 'boolean' }
    case 'ZodDate':
      return { type: 'string', format: 'date-time' }
    case 'ZodNull':
      return { type: 'null' }
    case 'ZodLiteral': {
      const v = def.value
      return { type: v === null ? 'null' : typeof v, const: v }
    }
    case 'ZodEnum':
      return { type: 'string', enum: isList(def.values) ? [...def.values] : [] }
    case 'ZodNativeEnum': {
      const values = Object.values(fieldsOf(def.values))
      return { enum: values }
    }
    case 'ZodArray':
      return { type: 'array', items: inner('type') }
    case 'ZodSet':
      return { type: 'array', uniqueItems: true, items: inner('valueType') }
    case 'ZodTuple': {
      const items = isList(def.items) ? def.items : []
      return {
        type: 'array',
        minItems: items.length,
        items: items.map((i) => zod3(i, depth)),
        ...(def.rest ? { additionalItems: inner('rest') } : {}),
      }
    }
    case 'ZodRecord':
    case 'ZodMap':
      return { type: 'object', additionalProperties: inner('valueType') }
    case 'ZodObject': {
      const shape: unknown = typeof def.shape === 'function' ? def.shape() : def.shape
      const properties: Json = {}
      const required: string[] = []
      for (const [key, value] of Object.entries(fieldsOf(shape))) {
        properties[key] = zod3(value, depth)
        const t = fieldsOf(value).isOptional
        if (!(typeof t === 'function' && t.call(value))) required.push(key)
      }
      return {
        type: 'object',
        properties,
        ...(required.length && { required }),
        additionalProperties: false,
      }
    }
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion': {
      const options = def.options instanceof Map ? [...def.options.values()] : def.options
      return { anyOf: (isList(options) ? options : []).map((o) => zod3(o, depth)) }
    }
    case 'ZodIntersection':
      return { allOf: [inner('left'), inner('right')] }
    case 'ZodOptional':
    case 'ZodReadonly':
    case 'ZodCatch':
    case 'ZodBranded':
      return inner(def.typeName === 'ZodBranded' ? 'type' : 'innerType')
    case 'ZodNullable':
      return { anyOf: [inner('innerType'), { type: 'null' }] }
    case 'ZodDefault': {
      const value: unknown = typeof def.defaultValue === 'function' ? def.defaultValue() : undefined
      return { ...inner('innerType'), ...(value !== undefined && { default: value }) }
    }
    case 'ZodEffects':
      return inner('schema')
    case 'ZodPipeline':
      return inner('in')
    case 'ZodLazy':
      return zod3(typeof def.getter === 'function' ? def.getter() : undefined, depth)
    case 'ZodPromise':
      return inner('type')
    default:
      // any, unknown, never and the rest: no constraint to write.
      return {}
  }
}

/**
 * A function tool as counted: its JSON Schema, and at least the tokens of the JSON it goes
 * out as (`wire`), so a provider whose count of tool schemas is not published (or a schema
 * past what the published formula reads) is never counted below what is sent.
 */
export function countedTool(
  tool: { name: string; description?: string | undefined; parameters?: unknown },
  wire: unknown,
  counter: TokenCounter,
): ToolSchema {
  const parameters = jsonSchemaOf(tool.parameters)
  const out: ToolSchema = {
    name: tool.name,
    ...(typeof tool.description === 'string' && { description: tool.description }),
  }
  if (isJson(parameters)) out.parameters = parameters
  // The same schema written with its keys in another order tokenizes a little differently:
  // 2% and a few tokens above the JSON cover that.
  const floor = Math.ceil(counter.countText(jsonText(wire) ?? jsonText(out) ?? '') * 1.02) + 5
  const counted = counter.countTools([out])
  if (floor > counted) out.tokens = floor - counted
  return out
}

function jsonText(v: unknown): string | undefined {
  try {
    return v === undefined ? undefined : JSON.stringify(v)
  } catch {
    return undefined
  }
}

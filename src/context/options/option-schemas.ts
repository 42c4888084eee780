import * as z from 'zod/mini'
import { toolSchemaSchema } from '../../messages/message.js'
import { PROVIDERS } from '../../providers/provider.js'
import { CUT_OPTIONS, DROP_FROM, type STABLE_OPTIONS } from '../../strategies/token-limited.js'

/** `stable` as an object: each field a number, checked further by tokenLimited's own check. */
const stableFields = {
  lowWater: z.optional(z.number()),
  evictAtLeast: z.optional(z.number()),
} satisfies Record<(typeof STABLE_OPTIONS)[number], z.ZodMiniType>

/**
 * How tokenLimited cuts, as plain JSON holds it: the schema of a saved state's and a
 * component config's `dropFrom` and `stable` (a context's default strategy, or tokenLimited
 * named in a config). The values' ranges are tokenLimited's check, made when it is built.
 */
export const cutOptionSchemas = {
  dropFrom: z.optional(z.enum(DROP_FROM)),
  stable: z.optional(z.union([z.boolean(), z.strictObject(stableFields)])),
} satisfies Record<(typeof CUT_OPTIONS)[number], z.ZodMiniType>

/** The cut options of `from` that are set, as plain JSON. */
export function cutOptionsOf(from: Partial<Record<(typeof CUT_OPTIONS)[number], unknown>>): {
  dropFrom?: (typeof DROP_FROM)[number]
  stable?: z.output<typeof cutOptionSchemas.stable>
} {
  const out: Record<string, unknown> = {}
  for (const key of CUT_OPTIONS)
    if (from[key] !== undefined) out[key] = JSON.parse(JSON.stringify(from[key]))
  return out
}

/** The ledger's options as an object (their ranges: the ledger's own check). */
export const ledgerOptionsSchema = z.strictObject({
  share: z.optional(z.number()),
  maxTokens: z.optional(z.number()),
  when: z.optional(z.enum(['always', 'tool-calls'])),
})

/** The `ledger` option as plain JSON holds it. */
const ledgerSchema = z.union([z.literal('auto'), z.boolean(), ledgerOptionsSchema])

/** The `recall` option as plain JSON holds it (its values' ranges: recall's own check). */
const recallSchema = z.union([
  z.boolean(),
  z.strictObject({ maxTokens: z.optional(z.number()), maxMessages: z.optional(z.number()) }),
])

/**
 * A context's plain settings, as a saved state and a component config both hold them (each
 * adds how it names the strategy, and a config its transforms and initial messages). What a
 * value may be beyond its type is the option's own check, made when the context is built.
 */
export const contextSettingSchemas = {
  /** The default strategy's own options (settings without a strategy keep the default). */
  ...cutOptionSchemas,
  budget: z.optional(z.number().check(z.positive())),
  model: z.optional(z.string()),
  reserve: z.optional(z.number().check(z.nonnegative())),
  provider: z.optional(z.enum(PROVIDERS)),
  tools: z.optional(z.array(toolSchemaSchema)),
  ledger: z.optional(ledgerSchema),
  /** The tool is offered, and counted, after a restore as before. */
  recall: z.optional(recallSchema),
}

export type ContextSettings = z.output<z.ZodMiniObject<typeof contextSettingSchemas>>

/** The settings of `from` that are set (the cut options only when `cut`), as plain JSON. */
export function contextSettingsOf(
  from: Readonly<Record<string, unknown>>,
  cut = true,
): ContextSettings {
  const out: Record<string, unknown> = cut ? cutOptionsOf(from) : {}
  const cutKeys: readonly string[] = CUT_OPTIONS
  for (const key of Object.keys(contextSettingSchemas))
    if (!cutKeys.includes(key) && from[key] !== undefined) out[key] = structuredClone(from[key])
  return out
}

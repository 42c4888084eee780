import * as z from 'zod/mini'
import { CUT_OPTIONS, DROP_FROM, type STABLE_OPTIONS } from '../strategies/token-limited.js'

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

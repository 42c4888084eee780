import * as z from 'zod/mini'
import en from 'zod/v4/locales/en.js'
import { emptyIssue } from './check.js'
import { nestingIssue } from './nesting.js'

// zod/mini ships no messages; its English ones make errors name the reason
// ("Invalid input: expected string, received number"). A locale the user chose is kept.
if (!z.config().localeError) z.config(en())

/**
 * The canonical message as zod/mini schemas (exported for users, saved state and component
 * config). `fit` and the summarizer check messages with `./check.ts` instead, so a bundle of them
 * carries no schema library.
 */

/**
 * Data a codec keeps so that a decode followed by an encode gives back the same JSON
 * (a `developer` role, `content: null`, fields this model has no place for). Keyed by
 * format name; never counted, never read by a strategy.
 */
export const providerMetadataSchema = z.record(z.string(), z.record(z.string(), z.unknown()))

export const textPartSchema = z.object({
  type: z.literal('text'),
  text: z.string(),
  providerMetadata: z.optional(providerMetadataSchema),
})

export const imagePartSchema = z.object({
  type: z.literal('image'),
  /** An http(s) or data: URL. */
  url: z.optional(z.string()),
  /** Base64 bytes, with `mediaType`. */
  data: z.optional(z.string()),
  mediaType: z.optional(z.string()),
  detail: z.optional(z.enum(['auto', 'low', 'high'])),
  /** Pixel size when known; lets counters price the image exactly instead of at the worst case. */
  width: z.optional(z.int().check(z.positive())),
  height: z.optional(z.int().check(z.positive())),
  providerMetadata: z.optional(providerMetadataSchema),
})

export const filePartSchema = z.object({
  type: z.literal('file'),
  url: z.optional(z.string()),
  data: z.optional(z.string()),
  mediaType: z.optional(z.string()),
  filename: z.optional(z.string()),
  providerMetadata: z.optional(providerMetadataSchema),
})

export const contentPartSchema = z.discriminatedUnion('type', [
  textPartSchema,
  imagePartSchema,
  filePartSchema,
])

export const contentSchema = z.union([z.string(), z.array(contentPartSchema)])

export const toolCallSchema = z.object({
  id: z.string().check(z.minLength(1)),
  name: z.string(),
  /** The arguments exactly as the model produced them: a JSON string, never re-serialized. */
  arguments: z.string(),
  providerMetadata: z.optional(providerMetadataSchema),
})

const base = {
  /** The speaker's name or source, where the format carries one. */
  name: z.optional(z.string()),
  providerMetadata: z.optional(providerMetadataSchema),
  /**
   * Sent whenever the system prompt is (a standing instruction, a correction): counted with
   * what must be sent, kept verbatim by every strategy, never summarized. Never sent to a
   * provider as a field.
   */
  pinned: z.optional(z.boolean()),
}

export const systemMessageSchema = z.object({
  role: z.literal('system'),
  content: contentSchema,
  ...base,
})

export const userMessageSchema = z.object({
  role: z.literal('user'),
  content: contentSchema,
  ...base,
})

export const assistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.optional(contentSchema),
  toolCalls: z.optional(z.array(toolCallSchema)),
  /** Reasoning text the model produced before its answer. */
  thought: z.optional(z.string()),
  refusal: z.optional(z.string()),
  ...base,
})

export const toolMessageSchema = z.object({
  role: z.literal('tool'),
  toolCallId: z.string().check(z.minLength(1)),
  toolName: z.optional(z.string()),
  content: contentSchema,
  isError: z.optional(z.boolean()),
  ...base,
})

export const messageSchema = z
  .discriminatedUnion('role', [
    systemMessageSchema,
    userMessageSchema,
    assistantMessageSchema,
    toolMessageSchema,
  ])
  // Copies and clones recurse: a value nested thousands deep would end in a RangeError.
  .check(
    z.superRefine((m, ctx) => {
      const issue = emptyIssue(m) ?? nestingIssue(m)
      if (issue) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path })
    }),
  )

export type ProviderMetadata = z.infer<typeof providerMetadataSchema>
export type TextPart = z.infer<typeof textPartSchema>
export type ImagePart = z.infer<typeof imagePartSchema>
export type FilePart = z.infer<typeof filePartSchema>
export type ContentPart = z.infer<typeof contentPartSchema>
export type Content = z.infer<typeof contentSchema>
export type ToolCall = z.infer<typeof toolCallSchema>
export type SystemMessage = z.infer<typeof systemMessageSchema>
export type UserMessage = z.infer<typeof userMessageSchema>
export type AssistantMessage = z.infer<typeof assistantMessageSchema>
export type ToolMessage = z.infer<typeof toolMessageSchema>
export type Message = z.infer<typeof messageSchema>
export type Role = Message['role']

/** A tool's schema as the model sees it (OpenAI's `tools[].function` shape). */
export const toolSchemaSchema = z.object({
  name: z.string(),
  description: z.optional(z.string()),
  parameters: z.optional(z.record(z.string(), z.unknown())),
  /** Tokens the provider adds for this tool beyond its text (a hosted tool's published overhead). */
  tokens: z.optional(z.number()),
})
export type ToolSchema = z.infer<typeof toolSchemaSchema>

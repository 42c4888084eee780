import { z } from 'zod'
import { nestingProblem, shortPath } from './nesting.js'

/**
 * Data a codec keeps so that a decode followed by an encode gives back the same JSON
 * (a `developer` role, `content: null`, fields this model has no place for). Keyed by
 * format name; never counted, never read by a strategy.
 */
export const providerMetadataSchema = z.record(z.string(), z.record(z.string(), z.unknown()))

export const textPartSchema = z.object({
  type: z.literal('text'),
  text: z.string(),
  providerMetadata: providerMetadataSchema.optional(),
})

export const imagePartSchema = z.object({
  type: z.literal('image'),
  /** An http(s) or data: URL. */
  url: z.string().optional(),
  /** Base64 bytes, with `mediaType`. */
  data: z.string().optional(),
  mediaType: z.string().optional(),
  detail: z.enum(['auto', 'low', 'high']).optional(),
  /** Pixel size when known; lets counters price the image exactly instead of at the worst case. */
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  providerMetadata: providerMetadataSchema.optional(),
})

export const filePartSchema = z.object({
  type: z.literal('file'),
  url: z.string().optional(),
  data: z.string().optional(),
  mediaType: z.string().optional(),
  filename: z.string().optional(),
  providerMetadata: providerMetadataSchema.optional(),
})

export const contentPartSchema = z.discriminatedUnion('type', [
  textPartSchema,
  imagePartSchema,
  filePartSchema,
])

export const contentSchema = z.union([z.string(), z.array(contentPartSchema)])

export const toolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  /** The arguments exactly as the model produced them: a JSON string, never re-serialized. */
  arguments: z.string(),
  providerMetadata: providerMetadataSchema.optional(),
})

const base = {
  /** The speaker's name or source, where the format carries one. */
  name: z.string().optional(),
  providerMetadata: providerMetadataSchema.optional(),
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
  content: contentSchema.optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  /** Reasoning text the model produced before its answer. */
  thought: z.string().optional(),
  refusal: z.string().optional(),
  ...base,
})

export const toolMessageSchema = z.object({
  role: z.literal('tool'),
  toolCallId: z.string().min(1),
  toolName: z.string().optional(),
  content: contentSchema,
  isError: z.boolean().optional(),
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
  .superRefine((m, ctx) => {
    const problem = nestingProblem(m)
    if (problem)
      ctx.addIssue({ code: 'custom', message: problem.detail, path: shortPath(problem.path) })
  })

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
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
})
export type ToolSchema = z.infer<typeof toolSchemaSchema>

/** The plain text of a message's content: text parts joined, other parts left out. */
export function contentText(content: Content | undefined): string {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  let out = ''
  for (const part of content) {
    if (part.type === 'text') out += out ? `\n${part.text}` : part.text
  }
  return out
}

/** Everything a reader would call the message's text, tool calls included. */
export function messageText(message: Message): string {
  const text = contentText(message.content)
  if (message.role !== 'assistant' || !message.toolCalls?.length) return text
  const calls = message.toolCalls.map((c) => `${c.name}(${c.arguments})`).join('\n')
  return text ? `${text}\n${calls}` : calls
}

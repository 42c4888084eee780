import { ContextWindowError } from '../errors.js'
import { requireMessages } from '../messages/check.js'
import { contentText, type Message } from '../messages/message.js'
import { name, quotedLines } from '../messages/records.js'

export interface SummarizeRequest {
  /** The messages to summarize, oldest first. */
  messages: readonly Message[]
  /** The summary of what came before them, when there is one (a running summary). */
  previousSummary?: string | undefined
  /** The summary must fit in this many tokens. */
  maxTokens: number
  signal?: AbortSignal | undefined
}

/** Turns old messages into one text that stands for them. */
export interface Summarizer {
  readonly name: string
  summarize(request: SummarizeRequest): Promise<string>
  /** What a saved state or config holds to rebuild it (never a secret such as an API key). */
  toJSON?(): unknown
}

/** A summarizer that failed: the caller falls back and keeps every message. */
export class SummarizerError extends ContextWindowError {
  override name = 'SummarizerError'
  constructor(
    message: string,
    /** Worth trying again (a timeout, a refused connection, HTTP 429 or 5xx). */
    readonly retryable: boolean,
    /** How long the server asked to wait before trying again (its Retry-After). */
    readonly retryAfterMs?: number,
  ) {
    super(message)
  }
}

/**
 * The transcript a summarizer reads, one entry per message marked by role title as AutoGen's
 * CompressibleAgent does: USER, ASSISTANT, SYSTEM, FUNCTION_CALL (name and arguments),
 * FUNCTION_RETURN (tool name and status), with the speaker's name where there is one.
 */
export function transcript(messages: readonly Message[]): string {
  requireMessages(messages)
  const lines: string[] = []
  for (const m of messages) {
    // A name is quoted unless a plain word, and a text's later lines start `> `: only the
    // library opens an entry, so no message can pose as another or as another role.
    const who = m.name ? ` (${name(m.name)})` : ''
    const text = quotedLines(contentText(m.content))
    if (m.role === 'assistant') {
      if (text) lines.push(`##ASSISTANT${who}## ${text}`)
      for (const c of m.toolCalls ?? [])
        lines.push(`##FUNCTION_CALL## ${name(c.name)}(${quotedLines(c.arguments)})`)
      if (!text && !m.toolCalls?.length && m.refusal)
        lines.push(`##ASSISTANT${who}## (refused) ${quotedLines(m.refusal)}`)
    } else if (m.role === 'tool') {
      lines.push(
        `##FUNCTION_RETURN## (${name(m.toolName ?? m.toolCallId)}, ${m.isError ? 'error' : 'ok'}) ${text}`,
      )
    } else {
      lines.push(`##${m.role.toUpperCase()}${who}## ${text}`)
    }
  }
  return lines.join('\n')
}

/** A readable line for anything thrown: an Error's message, a string, or a word for the rest (`undefined`, `null`, objects). */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message || e.name
  if (typeof e === 'string') return e
  if (e === undefined || e === null) return `the summarizer threw ${String(e)}`
  return `the summarizer threw a ${typeof e}`
}

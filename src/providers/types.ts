import type { AssistantMessage, ContentPart, Message, ToolCall } from '../messages/message.js'
import type { TokenCounter } from '../tokens/counter.js'
import type { Loss } from './codec-kit.js'
import type { Problem, ProblemCode, ValidateOptions } from './problems.js'
import type { Provider, WireFormat } from './provider.js'

/** What a list added to a conversation follows. */
export interface AddedAfter {
  /** The place of the list's first message in the history. */
  firstIndex: number
  /** The calls of the newest assistant message, which the list's results may answer. */
  openCalls: readonly ToolCall[]
  /** Tool names by call id, for results that carry none. */
  calls: ReadonlyMap<string, string>
}

/** Options of the Responses API's encoder (`toOpenAIResponses`), the widest an API's `encode` takes. */
export interface ToOpenAIResponsesOptions {
  /**
   * `preserve` (default) sends item ids as they came, except where the reasoning item an
   * item belongs to is not sent (the API rejects such an item); `omit` sends no message or
   * call ids (for histories replayed to another project or deployment).
   */
  ids?: 'preserve' | 'omit'
  /** `false`: the request is sent with `store: false`, so reasoning goes only with its `encrypted_content`. */
  store?: boolean
}

/** Options of `encode`: the Responses API's, and whether to write a whole request. */
export type EncodeOptions = ToOpenAIResponsesOptions & { request?: boolean }

/** The figures of a "too long" error, when its message gives them. */
export interface OverflowFigures {
  /** The model's limit. */
  limit?: number
  /** The size of the rejected request. */
  actual?: number
  /** The prompt's part of `actual` (without the completion asked for). */
  prompt?: number
}

/** How an API says a request was too long. */
export interface OverflowRule {
  /** The figures of this API's "too long" message, or undefined when `text` holds none. */
  read(text: string): OverflowFigures | undefined
  /** The error code it sends with one, recognised when no API's message is found. */
  code?: string
}

/**
 * What one request may carry, as the API publishes it; a figure left out has none published.
 * `validate` names what is over, and `repair` and the fit replace the oldest images and files
 * beyond it with a short text (`request-limits.ts`).
 */
export interface RequestLimits {
  /** Images in one request. */
  images?: number
  /** Bytes of image data in one request (base64 data decoded). */
  imageBytes?: number
  /** Characters of inline data (base64 images and files) in one request body. */
  inlineBytes?: number
  /**
   * Pages of PDF documents in one request, counted in PDFs sent inline (base64); a PDF sent
   * by URL or file id is not read, and one whose page objects are compressed counts 0.
   */
  pdfPages?: number
}

/** What an API publishes about its own tools. */
/** A function tool as every API takes one: its name, what it does, its JSON Schema parameters. */
export interface FunctionTool {
  name: string
  description: string
  parameters: Record<string, unknown>
}

export interface ToolRules {
  /** Tokens it adds for one of its tools beyond the tool's JSON, by tool type without its date. */
  overhead?: Readonly<Record<string, number>>
  /** Keys of its built-in tools written as `{ key: {...} }` (no `type`, no name). */
  builtIn?: RegExp
}

/** The parts of a context-management policy, checked and with defaults applied. */
export interface NativeParts {
  clearThinking?: { keep: unknown }
  clearToolResults?: {
    trigger: number
    keep: number
    clearAtLeast?: number
    excludeTools?: string[]
    clearInputs?: boolean | string[]
  }
  compact?: { trigger: number; instructions?: string; pauseAfterCompaction?: boolean }
}

/** What the provider did to the context, read from its response. */
export interface ProviderContextReport {
  provider: 'anthropic' | 'openai'
  applied: {
    type: string
    clearedInputTokens?: number
    clearedToolUses?: number
    clearedThinkingTurns?: number
  }[]
  compactions: { id?: string; summary?: string | null; encrypted: boolean }[]
}

/** Context management the API runs itself. */
export interface NativeContext {
  /** The parts of a policy it runs. */
  runs: readonly (keyof NativeParts)[]
  /** The request fields and beta flags for those parts (only parts it runs are passed). */
  request(parts: NativeParts): { body: Record<string, unknown>; betas: string[] }
  /** What it did, from its response; undefined when the response is not one of its own. */
  read(response: Record<string, unknown>): ProviderContextReport | undefined
}

/**
 * An API's own rules over a whole message list, after the shared ones: what `validate` adds
 * to its problems. Kept in a table of their own (`src/providers/checks.ts`), which only
 * `validate` reads, so an app that fits and never validates carries none of them.
 */
export type ListCheck = (
  messages: readonly Message[],
  problems: Problem[],
  options: ValidateOptions,
) => void

/**
 * What an API refuses or changes in a message list: all `validate`, `repair` and the fit
 * read of it. The shared rules (every call answered right after it, no result without its
 * call) hold for every API; these say where one differs. A flag left out is the common case.
 */
export interface MessageRules {
  /** Its name in problem messages ("OpenAI chat", "Anthropic"). */
  label: string
  /**
   * Tool call ids must match this pattern and be unique across the whole history: repair
   * renames the others in the call and its results (otherwise an id reused by a later
   * exchange is a warning).
   */
  callId?: RegExp
  /** Image and file parts from the assistant: refused (`error`) or left out by the codec (`warning`). */
  assistantMedia?: 'error' | 'warning'
  /** A tool result takes only text: repair moves its images and files to a user message after the results. */
  toolResultTextOnly?: boolean
  /** The system prompt takes only text: why, as the problem says it. */
  systemTextOnly?: string
  /**
   * Reasoning of its own goes back in a part or item of its own (in the message's
   * `providerMetadata[key].layout` as a `slot` entry): reasoning from another format is not sent.
   */
  ownReasoning?: { key: string; slot: string; noun: string }
  /** Assistant messages its own rules judge (`check`, `removals`) instead of the empty-content rule. */
  judgesOwn?(m: AssistantMessage): boolean
  /** Text of white space only is no text, and a blank text part is refused even beside others. */
  blankIsEmpty?: boolean
  /** An assistant message's reasoning or refusal is content: it goes as an item of its own. */
  reasoningIsContent?: boolean
  /** An empty message of any role is refused (otherwise only an empty assistant message is). */
  emptyRefused?: boolean
  /**
   * The empty text parts it refuses even beside other parts (Gemini: all but one carrying its
   * thought signature, which goes back as it came).
   */
  emptyTextPart?: (part: ContentPart) => boolean
  /**
   * What a request must hold: a message (`message`), a user message (`user`, said as the
   * problem), or what its own rules say (`own`).
   */
  needs: 'message' | 'user' | 'own'
  /**
   * Units its own rules take out before the shared repair, by the input index of their first
   * message. An API with these is repaired whole again when its history grows; one without
   * is repaired unit by unit.
   */
  removals?(messages: readonly Message[]): ReadonlyMap<number, ProblemCode>
  /** The calls a step keeps when repair takes some out (Gemini keeps its thought signature). */
  keepCalls?(original: readonly ToolCall[], kept: ToolCall[]): ToolCall[]
}

/**
 * A provider API's rules without its codec: what fitting, validation and tool counting
 * need. Kept apart from the codec so an app that fits canonical messages loads no wire codec
 * it does not use, and apart from what the API sends back (`ProviderReplies`) so it loads no
 * reader of errors, usage or context-management reports either.
 */
export interface ProviderRules {
  /** The `provider` option's name. */
  name: Provider
  /** The `format` name of its wire codec. */
  format: WireFormat
  /** Its history must open with a user turn after the system prompt. */
  userFirst: boolean
  /** The counter used when no model is named (undefined: the library default, o200k). */
  counter(): TokenCounter | undefined
  /** Its own tools. */
  tools: ToolRules
  /** What one request may carry (images, files, inline bytes). */
  requestLimits?: RequestLimits
  /** What it refuses or changes in a message list. */
  messages: MessageRules
}

/**
 * What a provider API sends back, as the code that reads its responses needs it (learned
 * limits, `parseOverflowError`, `promptTokensOf`, native context management): its "too long"
 * error, its usage, the context management it runs itself.
 */
export interface ProviderReplies {
  /** Its "too long" error. */
  overflow: OverflowRule
  /**
   * The prompt tokens it billed, from its response or usage object, cached tokens included;
   * undefined when the object is not in its shape.
   */
  promptTokens(response: Record<string, unknown>): number | undefined
  /** The context management it runs itself, if any. */
  native?: NativeContext
}

/**
 * One provider API as a unit: its rules and what it sends back (`ProviderRules` and
 * `ProviderReplies`, in its folder's `provider.ts`) and its wire codec (its folder's
 * `codec.ts`), brought together in its folder's `index.ts`.
 * `src/providers/index.ts` holds the one table of these; the core resolves a `provider` or
 * `format` name through it once.
 */
export interface ProviderApi extends ProviderRules, ProviderReplies {
  /** Wire messages (a list or a request object) -> canonical messages; throws a typed error on bad input. */
  decode(input: unknown): Message[]
  /**
   * Wire messages added to a conversation one at a time (a `ChatContext` fed turn by turn)
   * -> canonical messages, decoded as they would be inside the whole conversation; a typed
   * error names the message by its place in the history.
   */
  decodeAdded(list: readonly unknown[], after: AddedAfter): Message[]
  /**
   * Items the model writes as one run that decodes to one message (Responses: reasoning, its
   * message, its calls): added one at a time they are held until the run ends.
   */
  inModelRun?(item: unknown): boolean
  /**
   * Canonical messages -> the wire request, and what the wire cannot carry. `request: false`
   * asks for the bare message list where the API's request object holds more (Gemini).
   */
  encode(messages: readonly Message[], options?: EncodeOptions): { output: unknown; lost: Loss[] }
  /**
   * A function tool in the JSON its request takes: an entry of `tools` (for Gemini, a
   * function declaration for `tools[].functionDeclarations`).
   */
  defineTool(tool: FunctionTool): Record<string, unknown>
}

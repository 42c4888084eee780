/**
 * The types the readers (`fromOpenAIChat`, `fromAnthropic`, `fromGemini`, `fromAISDK`, ...) take:
 * the shape of each SDK's own message parameters, written here so that the published types name no SDK (each SDK's
 * message type is assignable to them). Each is a supertype: what the SDK allows, checked
 * field by field at run time, where a wrong value is an `InvalidInputError`.
 */

/**
 * A content part or block: an object with its `type` (the second member lets an object
 * literal carry the part's other fields; an SDK's part interface matches the first).
 */
export type TypedPart =
  | { readonly type: string }
  | { readonly type: string; readonly [field: string]: unknown }

type Content = string | readonly TypedPart[]

/** An OpenAI chat message (`ChatCompletionMessageParam`, or its JSON). */
export type OpenAIChatInputMessage =
  | {
      readonly role: 'system' | 'developer' | 'user'
      readonly content: Content
      readonly name?: string
    }
  | {
      readonly role: 'assistant'
      readonly content?: Content | null
      readonly tool_calls?: readonly TypedPart[]
      readonly function_call?: { readonly name: string; readonly arguments: string } | null
      readonly refusal?: string | null
      readonly name?: string
      /** A completion's reply (`ChatCompletionMessage`) as it comes: kept, not sent. */
      readonly annotations?: readonly unknown[]
      readonly audio?: object | null
    }
  | { readonly role: 'tool'; readonly content: Content; readonly tool_call_id: string }
  | { readonly role: 'function'; readonly content: string | null; readonly name: string }

/** What `fromOpenAIChat` reads: a message list, or a request with `messages`. */
export type OpenAIChatInput =
  | readonly OpenAIChatInputMessage[]
  | { readonly messages: readonly OpenAIChatInputMessage[] }

/** An Anthropic message (`MessageParam`, or its JSON). */
export interface AnthropicInputMessage {
  /** `system` as the SDK's type allows it; the reader takes the system prompt from `system`. */
  readonly role: 'user' | 'assistant' | 'system'
  readonly content: Content
  // A reply (`Message`) as it comes: its other fields are read past.
  readonly id?: string
  readonly type?: 'message'
  readonly model?: string
  readonly stop_reason?: string | null
  readonly stop_sequence?: string | null
  readonly usage?: object
  readonly container?: object | null
}

/** What `fromAnthropic` reads: a message list, or a request with `system` and `messages`. */
export type AnthropicInput =
  | readonly AnthropicInputMessage[]
  | {
      readonly system?: string | readonly TypedPart[]
      readonly messages: readonly AnthropicInputMessage[]
    }

/**
 * An OpenAI Responses input item (`ResponseInputItem`, or its JSON): a message by its role,
 * or any other item by its `type`.
 */
export type OpenAIResponsesInputItem =
  | {
      readonly role: 'user' | 'assistant' | 'system' | 'developer'
      readonly content: Content
      readonly type?: 'message'
    }
  /** An item reference, whose `type` the SDK makes optional. */
  | { readonly id: string; readonly type?: 'item_reference' | null }
  | TypedPart

/** What `fromOpenAIResponses` reads: an item list, or a request with `input` (and `instructions`). */
export type OpenAIResponsesInput =
  | readonly OpenAIResponsesInputItem[]
  | {
      readonly input: string | readonly OpenAIResponsesInputItem[]
      readonly instructions?: string | null
    }

/**
 * A reader's parameter: a value typed as `unknown` or `any`, or a list of records of unknown
 * fields (parsed JSON), is taken and checked at run time; a typed one must have the shape
 * `Shape`, so a wrong one is found by the compiler.
 */
export type ReaderInput<T, Shape> = Listed<T> & (unknown extends T ? unknown : Loose<T, Shape>)

/**
 * A list as a list: `[...history, reply]` is inferred as a tuple that its own value (an
 * array) is not assignable to, so the parameter takes the array the tuple lists.
 */
type Listed<T> = T extends readonly (infer E)[] ? readonly E[] : T

/**
 * Records of unknown fields, or unknown values: JSON as parsed, for the run-time checks. The
 * keys are asked first: a record of unknowns is assignable to any type of optional fields
 * (Gemini's `Content`), which is typed, not parsed.
 */
type Untyped<E> = unknown extends E
  ? true
  : string extends keyof E
    ? Record<string, unknown> extends E
      ? true
      : false
    : WidenedRole<E>

/**
 * An object written without a type (`const history = [{ role: 'user', content: 'Hi' }]`):
 * TypeScript widens its `role` to `string`, which no union of roles takes, so it is taken
 * and checked at run time as parsed JSON is. Written inline, or with `as const` or the SDK's
 * type, its role is a literal and the compiler checks every field.
 */
type WidenedRole<E> = E extends { readonly role: infer R }
  ? string extends R
    ? true
    : false
  : false

/**
 * What `ChatContext.addMessage` takes besides its format's typed message: a value whose type
 * says nothing of its fields (`unknown`, `object`, `Record<string, unknown>`, parsed JSON) or
 * whose `role` was widened to `string`, checked at run time. Anything else is `never`, so
 * the typed signature's error (a misspelt field named) is the one the compiler shows.
 */
export type Unchecked<M> = unknown extends M
  ? unknown
  : // biome-ignore lint/complexity/noBannedTypes: `object`, `{}` and all-optional records alike
    {} extends M
    ? unknown
    : Untyped<M> extends true
      ? unknown
      : never

type Loose<T, Shape> = T extends readonly (infer E)[]
  ? Untyped<E> extends true
    ? unknown
    : Shape
  : T extends { readonly messages: readonly (infer E)[] }
    ? Untyped<E> extends true
      ? unknown
      : Shape
    : T extends { readonly input: readonly (infer E)[] }
      ? Untyped<E> extends true
        ? unknown
        : Shape
      : T extends { readonly contents: readonly (infer E)[] }
        ? Untyped<E> extends true
          ? unknown
          : Shape
        : Shape

/** A Gemini part (`Part`, or its JSON): every field optional, as the SDK has it. */
export interface GeminiInputPart {
  readonly text?: string
  readonly thought?: boolean
  readonly thoughtSignature?: string
  readonly inlineData?: object
  readonly fileData?: object
  readonly functionCall?: object
  readonly functionResponse?: object
  // The SDK's other fields, so a part of only one of them is a part.
  readonly executableCode?: unknown
  readonly codeExecutionResult?: unknown
  readonly videoMetadata?: unknown
  readonly toolCall?: unknown
  readonly toolResponse?: unknown
  readonly audioTranscription?: unknown
  readonly partMetadata?: unknown
  readonly mediaResolution?: unknown
  readonly mediaProcessing?: unknown
  readonly speechMetadata?: unknown
}

/** A Gemini content (`Content`, or its JSON): `role` is a string in the SDK, checked at run time. */
export interface GeminiInputContent {
  readonly role?: string
  readonly parts?: readonly GeminiInputPart[]
  /** No Gemini field: a message of another format (`role` and `content`) is refused. */
  readonly content?: never
}

/** A system instruction: text, a content or one part (a list of parts is refused at run time). */
type GeminiSystem = string | GeminiInputContent | GeminiInputPart

/**
 * What `fromGemini` reads: a `contents` list, or a request with `contents` and its system
 * instruction (beside them, or in `config`).
 */
export type GeminiInput =
  | readonly GeminiInputContent[]
  | {
      readonly contents: readonly GeminiInputContent[]
      readonly systemInstruction?: GeminiSystem
      readonly system_instruction?: GeminiSystem
      readonly config?: { readonly systemInstruction?: GeminiSystem }
    }

/** An AI SDK message (`ModelMessage`, v5 and later, or its JSON). */
export type AISDKInputMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user' | 'assistant'; readonly content: Content }
  | { readonly role: 'tool'; readonly content: readonly TypedPart[] }

/** What `fromAISDK` reads: a message list, or an object with `messages` (a `generateText` call's). */
export type AISDKInput =
  | readonly AISDKInputMessage[]
  | { readonly messages: readonly AISDKInputMessage[] }

/** A LangChain message instance (`BaseMessage`), read as the JSON it serializes to. */
export interface LangChainMessageInstance {
  readonly lc_namespace: readonly string[]
  readonly content: unknown
  toJSON(): unknown
}

/**
 * A LangChain message: an instance, its `toDict()` / `messages_to_dict` form (`StoredMessage`,
 * whose `type` is a string in the SDK: human, ai, system or tool, checked at run time) or its
 * constructor JSON (`{ lc: 1, type: 'constructor', id, kwargs }`).
 */
export type LangChainInputMessage =
  | LangChainMessageInstance
  | { readonly type: string; readonly data: { readonly content: Content } }
  /** `toJSON()`'s type: its other kinds (a secret) are refused at run time. */
  | {
      readonly lc: number
      readonly type: string
      readonly id: readonly string[]
      readonly kwargs?: object
    }

/** What `fromLangChain` reads: a message list, or an object with `messages` (a graph's state). */
export type LangChainInput =
  | readonly LangChainInputMessage[]
  | { readonly messages: readonly LangChainInputMessage[] }

/** An AutoGen `FunctionCall`, as its JSON. */
interface AutoGenCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/**
 * An AutoGen `LLMMessage` as its JSON (AutoGen is Python: no SDK type to fit, the shape is
 * its pydantic models').
 */
export type AutoGenInputMessage =
  | { readonly type: 'SystemMessage'; readonly content: string }
  | {
      readonly type: 'UserMessage'
      readonly content: string | readonly (string | { readonly data: string })[]
      readonly source?: string
    }
  | {
      readonly type: 'AssistantMessage'
      readonly content: string | readonly AutoGenCall[]
      readonly thought?: string | null
      readonly source?: string
    }
  | {
      readonly type: 'FunctionExecutionResultMessage'
      readonly content: readonly {
        readonly call_id: string
        readonly content: string
        readonly name?: string
        readonly is_error?: boolean | null
      }[]
    }

/** What `fromAutoGen` reads: a message list, or a saved `ChatCompletionContextState` (`{ messages }`). */
export type AutoGenInput =
  | readonly AutoGenInputMessage[]
  | { readonly messages: readonly AutoGenInputMessage[] }

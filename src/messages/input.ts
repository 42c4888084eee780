/**
 * The types the readers (`fromOpenAIChat`, `fromAnthropic`) take: the shape of each SDK's own
 * message parameters, written here so that the published types name no SDK (each SDK's
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
export type ReaderInput<T, Shape> = T & (unknown extends T ? unknown : Loose<T, Shape>)

/** Records of unknown fields, or unknown values: JSON as parsed, for the run-time checks. */
type Untyped<E> = unknown extends E ? true : Record<string, unknown> extends E ? true : false

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
      : Shape

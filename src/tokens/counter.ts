import { base64ToText } from '../messages/base64.js'
import type { Content, Message, ToolSchema } from '../messages/message.js'
import { carriedText, hiddenTokens } from './hidden.js'
import { type ImageModel, imageTokens } from './images.js'

/** Counts what a provider bills for a request. */
export interface TokenCounter {
  readonly name: string
  /** Counts match the provider's to the token (else: a conservative estimate). */
  readonly exact: boolean
  /** Tokens added once per request to prime the reply. */
  readonly replyPriming: number
  countText(text: string): number
  /** One message with its per-message overhead. Cached per message object. */
  countMessage(message: Message): number
  /** A whole request's messages, reply priming included. */
  countMessages(messages: readonly Message[]): number
  /** Tool schemas sent with the request. */
  countTools(tools: readonly ToolSchema[]): number
}

/** How a provider frames messages and tools around their text. */
export interface Accounting {
  perMessage: number
  perName: number
  replyPriming: number
  /** Framing around each tool call an assistant makes. */
  perToolCall: number
  /** OpenAI's published tool-schema formula, or `json` to count the schema's JSON text. */
  tools: ToolAccounting | 'json'
  /** Tokens a provider adds to the system prompt once any tool is given. */
  toolsPreamble: number
  /** With `tools: 'json'`: tokens added to each schema's JSON text (5 unless given). */
  perToolSchema?: number
}

export interface ToolAccounting {
  funcInit: number
  propInit: number
  propKey: number
  enumInit: number
  enumItem: number
  funcEnd: number
}

export interface CounterSpec {
  name: string
  exact: boolean
  text: (text: string) => number
  accounting: Accounting
  image: ImageModel
  /** Estimates are multiplied by this and rounded up, to over-count rather than under-count. */
  factor?: number
  /**
   * What each kind of text costs per counted token, where a provider's count was measured by
   * kind (Claude's): message text, a tool call's name and arguments (and tool schemas), a tool
   * result. Default 1 each.
   */
  weights?: KindWeights
  /**
   * `text` is a sum over o200k or cl100k pre-tokenizer pieces (an exact BPE count, or pieces
   * priced one by one): text cut where such a piece always ends counts, cut by cut, to the
   * count of the whole. Derived text made of such pieces (the ledger) is then counted piece by
   * piece, each piece once.
   */
  pieceable?: boolean
}

export interface KindWeights {
  text: number
  call: number
  result: number
}

/** A file part whose text the model reads: decoded and counted as text. */
const TEXT_MEDIA = /^(text\/|application\/(json|xml|yaml|x-yaml|csv))/
/** Other files (PDF and the like): a byte-based upper bound, and this for a bare URL. */
const UNKNOWN_FILE_TOKENS = 1500

export function createCounter(spec: CounterSpec): TokenCounter {
  const { text, accounting: a, image } = spec
  const factor = spec.factor ?? 1
  const w = spec.weights ?? { text: 1, call: 1, result: 1 }
  const weighted = spec.weights !== undefined
  const scale = factor === 1 && !weighted ? (n: number) => n : (n: number) => Math.ceil(n * factor)
  const cache = new WeakMap<Message, number>()

  /** A content's text tokens; what is not text (images, files) is added to `media.n`. */
  const content = (c: Content | undefined, media: { n: number }): number => {
    if (c === undefined) return 0
    if (typeof c === 'string') return text(c)
    let n = 0
    for (const part of c) {
      if (part.type === 'text') n += text(part.text)
      else if (part.type === 'image') media.n += imageTokens(part, image)
      else if (part.data && TEXT_MEDIA.test(part.mediaType ?? '')) {
        n += text(base64ToText(part.data))
      } else if (part.data) media.n += Math.ceil((part.data.length * 3) / 4 / 3)
      else media.n += UNKNOWN_FILE_TOKENS
    }
    return n
  }

  const raw = (m: Message): number => {
    const media = { n: 0 }
    let n = content(m.content, media)
    const carried = carriedText(m)
    if (carried) n += text(carried)
    if (m.name) n += text(m.name)
    let calls = 0
    if (m.role === 'assistant') {
      if (m.thought) n += text(m.thought)
      n += hiddenTokens(m)
      if (m.refusal) n += text(m.refusal)
      for (const call of m.toolCalls ?? []) calls += text(call.name) + text(call.arguments)
    } else if (m.role === 'tool' && m.toolName) {
      n += text(m.toolName)
    }
    const frame =
      a.perMessage +
      text(m.role) +
      (m.name ? a.perName : 0) +
      (m.role === 'assistant' ? a.perToolCall * (m.toolCalls?.length ?? 0) : 0)
    return frame + media.n + (m.role === 'tool' ? w.result : w.text) * n + w.call * calls
  }

  const countMessage = (m: Message): number => {
    let n = cache.get(m)
    if (n === undefined) {
      n = scale(raw(m))
      cache.set(m, n)
    }
    return n
  }

  const counter: TokenCounter = {
    name: spec.name,
    exact: spec.exact,
    replyPriming: a.replyPriming,
    countText: (t) => scale(text(t)),
    countMessage,
    countMessages(messages) {
      let n = a.replyPriming
      for (const m of messages) n += countMessage(m)
      return n
    },
    countTools(tools) {
      if (tools.length === 0) return 0
      let n = a.toolsPreamble
      for (const tool of tools)
        n +=
          w.call *
            (a.tools === 'json'
              ? text(JSON.stringify(tool)) + (a.perToolSchema ?? 5)
              : toolTokens(tool, a.tools, text)) +
          (tool.tokens ?? 0)
      return scale(n)
    },
  }
  uncached.set(counter, (m) => cache.get(m) ?? scale(raw(m)))
  if (spec.pieceable) {
    // Counted when first asked: an encoding loads when first needed, not when a counter is made.
    let frame: number | undefined
    const framed = () => (frame ??= a.perMessage + text('user'))
    // Given pieces' counts that are whole numbers (the caller's to check), their sum is the
    // whole text's exactly, and so is what the frame and the factor make of it.
    const user =
      factor === 1 && !weighted
        ? (n: number) => framed() + n
        : (n: number) => scale(framed() + w.text * n)
    piecewise.set(counter, { text, scale, user, remember: (m, n) => cache.set(m, n) })
  }
  return counter
}

/** How a counter counts text piece by piece (see `CounterSpec.pieceable`). */
export interface Piecewise {
  /** The count of a piece of text, before the counter's factor. */
  text(text: string): number
  /** A text's count from its count before the factor (what `countText` gives for it). */
  scale(n: number): number
  /**
   * A user message without a name whose text's pieces count `n` in all (its frame and factor
   * added): the count of the whole when each piece's count is a whole number (a sum of
   * fractions taken in another order may round otherwise).
   */
  user(n: number): number
  /** Keeps `n` as the count of `m` (made of pieces counted so), so counting it later is a lookup. */
  remember(m: Message, n: number): void
}

const piecewise = new WeakMap<TokenCounter, Piecewise>()

/** How `counter` counts text piece by piece, when it is one made here that can (else undefined: count the whole). */
export function piecewiseOf(counter: TokenCounter): Piecewise | undefined {
  return piecewise.get(counter)
}

/** For each counter made here (not a copy or wrapper of one): `countMessage` without caching. */
const uncached = new WeakMap<TokenCounter, (m: Message) => number>()

/**
 * `counter.countMessage(m)`, without the counter keeping the count when it is one made by
 * `createCounter`: for a caller that keeps every count itself (a long history would
 * otherwise hold a cache entry per message twice over). A wrapped counter is called as is.
 */
export function countOnce(counter: TokenCounter, m: Message): number {
  const f = uncached.get(counter)
  return f ? f(m) : counter.countMessage(m)
}

/** OpenAI's published formula for a function definition (the cookbook's `num_tokens_for_tools`). */
function toolTokens(tool: ToolSchema, f: ToolAccounting, text: (t: string) => number): number {
  let n = f.funcInit + text(`${tool.name}:${trimDot(tool.description ?? '')}`)
  const properties = (tool.parameters?.properties ?? {}) as Record<string, Record<string, unknown>>
  const keys = Object.keys(properties)
  if (keys.length > 0) {
    n += f.propInit
    for (const key of keys) {
      const p = properties[key] ?? {}
      n += f.propKey
      if (Array.isArray(p.enum)) {
        n += f.enumInit
        for (const item of p.enum) n += f.enumItem + text(String(item))
      }
      n += text(`${key}:${String(p.type ?? '')}:${trimDot(String(p.description ?? ''))}`)
      // Nested schemas are outside the published formula: count their JSON, an upper bound.
      if (p.properties || p.items)
        n += text(JSON.stringify({ properties: p.properties, items: p.items }))
    }
  }
  return n + f.funcEnd
}

function trimDot(s: string): string {
  return s.endsWith('.') ? s.slice(0, -1) : s
}

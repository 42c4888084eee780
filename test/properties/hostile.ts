import fc from 'fast-check'
import type { ContentPart, Message, ToolCall } from '../../src/messages/message.js'

/**
 * Text as users and models really produce it, at its worst: empty, white space only
 * (ASCII and U+3000), astral characters (so any cut may fall inside a surrogate pair),
 * long runs with no break, special-token look-alikes, and plain words.
 */
export const nastyText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .array(fc.constantFrom('refund', 'Lisbon', '€120', 'flight', 'HAT001', 'ok'), {
        minLength: 1,
        maxLength: 12,
      })
      .map((w) => w.join(' ')),
  },
  { weight: 2, arbitrary: fc.constantFrom('', ' ', '\n', '\t \n', '\u3000\u3000', '\u00a0') },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.constantFrom('😀', '🎉', '👍🏽', '𝒜', '日本', 'a', ' ', '👨‍👩‍👧'), {
        minLength: 1,
        maxLength: 200,
      })
      .map((c) => c.join('')),
  },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }).map((n) => ' '.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }).map((n) => '\u3000'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 2500 }).map((n) => 'Zx'.repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom('<|endoftext|>', '<|im_start|>user') },
)

/** Tool call ids as traces have them: plain, with dots and spaces (Anthropic refuses both), and repeated. */
const callId = fc.constantFrom(
  'call_1',
  'call_2',
  'call.1',
  'call.1',
  'tool use 3',
  'toolu_01',
  'x',
)

/** Provider metadata whose keys are properties of every object. */
const hostileMetadata = fc.constantFrom(
  undefined,
  JSON.parse('{"__proto__": {"polluted": true}}'),
  JSON.parse('{"constructor": {"x": 1}, "toString": {"y": 2}}'),
)

const textPart = nastyText.map((text): ContentPart => ({ type: 'text', text }))
const image: ContentPart = {
  type: 'image',
  url: 'https://example.com/a.png',
  width: 640,
  height: 480,
}
const file: ContentPart = { type: 'file', data: 'JVBERi0xLjQ=', mediaType: 'application/pdf' }
/**
 * What a reply holds: text, an empty list, text parts, and sometimes an image or a file
 * (an AI SDK reply with a file part decodes to one; OpenAI chat refuses it from the model).
 */
const replyParts = fc.oneof(
  { weight: 3, arbitrary: nastyText },
  { weight: 3, arbitrary: fc.constant([] as ContentPart[]) },
  { weight: 3, arbitrary: fc.array(textPart, { minLength: 1, maxLength: 3 }) },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.oneof(
        { weight: 2, arbitrary: textPart },
        { weight: 1, arbitrary: fc.constant(image) },
        { weight: 1, arbitrary: fc.constant(file) },
      ),
      { minLength: 1, maxLength: 2 },
    ),
  },
)
const parts = fc.oneof(
  nastyText,
  fc.constant([] as ContentPart[]),
  fc.array(
    fc.oneof({ weight: 4, arbitrary: textPart }, { weight: 1, arbitrary: fc.constant(image) }),
    {
      minLength: 1,
      maxLength: 3,
    },
  ),
)

/**
 * What a tool result holds beside its text: mostly nothing, sometimes a screenshot (after its
 * text or alone) or a file, which OpenAI chat takes only in a user message.
 */
type ResultMedia = 'none' | 'image' | 'image-only' | 'file'
const resultMedia = fc.oneof(
  { weight: 6, arbitrary: fc.constant<ResultMedia>('none') },
  { weight: 1, arbitrary: fc.constantFrom<ResultMedia>('image', 'image-only', 'file') },
)

function resultContent(id: string, media: ResultMedia | undefined): string | ContentPart[] {
  const text = `result for ${id}`
  if (media === 'image') return [{ type: 'text', text }, image]
  if (media === 'image-only') return [image]
  if (media === 'file') return [{ type: 'text', text }, file]
  return text
}

/** A system message: text, or (OpenAI chat and Anthropic take only text there) text with an image. */
const systemContent = fc.oneof(
  { weight: 4, arbitrary: nastyText },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(textPart, { maxLength: 2 }), fc.constantFrom(image, file))
      .map(([texts, media]): ContentPart[] => [...texts, media]),
  },
)

type Step =
  | { kind: 'user'; content: string | ContentPart[]; meta: unknown }
  | {
      kind: 'reply'
      content: string | ContentPart[] | undefined
      thought?: string
      refusal?: string
    }
  | {
      kind: 'calls'
      ids: string[]
      answered: boolean[]
      media: ResultMedia[]
      text?: string | undefined
    }
  | { kind: 'orphan'; id: string }
  | { kind: 'system'; content: string | ContentPart[] }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('user' as const),
      content: parts,
      meta: hostileMetadata,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        kind: fc.constant('reply' as const),
        content: fc.option(replyParts, { nil: undefined }),
        thought: nastyText,
        refusal: nastyText,
      },
      { requiredKeys: ['kind', 'content'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.array(callId, { minLength: 1, maxLength: 4 }).chain((ids) =>
      fc.record({
        kind: fc.constant('calls' as const),
        ids: fc.constant(ids),
        answered: fc.array(fc.boolean(), { minLength: ids.length, maxLength: ids.length }),
        media: fc.array(resultMedia, { minLength: ids.length, maxLength: ids.length }),
        text: fc.option(nastyText, { nil: undefined }),
      }),
    ),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('orphan' as const), id: callId }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('system' as const), content: systemContent }),
  },
)

/**
 * Histories built to break a context manager: every message kind above, in any order,
 * sometimes with no user message at all, with a system preamble or without.
 */
export const hostileHistory: fc.Arbitrary<Message[]> = fc
  .record({
    preamble: fc.constantFrom<string | ContentPart[]>('', 'Policy: be precise.', ' ', [
      { type: 'text', text: 'Policy: match the logo.' },
      image,
    ]),
    steps: fc.array(step, { minLength: 1, maxLength: 24 }),
    noUser: fc.boolean(),
  })
  .map(({ preamble, steps, noUser }) => {
    const out: Message[] = []
    if (preamble) out.push({ role: 'system', content: preamble })
    for (const s of steps) {
      switch (s.kind) {
        case 'user':
          // A share of the histories has no user turn at all.
          if (noUser) break
          out.push({
            role: 'user',
            content: s.content,
            ...(s.meta !== undefined && {
              providerMetadata: s.meta as Message['providerMetadata'],
            }),
          })
          break
        case 'reply':
          out.push({
            role: 'assistant',
            // A reply of nothing at all is refused as input (test/empty-inputs.test.ts); the
            // hostile one is empty text, which fit repairs.
            ...(s.content !== undefined || s.thought !== undefined || s.refusal !== undefined
              ? s.content !== undefined && { content: s.content }
              : { content: '' }),
            ...(s.thought !== undefined && { thought: s.thought }),
            ...(s.refusal !== undefined && { refusal: s.refusal }),
          })
          break
        case 'calls': {
          const toolCalls: ToolCall[] = s.ids.map((id) => ({
            id,
            name: 'lookup',
            arguments: `{"id":"${id}"}`,
          }))
          out.push({
            role: 'assistant',
            toolCalls,
            ...(s.text !== undefined && { content: s.text }),
          })
          s.ids.forEach((id, k) => {
            if (s.answered[k])
              out.push({
                role: 'tool',
                toolCallId: id,
                toolName: 'lookup',
                content: resultContent(id, s.media[k]),
              })
          })
          break
        }
        case 'orphan':
          out.push({ role: 'tool', toolCallId: s.id, content: 'late result' })
          break
        case 'system':
          out.push({ role: 'system', content: s.content })
          break
      }
    }
    return out
  })

/** What another process might have stored as a message's count: the truth, or a lie. */
export const storedCountLie: fc.Arbitrary<(truth: number) => number> = fc.constantFrom(
  (t: number) => t,
  () => -5000,
  () => 0,
  () => 1,
  (t: number) => Math.floor(t / 10),
  // Low, but plausible for its length: believed for selection, so only the account catches it.
  (t: number) => Math.ceil(t * 0.8),
  (t: number) => t + 0.5,
  () => 1e15,
)

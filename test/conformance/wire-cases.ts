import fc from 'fast-check'
import { nastyText } from '../properties/hostile.js'

/**
 * Conversations in each provider's own request format, built from its whole item vocabulary
 * and from hostile text, ids and keys. Written apart from the library's codecs: imports
 * nothing from src/. Each case holds the request and the list of items a context takes one
 * at a time (its system text, if any, goes in as the context's initial message).
 */
export type WireFormat = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini'

export interface WireCase {
  format: WireFormat
  /** The request as the provider's SDK takes it. */
  source: unknown
  /** The items a context is fed one at a time. */
  items: unknown[]
  /** Whether `source` has a system prompt outside `items`. */
  system: boolean
}

type Json = Record<string, unknown>

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAi5JY8QAAAABJRU5ErkJggg=='

/** Tool arguments as models write them, one with keys every object has. */
const args = fc.constantFrom<Json>(
  { q: 'refund' },
  {},
  JSON.parse('{"__proto__": {"polluted": true}, "q": "x"}'),
  JSON.parse('{"constructor": {"name": "x"}, "toString": "y"}'),
  { nested: { deeper: [1, 2, { s: '😀𝒜' }] } },
)

const signature = fc.integer({ min: 1, max: 40 }).map((n) => `${'Sig0'.repeat(n)}==`)

/** One step of a conversation, in terms every provider has. */
type Step =
  | { kind: 'user'; text: string; media: boolean }
  | { kind: 'reply'; text: string; thought?: string; sig: string }
  | {
      kind: 'calls'
      n: number
      answered: boolean[]
      results: string[]
      args: Json[]
      sig: string
      thought?: string
      dots: boolean
    }
  | { kind: 'hosted'; variant: number; text: string; sig: string }
  | { kind: 'orphan' }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('user' as const),
      text: nastyText,
      media: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        kind: fc.constant('reply' as const),
        text: nastyText,
        thought: nastyText,
        sig: signature,
      },
      { requiredKeys: ['kind', 'text', 'sig'] },
    ),
  },
  {
    weight: 4,
    arbitrary: fc.integer({ min: 1, max: 5 }).chain((n) =>
      fc.record(
        {
          kind: fc.constant('calls' as const),
          n: fc.constant(n),
          answered: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
          results: fc.array(nastyText, { minLength: n, maxLength: n }),
          args: fc.array(args, { minLength: n, maxLength: n }),
          sig: signature,
          thought: nastyText,
          dots: fc.boolean(),
        },
        { requiredKeys: ['kind', 'n', 'answered', 'results', 'args', 'sig', 'dots'] },
      ),
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('hosted' as const),
      variant: fc.nat(7),
      text: nastyText,
      sig: signature,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('orphan' as const) }) },
)

const conversation = fc.record({
  system: fc.option(nastyText, { nil: undefined }),
  steps: fc.array(step, { minLength: 1, maxLength: 14 }),
  /** No user turn at all (one conversation in six: Anthropic and Gemini refuse them). */
  noUser: fc.nat(5).map((n) => n === 0),
})

type Conversation = { system: string | undefined; steps: Step[]; noUser: boolean }

function ids(s: { n: number; dots: boolean }, at: number, prefix: string): string[] {
  return Array.from({ length: s.n }, (_, k) =>
    s.dots && k % 2 === 0 ? `${prefix}.${at}.${k}` : `${prefix}_${at}_${k}`,
  )
}

function openAIChat(c: Conversation): WireCase {
  const items: Json[] = []
  if (c.system !== undefined) items.push({ role: 'system', content: c.system })
  c.steps.forEach((s, i) => {
    switch (s.kind) {
      case 'user':
        if (c.noUser) break
        items.push({
          role: 'user',
          content: s.media
            ? [
                { type: 'text', text: s.text },
                { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
                { type: 'input_audio', input_audio: { data: 'UklGRgAAAABXQVZF', format: 'wav' } },
              ]
            : s.text,
        })
        break
      case 'reply':
        items.push(
          s.thought !== undefined && i % 2 === 0
            ? { role: 'assistant', content: null, refusal: s.text || 'I cannot help with that.' }
            : { role: 'assistant', content: s.text },
        )
        break
      case 'calls': {
        const list = ids(s, i, 'call')
        items.push({
          role: 'assistant',
          content: s.thought ?? null,
          tool_calls: list.map((id, k) => ({
            id,
            type: 'function',
            function: { name: 'lookup', arguments: JSON.stringify(s.args[k]) },
          })),
        })
        list.forEach((id, k) => {
          if (s.answered[k])
            items.push({ role: 'tool', tool_call_id: id, content: s.results[k] as string })
        })
        break
      }
      case 'hosted':
        // Chat has no hosted tools: an assistant reply with parts.
        items.push({ role: 'assistant', content: [{ type: 'text', text: s.text }] })
        break
      case 'orphan':
        items.push({ role: 'tool', tool_call_id: `ghost_${i}`, content: 'late result' })
        break
    }
  })
  return { format: 'openai-chat', source: items, items, system: false }
}

function responses(c: Conversation): WireCase {
  const input: Json[] = []
  const reasoning = (at: string, s: { thought?: string; sig: string }) =>
    input.push({
      type: 'reasoning',
      id: `rs_${at}`,
      summary: s.thought ? [{ type: 'summary_text', text: s.thought }] : [],
      encrypted_content: s.sig,
    })
  c.steps.forEach((s, i) => {
    switch (s.kind) {
      case 'user':
        if (c.noUser) break
        input.push({
          role: 'user',
          content: s.media
            ? [
                { type: 'input_text', text: s.text },
                { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'low' },
              ]
            : s.text,
        })
        break
      case 'reply':
        if (s.thought !== undefined) reasoning(`${i}`, s)
        input.push({
          type: 'message',
          id: `msg_${i}`,
          role: 'assistant',
          status: 'completed',
          content:
            i % 3 === 0
              ? [{ type: 'refusal', refusal: s.text || 'No.' }]
              : [{ type: 'output_text', text: s.text, annotations: [] }],
        })
        break
      case 'calls': {
        if (s.thought !== undefined) reasoning(`${i}`, s)
        const list = ids(s, i, 'call')
        list.forEach((id, k) => {
          input.push({
            type: 'function_call',
            id: `fc_${i}_${k}`,
            call_id: id,
            name: 'lookup',
            arguments: JSON.stringify(s.args[k]),
            status: 'completed',
          })
        })
        list.forEach((id, k) => {
          if (s.answered[k])
            input.push({ type: 'function_call_output', call_id: id, output: s.results[k] })
        })
        break
      }
      case 'hosted':
        input.push(...hostedResponses(s, i))
        break
      case 'orphan':
        input.push({ type: 'function_call_output', call_id: `ghost_${i}`, output: 'late' })
        break
    }
  })
  const source = { ...(c.system !== undefined && { instructions: c.system }), input }
  return {
    format: 'openai-responses',
    source,
    items: input,
    system: c.system !== undefined,
  }
}

function hostedResponses(s: { variant: number; text: string; sig: string }, i: number): Json[] {
  const text = s.text
  switch (s.variant) {
    case 0:
      return [
        {
          type: 'web_search_call',
          id: `ws_${i}`,
          status: 'completed',
          action: { type: 'search', query: text },
        },
        {
          type: 'message',
          id: `msg_ws_${i}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Found it.', annotations: [] }],
        },
      ]
    case 1:
      return [
        {
          type: 'file_search_call',
          id: `fs_${i}`,
          status: 'completed',
          queries: [text],
          results: [{ file_id: 'file_1', filename: 'policy.md', score: 0.5, text }],
        },
      ]
    case 2:
      return [
        {
          type: 'computer_call',
          id: `cu_${i}`,
          call_id: `cc_${i}`,
          status: 'completed',
          action: { type: 'type', text },
          pending_safety_checks: [],
        },
        {
          type: 'computer_call_output',
          call_id: `cc_${i}`,
          output: { type: 'computer_screenshot', image_url: `data:image/png;base64,${PNG}` },
        },
      ]
    case 3:
      return [
        {
          type: 'local_shell_call',
          id: `lsh_${i}`,
          call_id: `ls_${i}`,
          status: 'completed',
          action: { type: 'exec', command: ['echo', text], env: {} },
        },
        { type: 'local_shell_call_output', call_id: `ls_${i}`, output: text },
      ]
    case 4:
      return [
        {
          type: 'code_interpreter_call',
          id: `ci_${i}`,
          status: 'completed',
          container_id: 'cntr_1',
          code: `print(${JSON.stringify(text)})`,
          outputs: [{ type: 'logs', logs: text }],
        },
      ]
    case 5:
      return [
        {
          type: 'mcp_call',
          id: `mcp_${i}`,
          server_label: 'docs',
          name: 'search',
          arguments: JSON.stringify({ q: text }),
          output: text,
        },
      ]
    case 6:
      return [
        {
          type: 'image_generation_call',
          id: `ig_${i}`,
          status: 'completed',
          result: PNG,
        },
      ]
    default:
      return [{ type: 'compaction', id: `cmp_${i}`, encrypted_content: s.sig }]
  }
}

function anthropic(c: Conversation): WireCase {
  const messages: Json[] = []
  c.steps.forEach((s, i) => {
    switch (s.kind) {
      case 'user':
        if (c.noUser) break
        messages.push({
          role: 'user',
          content: s.media
            ? [
                { type: 'text', text: s.text },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
                {
                  type: 'document',
                  source: { type: 'text', media_type: 'text/plain', data: 'Fares are final.' },
                  title: 'Fares',
                },
                {
                  type: 'search_result',
                  source: 'https://example.com/fares',
                  title: 'Fares',
                  content: [{ type: 'text', text: 'Fares are final.' }],
                },
              ]
            : s.text,
        })
        break
      case 'reply':
        messages.push({
          role: 'assistant',
          content: [
            ...(s.thought !== undefined
              ? [
                  i % 2
                    ? { type: 'thinking', thinking: s.thought, signature: s.sig }
                    : { type: 'redacted_thinking', data: s.sig },
                ]
              : []),
            { type: 'text', text: s.text },
          ],
        })
        break
      case 'calls': {
        const list = ids(s, i, 'toolu')
        messages.push({
          role: 'assistant',
          content: [
            ...(s.thought !== undefined
              ? [{ type: 'thinking', thinking: s.thought, signature: s.sig }]
              : []),
            ...list.map((id, k) => ({ type: 'tool_use', id, name: 'lookup', input: s.args[k] })),
          ],
        })
        const results = list.flatMap((id, k) =>
          s.answered[k]
            ? [
                {
                  type: 'tool_result',
                  tool_use_id: id,
                  content:
                    k % 2
                      ? [
                          {
                            type: 'search_result',
                            source: 'https://example.com/r',
                            title: 'Result',
                            // Carried as it came: its text is non-empty, as Anthropic requires.
                            content: [{ type: 'text', text: s.results[k]?.trim() || 'none' }],
                          },
                        ]
                      : s.results[k],
                  ...(k === 2 && { is_error: true }),
                },
              ]
            : [],
        )
        if (results.length) messages.push({ role: 'user', content: results })
        break
      }
      case 'hosted':
        messages.push({ role: 'assistant', content: serverBlocks(s, i) })
        break
      case 'orphan':
        messages.push({
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `ghost_${i}`, content: 'late' }],
        })
        break
    }
  })
  const source = { ...(c.system !== undefined && { system: c.system }), messages }
  return { format: 'anthropic', source, items: messages, system: c.system !== undefined }
}

function serverBlocks(s: { variant: number; text: string }, i: number): Json[] {
  const id = `srvtoolu_${i}`
  const text = s.text
  const variant = s.variant % 4
  const use = (name: string, input: Json) => ({ type: 'server_tool_use', id, name, input })
  const after = { type: 'text', text: 'Here is what I found.' }
  if (variant === 0)
    return [
      use('web_search', { query: text }),
      {
        type: 'web_search_tool_result',
        tool_use_id: id,
        content: [
          {
            type: 'web_search_result',
            url: 'https://example.com',
            title: text,
            encrypted_content: 'EncPage==',
            page_age: 'April 2025',
          },
        ],
      },
      after,
    ]
  if (variant === 1)
    return [
      use('code_execution', { code: `print(${JSON.stringify(text)})` }),
      {
        type: 'code_execution_tool_result',
        tool_use_id: id,
        content: {
          type: 'code_execution_result',
          stdout: text,
          stderr: '',
          return_code: 0,
          content: [],
        },
      },
      after,
    ]
  if (variant === 2)
    return [
      use('web_fetch', { url: 'https://example.com/page' }),
      {
        type: 'web_fetch_tool_result',
        tool_use_id: id,
        content: {
          type: 'web_fetch_result',
          url: 'https://example.com/page',
          retrieved_at: '2025-08-25T10:30:00Z',
          content: {
            type: 'document',
            source: { type: 'text', media_type: 'text/plain', data: text || 'empty page' },
          },
        },
      },
      after,
    ]
  return [use('web_search', { query: text }), after]
}

function gemini(c: Conversation): WireCase {
  const contents: Json[] = []
  c.steps.forEach((s, i) => {
    switch (s.kind) {
      case 'user':
        if (c.noUser) break
        contents.push({
          role: 'user',
          parts: [
            { text: s.text },
            ...(s.media ? [{ inlineData: { mimeType: 'image/png', data: PNG } }] : []),
          ],
        })
        break
      case 'reply':
        contents.push({
          role: 'model',
          parts: [
            ...(s.thought !== undefined ? [{ text: s.thought, thought: true }] : []),
            { text: s.text, thoughtSignature: s.sig },
          ],
        })
        break
      case 'calls': {
        const list = ids(s, i, 'fn')
        const named = i % 2 === 0
        contents.push({
          role: 'model',
          parts: [
            ...(s.thought !== undefined ? [{ text: s.thought, thought: true }] : []),
            ...list.map((id, k) => ({
              functionCall: { ...(named && { id }), name: `lookup${k}`, args: s.args[k] },
              // Parallel calls: the first carries the step's signature.
              ...(k === 0 && { thoughtSignature: s.sig }),
            })),
          ],
        })
        const answers = list.flatMap((id, k) =>
          s.answered[k]
            ? [
                {
                  functionResponse: {
                    ...(named && { id }),
                    name: `lookup${k}`,
                    response: { output: s.results[k] },
                  },
                },
              ]
            : [],
        )
        if (answers.length) contents.push({ role: 'user', parts: answers })
        break
      }
      case 'hosted':
        contents.push({
          role: 'model',
          parts: [
            {
              executableCode: { language: 'PYTHON', code: `print(${JSON.stringify(s.text)})` },
              thoughtSignature: s.sig,
            },
            { codeExecutionResult: { outcome: 'OUTCOME_OK', output: s.text } },
            { text: 'Done.' },
          ],
        })
        break
      case 'orphan':
        contents.push({
          role: 'user',
          parts: [{ functionResponse: { name: 'ghost', response: { output: 'late' } } }],
        })
        break
    }
  })
  const source = {
    ...(c.system !== undefined && { systemInstruction: { parts: [{ text: c.system }] } }),
    contents,
  }
  return { format: 'gemini', source, items: contents, system: c.system !== undefined }
}

const BUILD: Record<WireFormat, (c: Conversation) => WireCase> = {
  'openai-chat': openAIChat,
  'openai-responses': responses,
  anthropic,
  gemini,
}

/** A conversation in `format`, from the provider's whole vocabulary and hostile inputs. */
export function wireCase(format: WireFormat): fc.Arbitrary<WireCase> {
  // A conversation has at least one item: an empty history is nothing to send, not a request.
  return conversation.map((c) => BUILD[format](c as Conversation)).filter((c) => c.items.length > 0)
}

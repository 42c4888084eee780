import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'

/**
 * The loopback provider: a real HTTP server on 127.0.0.1 whose model has a small window,
 * speaking four protocols:
 * OpenAI chat completions (`/v1/chat/completions`), OpenAI Responses (`/v1/responses`),
 * Anthropic messages (`/v1/messages`) and Gemini (`/v1beta/models/<model>:generateContent`,
 * the server's root without `/v1` as the SDK's base URL). It counts each request itself (o200k tokens of every
 * text, name and argument, 3 per message, 3 for the reply; tool schemas by OpenAI's
 * published formula on chat completions and Responses (the same model reads both), as JSON
 * text elsewhere: its own rule, written
 * apart from the library's counters) and rejects a request over the window
 * with the provider's own error body. Otherwise it answers: a call of the first tool when
 * the newest message is the user's and tools were sent, else a text reply.
 */
export interface LoopbackProvider {
  /** OpenAI's base URL (`http://127.0.0.1:PORT/v1`): what `OPENAI_BASE_URL` takes. */
  url: string
  /** The server's root, without `/v1`: Anthropic's and Gemini's SDKs take this as their base URL. */
  root: string
  /** The model's window, as the options gave it. */
  readonly window: number
  /** Every request, in order, with the server's count and whether it was rejected. */
  requests: { path: string; body: Record<string, unknown>; tokens: number; rejected: boolean }[]
  /** Requests rejected as too long. */
  readonly rejections: number
  close(): Promise<void>
}

export interface LoopbackOptions {
  /** The model's window: prompt plus the requested completion. */
  window: number
  /**
   * The server lives only as long as the program using it: it does not keep the process
   * running (its socket is unreferenced) and it closes each connection after its answer.
   */
  detached?: boolean
  /** The text every reply carries (default: about 60 tokens). */
  reply?: string
  /** Reported usage is the server's count times this (a provider whose tokenizer differs). Default 1. */
  usageScale?: number
  /**
   * Reported usage wobbles by up to this share of it, request by request, in a fixed sequence
   * (a provider whose count depends on the text, as an estimated tokenizer's does). Default 0.
   */
  usageNoise?: number
}

const DEFAULT_REPLY =
  'Noted. The booking stays as it is: flight HAT136 from JFK to SEA on May 19, economy, two passengers, paid with the credit card on file, and the baggage allowance unchanged. Anything else?'

function tokens(text: unknown): number {
  if (typeof text !== 'string' || text === '') return 0
  return encode(text, { allowedSpecial: 'all' }).length
}

/** Every string inside a value (texts, names, arguments, ids are not counted). */
function textOf(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(textOf)
  if (value && typeof value === 'object') {
    const out: string[] = []
    for (const [k, v] of Object.entries(value)) {
      if (k === 'id' || k === 'call_id' || k === 'tool_call_id' || k === 'tool_use_id') continue
      if (k === 'type' || k === 'status' || k === 'cache_control') continue
      out.push(...textOf(v))
    }
    return out
  }
  return []
}

/**
 * OpenAI's published count for function definitions (the cookbook's `num_tokens_for_tools`,
 * gpt-4o constants): 7 per function, its `name:description`, 3 per parameter block, 3 per
 * property plus its `key:type:description`, 12 at the end; 12 once for the tools block.
 */
function openaiToolTokens(tools: unknown[]): number {
  let n = 0
  for (const t of tools) {
    const f = ((t as { function?: unknown }).function ?? t) as {
      name?: string
      description?: string
      parameters?: {
        properties?: Record<string, { type?: string; description?: string; enum?: unknown[] }>
      }
    }
    n += 7 + tokens(`${f.name ?? ''}:${(f.description ?? '').replace(/\.$/, '')}`)
    const props = f.parameters?.properties
    if (props && Object.keys(props).length > 0) {
      n += 3
      for (const [key, p] of Object.entries(props)) {
        n += 3 + tokens(`${key}:${p.type ?? ''}:${(p.description ?? '').replace(/\.$/, '')}`)
        if (Array.isArray(p.enum)) {
          n -= 3
          for (const e of p.enum) n += 3 + tokens(String(e))
        }
      }
    }
  }
  return tools.length ? n + 12 : 0
}

function countItems(items: unknown[]): number {
  let n = 3
  for (const item of items) n += 3 + textOf(item).reduce((s, t) => s + tokens(t), 0)
  return n
}

export async function startLoopbackProvider(options: LoopbackOptions): Promise<LoopbackProvider> {
  const { window } = options
  const reply = options.reply ?? DEFAULT_REPLY
  // The wobble is fixed per request, whichever field reports it.
  const wobble = () => ((((calls * 7919) % 31) - 15) / 15) * (options.usageNoise ?? 0)
  const billed = (n: number) => Math.round(n * (options.usageScale ?? 1) * (1 + wobble()))
  let calls = 0
  const state: LoopbackProvider = {
    url: '',
    root: '',
    window,
    requests: [],
    get rejections() {
      return state.requests.filter((r) => r.rejected).length
    },
    close: async () => {},
  }

  const handle = (req: IncomingMessage, raw: string) => {
    const body = JSON.parse(raw) as Record<string, unknown>
    const path = req.url ?? ''
    const tools = Array.isArray(body.tools) && body.tools.length > 0 ? body.tools : undefined
    const toolTokens = tools ? tokens(JSON.stringify(tools)) : 0
    calls++
    if (path.endsWith('/chat/completions')) {
      const messages = body.messages as Record<string, unknown>[]
      const prompt = countItems(messages) + (tools ? openaiToolTokens(tools) : 0)
      const completion = Number(body.max_completion_tokens ?? body.max_tokens ?? 0)
      const rejected = prompt + completion > window
      state.requests.push({ path, body, tokens: prompt, rejected })
      if (rejected) {
        const message =
          completion > 0
            ? `This model's maximum context length is ${window} tokens. However, you requested ${prompt + completion} tokens (${prompt} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`
            : `This model's maximum context length is ${window} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`
        return {
          status: 400,
          json: {
            error: {
              message,
              type: 'invalid_request_error',
              param: 'messages',
              code: 'context_length_exceeded',
            },
          },
        }
      }
      const last = messages[messages.length - 1]
      const callTool = tools && last?.role === 'user'
      const tool = tools?.[0] as { function?: { name?: string } } | undefined
      return {
        status: 200,
        json: {
          id: `chatcmpl-${calls}`,
          object: 'chat.completion',
          created: 1,
          model: String(body.model),
          choices: [
            {
              index: 0,
              finish_reason: callTool ? 'tool_calls' : 'stop',
              message: callTool
                ? {
                    role: 'assistant',
                    content: null,
                    tool_calls: [
                      {
                        id: `call_${calls}`,
                        type: 'function',
                        function: {
                          name: tool?.function?.name ?? 'tool',
                          arguments: JSON.stringify({ query: `q${calls}` }),
                        },
                      },
                    ],
                  }
                : { role: 'assistant', content: reply },
            },
          ],
          usage: {
            prompt_tokens: billed(prompt),
            completion_tokens: 40,
            total_tokens: billed(prompt) + 40,
          },
        },
      }
    }
    if (path.endsWith('/responses')) {
      const input =
        typeof body.input === 'string'
          ? [{ role: 'user', content: body.input }]
          : (body.input as Record<string, unknown>[])
      const prompt =
        countItems(input) +
        tokens(body.instructions) +
        (body.instructions ? 3 : 0) +
        (tools ? openaiToolTokens(tools) : 0)
      const completion = Number(body.max_output_tokens ?? 0)
      const rejected = prompt + completion > window
      state.requests.push({ path, body, tokens: prompt, rejected })
      if (rejected) {
        return {
          status: 400,
          json: {
            error: {
              // As the API says it: no numbers.
              message:
                'Your input exceeds the context window of this model. Please adjust your input and try again.',
              type: 'invalid_request_error',
              param: 'input',
              code: 'context_length_exceeded',
            },
          },
        }
      }
      const last = input[input.length - 1]
      const callTool = tools && (last?.role === 'user' || last?.type === 'message')
      const tool = tools?.[0] as { name?: string } | undefined
      const output = callTool
        ? [
            {
              type: 'function_call',
              id: `fc_${calls}`,
              call_id: `call_${calls}`,
              name: tool?.name ?? 'tool',
              arguments: JSON.stringify({ query: `q${calls}` }),
              status: 'completed',
            },
          ]
        : [
            {
              type: 'message',
              id: `msg_${calls}`,
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: reply, annotations: [] }],
            },
          ]
      return {
        status: 200,
        json: {
          id: `resp_${calls}`,
          object: 'response',
          created_at: 1,
          model: String(body.model),
          status: 'completed',
          output,
          parallel_tool_calls: true,
          tool_choice: 'auto',
          tools: [],
          usage: {
            input_tokens: billed(prompt),
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 40,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: prompt + 40,
          },
        },
      }
    }
    if (path.endsWith('/messages')) {
      const messages = body.messages as Record<string, unknown>[]
      const prompt =
        countItems(messages) + textOf(body.system).reduce((s, t) => s + tokens(t), 0) + toolTokens
      const completion = Number(body.max_tokens ?? 0)
      const tooLong = prompt > window
      const rejected = tooLong || prompt + completion > window
      state.requests.push({ path, body, tokens: prompt, rejected })
      if (rejected) {
        return {
          status: 400,
          json: {
            type: 'error',
            error: {
              type: 'invalid_request_error',
              message: tooLong
                ? `prompt is too long: ${prompt} tokens > ${window} maximum`
                : `input length and \`max_tokens\` exceed context limit: ${prompt} + ${completion} > ${window}, decrease input length or \`max_tokens\` and try again`,
            },
          },
        }
      }
      const last = messages[messages.length - 1]
      const lastIsText =
        last?.role === 'user' &&
        (typeof last.content === 'string' ||
          !(last.content as { type?: string }[]).some((b) => b.type === 'tool_result'))
      const tool = tools?.[0] as { name?: string } | undefined
      const callTool = tools && lastIsText
      return {
        status: 200,
        json: {
          id: `msg_${calls}`,
          type: 'message',
          role: 'assistant',
          model: String(body.model),
          content: callTool
            ? [
                {
                  type: 'tool_use',
                  id: `toolu_${calls}`,
                  name: tool?.name ?? 'tool',
                  input: { query: `q${calls}` },
                },
              ]
            : [{ type: 'text', text: reply }],
          stop_reason: callTool ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: {
            // As Anthropic reports a cached prompt: most of it read from the cache.
            input_tokens: billed(prompt) - Math.floor(billed(prompt) / 2),
            output_tokens: 40,
            cache_read_input_tokens: Math.floor(billed(prompt) / 2),
            cache_creation_input_tokens: 0,
          },
        },
      }
    }
    if (/:(stream)?generateContent/i.test(path)) {
      const contents = (body.contents ?? []) as Record<string, unknown>[]
      const declarations = ((body.tools ?? []) as { functionDeclarations?: unknown[] }[]).flatMap(
        (t) => t.functionDeclarations ?? [],
      )
      const prompt =
        countItems(contents) +
        textOf(body.systemInstruction).reduce((s, t) => s + tokens(t), 0) +
        (declarations.length ? tokens(JSON.stringify(declarations)) : 0)
      // Gemini limits the input alone; the output has its own limit.
      const rejected = prompt > window
      state.requests.push({ path, body, tokens: prompt, rejected })
      if (rejected) {
        return {
          status: 400,
          json: {
            error: {
              code: 400,
              message: `The input token count (${prompt}) exceeds the maximum number of tokens allowed (${window}).`,
              status: 'INVALID_ARGUMENT',
            },
          },
        }
      }
      const last = contents[contents.length - 1] as {
        role?: string
        parts?: Record<string, unknown>[]
      }
      const callTool =
        declarations.length > 0 &&
        last?.role === 'user' &&
        !(last.parts ?? []).some((p) => 'functionResponse' in p)
      const tool = declarations[0] as { name?: string } | undefined
      return {
        status: 200,
        json: {
          candidates: [
            {
              index: 0,
              finishReason: 'STOP',
              content: {
                role: 'model',
                parts: callTool
                  ? [{ functionCall: { name: tool?.name ?? 'tool', args: { query: `q${calls}` } } }]
                  : [{ text: reply }],
              },
            },
          ],
          usageMetadata: {
            promptTokenCount: billed(prompt),
            candidatesTokenCount: 40,
            totalTokenCount: billed(prompt) + 40,
          },
          modelVersion: 'gemini-2.5-flash',
        },
      }
    }
    return { status: 404, json: { error: { message: `no route ${path}` } } }
  }

  const server: Server = createServer((req, res) => {
    if (options.detached) res.shouldKeepAlive = false
    let data = ''
    req.on('data', (c) => {
      data += c
    })
    req.on('end', () => {
      try {
        const { status, json } = handle(req, data)
        if (status === 200 && JSON.parse(data).stream === true && 'choices' in json) {
          res.writeHead(200, { 'content-type': 'text/event-stream' }).end(chatChunks(json))
          return
        }
        if (status === 200 && JSON.parse(data).stream === true && json.object === 'response') {
          // The Responses stream at its shortest: created, then completed with the whole response.
          const events = [
            {
              type: 'response.created',
              sequence_number: 0,
              response: { ...json, status: 'in_progress', output: [] },
            },
            { type: 'response.completed', sequence_number: 1, response: json },
          ]
          res
            .writeHead(200, { 'content-type': 'text/event-stream' })
            .end(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''))
          return
        }
        if (status === 200 && /:streamGenerateContent/i.test(req.url ?? '')) {
          res
            .writeHead(200, { 'content-type': 'text/event-stream' })
            .end(`data: ${JSON.stringify(json)}\n\n`)
          return
        }
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json))
      } catch (e) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: String(e) } }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  if (options.detached) server.unref()
  state.root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  state.url = `${state.root}/v1`
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return state
}

/** A chat completion as the server-sent events of a streamed one: the message, then the finish with usage. */
function chatChunks(completion: Record<string, unknown>): string {
  const { choices, usage, ...head } = completion as {
    choices: {
      message: {
        content: string | null
        tool_calls?: { id: string; type: string; function: unknown }[]
      }
      finish_reason: string
    }[]
    usage: unknown
  }
  const choice = choices[0] as (typeof choices)[number]
  const base = { ...head, object: 'chat.completion.chunk' }
  const delta = {
    role: 'assistant',
    content: choice.message.content,
    ...(choice.message.tool_calls && {
      tool_calls: choice.message.tool_calls.map((c, index) => ({ index, ...c })),
    }),
  }
  const events = [
    { ...base, choices: [{ index: 0, delta, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }], usage },
  ]
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`
}

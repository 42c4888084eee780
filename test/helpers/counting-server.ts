import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'

/**
 * A real HTTP server on 127.0.0.1 answering the three providers' counting endpoints as they
 * are documented: Anthropic `POST /v1/messages/count_tokens` → `{ input_tokens }`, OpenAI
 * `POST /v1/responses/input_tokens` → `{ object: 'response.input_tokens', input_tokens }`,
 * Gemini `POST /v1beta/models/<model>:countTokens` (Vertex:
 * `/v1beta1/publishers/google/models/<model>:countTokens`) → `{ totalTokens }`. Its count is its own
 * rule, written apart from the library: o200k tokens of every string in the body except ids,
 * types and the model, times `scale`, plus 4 per message or item and 10 per request.
 */
export interface CountingServer {
  url: string
  /** Every request received: its path and body. */
  requests: { path: string; body: Record<string, unknown> }[]
  /** The server's count of a body it would receive (the same rule). */
  countOf(body: Record<string, unknown>): number
  /** Answer the next `n` requests with this HTTP status and the provider's error body. */
  fail(status: number, n?: number): void
  /** Answer the next request with 200 and this in place of the count (a broken or lying endpoint). */
  lie(value: unknown): void
  /** Never answer the next `n` requests (a provider that hangs); `close` ends them. */
  hang(n?: number): void
  close(): Promise<void>
}

const SKIP = new Set(['id', 'call_id', 'tool_use_id', 'type', 'model', 'role', 'object'])

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => (SKIP.has(k) ? [] : strings(v)))
  return []
}

function items(body: Record<string, unknown>): number {
  const list = body.messages ?? body.input ?? body.contents
  return Array.isArray(list) ? list.length : 0
}

export async function startCountingServer(scale = 1.25): Promise<CountingServer> {
  const requests: CountingServer['requests'] = []
  let failures: { status: number; n: number } | undefined
  let lie: { value: unknown } | undefined
  let hangs = 0
  const countOf = (body: Record<string, unknown>) => {
    let n = 0
    for (const s of strings(body)) n += encode(s, { allowedSpecial: 'all' }).length
    return Math.round(n * scale) + 4 * items(body) + 10
  }
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => {
      raw += c
    })
    req.on('end', () => {
      const path = req.url ?? ''
      const body = JSON.parse(raw || '{}') as Record<string, unknown>
      requests.push({ path, body })
      if (hangs > 0) {
        hangs--
        return
      }
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(json))
      }
      if (failures && failures.n > 0) {
        failures.n--
        const { status } = failures
        if (path.includes('count_tokens'))
          return send(status, {
            type: 'error',
            error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message: 'down' },
          })
        if (path.includes('input_tokens'))
          return send(status, { error: { message: 'down', type: 'server_error', code: null } })
        return send(status, { error: { code: status, message: 'down', status: 'UNAVAILABLE' } })
      }
      const told = lie
      lie = undefined
      if (path === '/v1/messages/count_tokens')
        return send(200, { input_tokens: told ? told.value : countOf(body) })
      if (path === '/v1/responses/input_tokens')
        return send(200, { object: 'response.input_tokens', input_tokens: countOf(body) })
      if (/^\/(v1beta\/models|v1beta1\/publishers\/google\/models)\/[^/]+:countTokens$/.test(path))
        return send(200, { totalTokens: countOf(body) })
      send(404, { error: { message: `no route ${path}` } })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    countOf,
    fail(status, n = 1) {
      failures = { status, n }
    },
    lie(value) {
      lie = { value }
    },
    hang(n = 1) {
      hangs = n
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

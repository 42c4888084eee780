import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the next request gets: a reply, an HTTP error, a hang, or a cut connection. */
export type Fault =
  | { kind: 'reply'; content: string }
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'raw'; body: string }
  | { kind: 'hang' }
  | { kind: 'destroy' }

export interface FakeOpenAI {
  url: string
  requests: { headers: IncomingMessage['headers']; body: Record<string, unknown> }[]
  /** Answers, in order; when empty, `fallback`. */
  queue: Fault[]
  fallback: Fault
  close(): Promise<void>
}

/**
 * A real HTTP server on 127.0.0.1 speaking OpenAI's chat-completions protocol, with
 * deterministic replies and injected faults.
 */
export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const hanging = new Set<() => void>()
  const state: FakeOpenAI = {
    url: '',
    requests: [],
    queue: [],
    fallback: { kind: 'reply', content: 'summary' },
    close: async () => {},
  }
  const server: Server = createServer((req, res) => {
    let data = ''
    req.on('data', (c) => {
      data += c
    })
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end('{"error":{"message":"not found"}}')
        return
      }
      state.requests.push({ headers: req.headers, body: JSON.parse(data) })
      const fault = state.queue.shift() ?? state.fallback
      switch (fault.kind) {
        case 'reply':
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id: `chatcmpl-${state.requests.length}`,
              object: 'chat.completion',
              model: 'fake',
              choices: [
                {
                  index: 0,
                  finish_reason: 'stop',
                  message: { role: 'assistant', content: fault.content },
                },
              ],
              usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
            }),
          )
          return
        case 'status':
          res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers }).end(
            fault.body ??
              JSON.stringify({
                error: { message: `status ${fault.status}`, type: 'server_error' },
              }),
          )
          return
        case 'raw':
          res.writeHead(200, { 'content-type': 'application/json' }).end(fault.body)
          return
        case 'hang':
          hanging.add(() => res.destroy())
          return
        case 'destroy':
          req.socket.destroy()
          return
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const h of hanging) h()
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return state
}

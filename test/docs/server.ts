import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { LimitedServer } from '../helpers/limited-server.js'

/** What the docs server was asked, by route. */
export interface DocsServer {
  url: string
  /** Requests by route: `embeddings`, `gemini`, and the proxied `chat`, `responses`, `messages`. */
  calls: Record<string, number>
  close(): Promise<void>
}

/** A deterministic 64-dimension vector for a text (hashed word counts): no model, no network. */
function vectorOf(text: string): number[] {
  const v = new Array<number>(64).fill(0)
  for (const word of text.toLowerCase().split(/\W+/)) {
    if (!word) continue
    let h = 0
    for (let i = 0; i < word.length; i++) h = (h * 31 + word.charCodeAt(i)) >>> 0
    v[h % 64] = (v[h % 64] ?? 0) + 1
  }
  return v
}

/**
 * One server on 127.0.0.1 for the docs blocks: OpenAI `/v1/embeddings` and Gemini
 * `generateContent` answered here, chat completions, Responses and Anthropic messages passed
 * to the limited server (which counts and can reject them as the providers do).
 */
export async function startDocsServer(limited: LimitedServer): Promise<DocsServer> {
  const calls: Record<string, number> = {}
  const hit = (route: string) => {
    calls[route] = (calls[route] ?? 0) + 1
  }
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => {
      raw += c
    })
    req.on('end', async () => {
      const path = (req.url ?? '').split('?')[0] ?? ''
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(body))
      }
      if (path.endsWith('/embeddings')) {
        hit('embeddings')
        const body = JSON.parse(raw) as { input: string | string[] }
        const input = Array.isArray(body.input) ? body.input : [body.input]
        return reply(200, {
          object: 'list',
          data: input.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })),
          model: 'text-embedding-3-small',
          usage: { prompt_tokens: 1, total_tokens: 1 },
        })
      }
      if (path.includes(':generateContent')) {
        hit('gemini')
        return reply(200, {
          candidates: [
            {
              content: { role: 'model', parts: [{ text: 'Done.' }] },
              finishReason: 'STOP',
              index: 0,
            },
          ],
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
        })
      }
      const route = path.endsWith('/chat/completions')
        ? 'chat'
        : path.endsWith('/responses')
          ? 'responses'
          : path.endsWith('/messages')
            ? 'messages'
            : undefined
      if (!route) return reply(404, { error: { message: `no route ${path}` } })
      hit(route)
      const target = `${limited.url}${path.replace(/^\/v1/, '')}`
      const answer = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      })
      reply(answer.status, await answer.json())
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  }
}

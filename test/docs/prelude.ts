import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { fromOpenAIChat } from '../../src/index.js'
import type { LimitedServer } from '../helpers/limited-server.js'

/** The bundled example conversation, as OpenAI chat messages and as canonical ones. */
export function exampleConversation(): {
  openaiMessages: OpenAI.ChatCompletionMessageParam[]
  tools: OpenAI.ChatCompletionTool[]
} {
  const raw = JSON.parse(
    readFileSync(new URL('../../examples/airline-booking.json', import.meta.url), 'utf8'),
  ) as { messages?: unknown[] } | unknown[]
  const messages = (
    Array.isArray(raw) ? raw : (raw.messages ?? [])
  ) as OpenAI.ChatCompletionMessageParam[]
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: 'function',
      function: {
        name: 'get_reservation_details',
        description: 'Get the details of a reservation.',
        parameters: {
          type: 'object',
          properties: { reservation_id: { type: 'string', description: 'The reservation id.' } },
          required: ['reservation_id'],
        },
      },
    },
  ]
  return { openaiMessages: messages, tools }
}

/** A Gemini `generateContent` endpoint on 127.0.0.1 that answers every call with one text turn. */
export async function startGeminiServer(): Promise<{
  url: string
  bodies: Record<string, unknown>[]
  close(): Promise<void>
}> {
  const bodies: Record<string, unknown>[] = []
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => {
      raw += c
    })
    req.on('end', () => {
      bodies.push(JSON.parse(raw || '{}') as Record<string, unknown>)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          candidates: [
            {
              content: { role: 'model', parts: [{ text: 'Done.' }] },
              finishReason: 'STOP',
              index: 0,
            },
          ],
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
        }),
      )
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  }
}

/** Sets the globals `globals.d.ts` declares, with clients pointed at the given servers. */
export function setGlobals(limited: LimitedServer, geminiUrl: string): void {
  const { openaiMessages, tools } = exampleConversation()
  const history = fromOpenAIChat(openaiMessages)
  const g = globalThis as Record<string, unknown>
  g.openai = new OpenAI({ baseURL: limited.url, apiKey: 'test', maxRetries: 0 })
  g.anthropic = new Anthropic({
    baseURL: limited.url.replace(/\/v1\/?$/, ''),
    apiKey: 'test',
    maxRetries: 0,
  })
  g.ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: geminiUrl } })
  g.openaiMessages = openaiMessages
  g.tools = tools
  g.history = history
  g.system = history.find((m) => m.role === 'system') ?? {
    role: 'system',
    content: 'You are an airline agent.',
  }
}

/** Removes what `setGlobals` set. */
export function clearGlobals(): void {
  const g = globalThis as Record<string, unknown>
  for (const k of ['openai', 'anthropic', 'ai', 'openaiMessages', 'tools', 'history', 'system'])
    delete g[k]
}

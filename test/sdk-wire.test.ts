// The real SDKs send what the codecs return, unchanged, to a server on 127.0.0.1; what
// they get back goes into a ChatContext as it comes, and the next request carries it.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { GoogleGenAI } from '@google/genai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChatContext } from '../src/context/chat/chat-context.js'
import { fit } from '../src/context/fit.js'
import { decode } from '../src/formats/detect.js'
import { toGemini } from '../src/providers/gemini/codec.js'
import { toOpenAIResponses } from '../src/providers/openai-responses/codec.js'
import { chatToGemini, chatToResponses } from './oracle/build.js'
import { geminiViolations } from './oracle/gemini.js'
import { responsesViolations } from './oracle/responses.js'
import { tauBench } from './tau-bench.js'

type Json = Record<string, unknown>
const seen: { url: string; body: Json }[] = []
const replies: Json[] = []
let server: Server
let base = ''

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = ''
    req.on('data', (c) => {
      data += c
    })
    req.on('end', () => {
      seen.push({ url: req.url ?? '', body: JSON.parse(data) })
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(replies.shift() ?? {}))
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((done) => server.close(() => done())))

const traj = tauBench()[3]?.traj as Json[]

describe('through the real SDKs', () => {
  it('openai.responses.create sends the fitted items as they are; the reply goes back in with its reasoning', async () => {
    const openai = new OpenAI({ apiKey: 'test', baseURL: `${base}/v1`, maxRetries: 0 })
    const source = chatToResponses(traj, 'w')
    const ctx = new ChatContext({
      budget: 4000,
      provider: 'openai-responses',
      format: 'openai-responses',
    })
    await ctx.addMessages([
      { role: 'system', content: source.instructions as string },
      ...(source.input as Json[]),
    ])
    const reply = [
      { type: 'reasoning', id: 'rs_new', summary: [], encrypted_content: 'ZW5j' },
      {
        type: 'message',
        id: 'msg_new',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
      },
    ]
    replies.push({ id: 'resp_1', object: 'response', status: 'completed', output: reply })
    const input = toOpenAIResponses(await ctx.getMessages(), { store: false })
    const response = await openai.responses.create({ model: 'gpt-5', input, store: false })
    const sent = seen.at(-1) as { url: string; body: Json }
    expect(sent.url).toBe('/v1/responses')
    expect(sent.body.input).toEqual(input)
    expect(
      responsesViolations(sent.body.input as Json[], { store: false }, source.input as Json[]),
    ).toEqual([])
    await ctx.addMessages(response.output)
    const next = toOpenAIResponses(await ctx.getMessages(), { store: false }) as unknown as Json[]
    expect(next.slice(-2)).toEqual(reply)
  })

  it('ai.models.generateContent sends the fitted contents as they are; the signed reply goes back byte for byte', async () => {
    const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: base } })
    const source = chatToGemini(traj, 'w', { noIds: true })
    const r = fit(decode(source).messages, { budget: 4000, provider: 'gemini' })
    const { contents, systemInstruction } = toGemini(r.messages)
    const turn = { role: 'model', parts: [{ text: 'Done.', thoughtSignature: 'c2lnbmVkIGJ5dGVz' }] }
    replies.push({ candidates: [{ content: turn, finishReason: 'STOP', index: 0 }] })
    const response = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents,
      config: { systemInstruction },
    })
    const sent = seen.at(-1) as { url: string; body: Json }
    expect(sent.url).toMatch(/models\/gemini-2.5-flash:generateContent/)
    expect(sent.body.contents).toEqual(contents)
    expect(geminiViolations(sent.body as { contents: unknown }, source.contents as Json[])).toEqual(
      [],
    )
    const ctx = new ChatContext({
      budget: 4000,
      provider: 'gemini',
      format: 'gemini',
      initialMessages: r.messages,
    })
    const candidate = response.candidates?.[0]?.content
    expect(candidate).toBeDefined()
    if (candidate) await ctx.addMessage(candidate)
    expect(toGemini(await ctx.getMessages()).contents.at(-1)).toEqual(turn)
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ChatContext, type ContextFormat } from '../../src/context/chat/chat-context.js'
import { fit } from '../../src/context/fit.js'
import { decode, encode, type Format, providerOfFormat } from '../../src/formats/detect.js'
import type { Message } from '../../src/messages/message.js'
import { fromOpenAIChat } from '../../src/providers/openai-chat/codec.js'
import { repair } from '../../src/providers/repair.js'
import { mutateAll } from '../properties/generators.js'
import { tauBench } from '../tau-bench.js'

/**
 * No request shares an object with the history, in any codec: whatever the caller does to
 * what an encoder returned (edit, add, delete at every depth) leaves the history as it was,
 * and nothing returned is frozen, whether it was built by `fit` or from a context's view.
 */
const example = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8')) as unknown

function sources(): [Format, unknown][] {
  const traj = tauBench()[2]?.traj ?? []
  const canonical = fromOpenAIChat(traj)
  const anthropic = encode(
    repair(canonical, { provider: 'anthropic' }).messages,
    'anthropic',
  ).output
  return [
    ['openai-chat', traj],
    ['openai-responses', example('airline-booking.responses.json')],
    ['gemini', example('airline-booking.gemini.json')],
    ['anthropic', anthropic],
    ['ai-sdk', encode(canonical, 'ai-sdk').output],
    ['autogen', encode(canonical, 'autogen').output],
    ['langchain', encode(canonical, 'langchain').output],
  ]
}

/** The input items a format's `decode` takes one at a time in a context. */
function items(format: Format, source: unknown): unknown[] {
  if (format === 'anthropic') return (source as { messages: unknown[] }).messages
  if (format === 'openai-responses') return (source as { input: unknown[] }).input
  if (format === 'gemini') return (source as { contents: unknown[] }).contents
  return []
}

describe('requests share no object with the history', () => {
  for (const [format, source] of sources()) {
    const provider = providerOfFormat(format) ?? 'openai'
    for (const budget of [2500, 100_000]) {
      it(`${format} (budget ${budget}): fit's request, edited everywhere, leaves the history as it was`, () => {
        const history = decode(source, format).messages
        const before = structuredClone(history)
        const r = fit(history, { provider, budget })
        const { output } = encode(r.messages, format)
        expect(() => mutateAll(output)).not.toThrow()
        expect(history).toEqual(before)
        // The same history fitted again gives the same request as before the edits.
        expect(encode(fit(history, { provider, budget }).messages, format).output).toEqual(
          encode(fit(before as Message[], { provider, budget }).messages, format).output,
        )
      })
    }

    it(`${format}: the history encoded as it is, edited everywhere, leaves the history as it was`, () => {
      const history = decode(source, format).messages
      const before = structuredClone(history)
      const { output } = encode(history, format)
      expect(() => mutateAll(output)).not.toThrow()
      expect(history).toEqual(before)
    })

    it(`${format}: a request built from a context's view is editable and leaves the context as it was`, async () => {
      const list = items(format, source)
      const decoded = decode(source, format).messages
      const system = decoded.filter((m) => m.role === 'system').slice(0, 1)
      const ctx: ChatContext<ContextFormat> =
        list.length > 0
          ? new ChatContext({ format, budget: 3000, initialMessages: system })
          : new ChatContext({ provider, budget: 3000 })
      if (list.length > 0) for (const item of list) await ctx.addMessage(item as object)
      else await ctx.addMessages(decoded)
      const history = ctx.history()
      const view = await ctx.getMessages()
      const { output } = encode(view, format)
      expect(() => mutateAll(output)).not.toThrow()
      expect(ctx.history()).toEqual(history)
      expect(await ctx.getMessages()).toEqual(view)
    })
  }
})

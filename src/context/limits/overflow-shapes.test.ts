import Anthropic from '@anthropic-ai/sdk'
import { MastraError } from '@mastra/core/error'
import { APICallError, RetryError } from 'ai'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { userTurn } from '../../../test/helpers/turns.js'
import type { Message } from '../../messages/message.js'
import { ChatContext } from '../chat/chat-context.js'
import { withContextRetry } from '../chat/retry.js'
import { ProviderFeedback } from './learned-limit.js'
import { parseOverflowError } from './overflow-error.js'

const RESPONSES_MESSAGE =
  'Your input exceeds the context window of this model. Please adjust your input and try again.'
const responsesBody = {
  error: {
    message: RESPONSES_MESSAGE,
    type: 'invalid_request_error',
    param: 'input',
    code: 'context_length_exceeded',
  },
}
const openAIError = () =>
  OpenAI.APIError.generate(400, responsesBody, RESPONSES_MESSAGE, new Headers()) as Error
const aiSdkError = () =>
  new APICallError({
    message: 'Bad Request',
    url: 'http://127.0.0.1/v1/responses',
    requestBodyValues: {},
    statusCode: 400,
    responseBody: JSON.stringify(responsesBody),
    data: responsesBody,
    isRetryable: false,
  })

/**
 * The Responses API's "too long" error carries no numbers; it reaches the user as the OpenAI
 * SDK's error, the AI SDK's APICallError (its code under data.error.code), wrapped in the AI
 * SDK's RetryError, in an error whose cause it is (LangChain, the Agents SDK) and in a
 * MastraError. Each is read as a rejection; anything else is not.
 */
describe('every shape of a "too long" rejection is read', () => {
  const shapes: [string, () => unknown][] = [
    ['the OpenAI SDK error', openAIError],
    ['the AI SDK APICallError', aiSdkError],
    [
      'the AI SDK APICallError with a generic message, the code only in data',
      () =>
        new APICallError({
          message: 'Bad Request',
          url: 'u',
          requestBodyValues: {},
          statusCode: 400,
          data: { error: { code: 'context_length_exceeded' } },
        }),
    ],
    [
      'the AI SDK RetryError',
      () =>
        new RetryError({
          message: 'Failed after 1 attempt',
          reason: 'errorNotRetryable',
          errors: [aiSdkError()],
        }),
    ],
    [
      'an error that wraps it (LangChain, the Agents SDK)',
      () => new Error('Model call failed', { cause: openAIError() }),
    ],
    [
      'a MastraError',
      () =>
        new MastraError(
          { id: 'LLM_CALL_FAILED', domain: 'LLM', category: 'THIRD_PARTY' } as never,
          aiSdkError(),
        ),
    ],
    [
      "Anthropic's with numbers",
      () =>
        Anthropic.APIError.generate(
          400,
          {
            type: 'error',
            error: {
              type: 'invalid_request_error',
              message: 'prompt is too long: 208000 tokens > 200000 maximum',
            },
          },
          undefined,
          new Headers(),
        ),
    ],
  ]
  for (const [what, make] of shapes) {
    it(what, () => {
      expect(parseOverflowError(make())).toBeDefined()
    })
  }

  it('other errors are not rejections, and a cyclic cause does not loop', () => {
    expect(parseOverflowError(new Error('rate limit'))).toBeUndefined()
    const a = new Error('a') as Error & { cause?: unknown }
    const b = new Error('b', { cause: a })
    a.cause = b
    expect(parseOverflowError(a)).toBeUndefined()
  })
})

describe('after a rejection without numbers the next request fits, whatever the reserve', () => {
  /** A Responses deployment of 4,000 tokens that counts every text (its own rule) and says no numbers. */
  function deployment(window: number) {
    let rejections = 0
    const call = async (messages: Message[]) => {
      const tokens = messages.reduce((n, m) => n + 4 + encode(JSON.stringify(m.content)).length, 0)
      if (tokens > window) {
        rejections++
        throw openAIError()
      }
      return { usage: { input_tokens: tokens } }
    }
    return { call, rejections: () => rejections }
  }

  for (const reserve of [undefined, 400, 16_384]) {
    it(`gpt-4o with ${reserve === undefined ? 'the default reserve (its output limit)' : `reserve ${reserve}`}: one rejection in 10 turns`, async () => {
      const server = deployment(4000)
      const ctx = new ChatContext({
        model: 'gpt-4o',
        ...(reserve !== undefined && { reserve }),
        provider: 'openai-responses',
      })
      for (let k = 0; k < 10; k++) {
        await ctx.addMessage({ role: 'user', content: userTurn(k, 500) })
        const { value } = await withContextRetry(server.call, ctx)
        await ctx.addMessage({ role: 'assistant', content: `Noted ${k}.` })
        expect(value.usage.input_tokens).toBeLessThanOrEqual(4000)
      }
      expect(server.rejections()).toBe(1)
    })
  }

  it('ProviderFeedback learns from it too, and the window is below what was sent', () => {
    const feedback = new ProviderFeedback()
    feedback.sent({
      tokens: { messages: 4400, tools: 0, priming: 3, reserve: 16_384, total: 4403 },
    })
    expect(feedback.learn(aiSdkError())).toBeDefined()
    const limit = feedback.limit as number
    expect(limit).toBeLessThan(4403 + 16_384)
    // The next fit's room for the prompt is below what was sent, whatever reserve it keeps.
    expect(limit - Math.min(16_384, Math.floor(limit / 4))).toBeLessThan(4403)
  })
})

describe('a learned window caps every view', () => {
  it('a view asked with its own budget is held to the learned window', async () => {
    const ctx = new ChatContext({ model: 'gpt-4o', reserve: 0 })
    for (let k = 0; k < 20; k++) await ctx.addMessage({ role: 'user', content: userTurn(k, 300) })
    await ctx.learnLimit(2000)
    const counted = (ms: Message[]) =>
      ms.reduce((n, m) => n + encode(JSON.stringify(m.content)).length, 0)
    expect(counted(await ctx.getMessages({ budget: 50_000 }))).toBeLessThanOrEqual(2000)
    expect(counted(ctx.getMessagesSync({ budget: 50_000 }))).toBeLessThanOrEqual(2000)
  })
})

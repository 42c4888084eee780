import { describe, expect, it } from 'vitest'
import { countingEndpoint } from './context/counting/counting-endpoint.js'
import * as errors from './errors.js'
import { CountingEndpointError, InvalidInputError } from './errors.js'
import { StoreError } from './store/history-store.js'

// Secrets as clients and servers quote them in their errors.
const KEY = 'sk-ant-api03-Zq8vN2xY4wP6tR1sK9mL3jH7gF5dB0cA-xYz12345678AA'
const PASSWORD = 'Tr0ub4dor&3xq'
const quoting = [
  `401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key: ${KEY}"}}`,
  `connect ECONNREFUSED postgres://app:${PASSWORD}@db.internal:5432/chat`,
  `request failed: Authorization: Bearer ${KEY}`,
]

describe('error messages never carry a credential', () => {
  it('every error class, whatever text it is given to quote', () => {
    const classes = Object.values(errors).filter(
      (v) => typeof v === 'function' && v.prototype instanceof Error,
    )
    expect(classes.length).toBeGreaterThanOrEqual(8)
    for (const text of quoting) {
      const made: Error[] = [
        new errors.ContextWindowError(text),
        new errors.InvalidInputError(text, { source: 'in.json', index: 2 }),
        new errors.InvalidOptionError('budget', text),
        new errors.UnknownModelError(text),
        new errors.EncodingNotLoadedError(text),
        new errors.InvalidStateError(text),
        new errors.InvalidPlanError('custom', 1, text),
        new errors.CountingEndpointError('anthropic', new Error(text)),
        new errors.CountingEndpointError('gemini', text),
        new errors.ContextOverflowError(text, { required: 9, budget: 5, breakdown: {} }),
        new StoreError(text, 'conv-1'),
      ]
      // A new error class is added here too.
      for (const c of classes) expect(made.some((e) => e.constructor === c)).toBe(true)
      for (const e of made) {
        expect(e.message, e.name).not.toContain(KEY)
        expect(e.message, e.name).not.toContain(PASSWORD)
      }
      const input = new InvalidInputError(text)
      expect(input.detail).not.toContain(KEY)
      expect(input.detail).not.toContain(PASSWORD)
    }
  })

  it('the counting endpoint, strict, repeats its client error without the key', async () => {
    const endpoint = countingEndpoint({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      when: 'always',
      strict: true,
      client: {
        messages: {
          countTokens: () => Promise.reject(new Error(quoting[0])),
        },
      },
    })
    const failed = await endpoint.count([{ role: 'user', content: 'hi' }]).catch((e) => e)
    expect(failed).toBeInstanceOf(CountingEndpointError)
    expect(failed.message).toContain('authentication_error')
    expect(failed.message).not.toContain(KEY)
  })
})

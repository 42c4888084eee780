import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { base64ToBytes, base64ToText, bytesToBase64, textToBase64 } from './base64.js'

// Node's Buffer is the independent implementation these are held to.
describe('base64 without Buffer', () => {
  it('encodes any bytes as Buffer does, and decodes them back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const b64 = bytesToBase64(bytes)
        expect(b64).toBe(Buffer.from(bytes).toString('base64'))
        expect(Array.from(base64ToBytes(b64))).toEqual(Array.from(bytes))
      }),
      { numRuns: 500 },
    )
  })

  it('decodes unpadded, URL-safe and line-broken base64 as Buffer does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.nat(3), (bytes, style) => {
        let b64 = Buffer.from(bytes).toString('base64')
        if (style === 1) b64 = b64.replace(/=+$/, '')
        if (style === 2) b64 = Buffer.from(bytes).toString('base64url')
        if (style === 3) b64 = b64.replace(/(.{20})/g, '$1\n')
        expect(Array.from(base64ToBytes(b64))).toEqual(Array.from(Buffer.from(b64, 'base64')))
      }),
      { numRuns: 500 },
    )
  })

  it('carries any text through UTF-8 as Buffer does (lone surrogates become U+FFFD)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (text) => {
        expect(textToBase64(text)).toBe(Buffer.from(text).toString('base64'))
        expect(base64ToText(textToBase64(text))).toBe(Buffer.from(text).toString('utf8'))
      }),
      { numRuns: 500 },
    )
  })
})

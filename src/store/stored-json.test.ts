import { describe, expect, it } from 'vitest'
import { isRecord } from '../options-check.js'
import { fieldOf, firstLineOf, isWhole } from './stored-json.js'

describe('what a store reads back, read with checks', () => {
  it('firstLineOf is the text before the first line break, as split("\\n")[0] gives it', () => {
    const texts = [
      '',
      '\n',
      'a',
      'a\nb',
      '\n\nx',
      'one\r\ntwo',
      '𝒳 astral\n𝒴',
      '  \t ',
      'no break at all',
    ]
    for (const t of texts) expect(firstLineOf(t)).toBe(t.split('\n')[0])
  })

  it('isWhole takes the safe integers and nothing else', () => {
    for (const v of [0, 1, -3, 2 ** 53 - 1]) expect(isWhole(v)).toBe(true)
    for (const v of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '1', 1n, null, undefined])
      expect(isWhole(v)).toBe(false)
  })

  it('fieldOf reads a field of an object only, an own __proto__ key as data', () => {
    const stored = JSON.parse('{"__proto__": "kept", "code": "08006", "name": "StoreError"}')
    expect(fieldOf(stored, '__proto__')).toBe('kept')
    expect(fieldOf(stored, 'code')).toBe('08006')
    expect(fieldOf(new Error('x'), 'name')).toBe('Error')
    for (const v of [null, undefined, 'code', 8006, true]) {
      expect(isRecord(v)).toBe(false)
      expect(fieldOf(v, 'code')).toBeUndefined()
    }
    expect(isRecord([])).toBe(true)
  })
})

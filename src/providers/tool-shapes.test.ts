import { describe, expect, it } from 'vitest'
import { toolSchemas } from './tool-shapes.js'

describe('tool schemas as counters read them', () => {
  it('keep a parameter named __proto__ as a parameter, in every API shape', () => {
    const parameters = {
      type: 'object',
      properties: { ['__proto__']: { type: 'string' }, id: { type: 'string' } },
    }
    const shapes = [
      { type: 'function', function: { name: 'f', description: 'd', parameters } },
      { type: 'function', name: 'f', description: 'd', parameters },
      { name: 'f', description: 'd', input_schema: parameters },
      { functionDeclarations: [{ name: 'f', description: 'd', parameters }] },
    ]
    for (const shape of shapes) {
      const [read] = toolSchemas([shape as never])
      const properties = (read?.parameters as { properties?: object } | undefined)?.properties ?? {}
      expect(Object.keys(properties)).toEqual(['__proto__', 'id'])
      expect(Object.getPrototypeOf(properties)).toBe(Object.prototype)
      expect(JSON.stringify(read?.parameters)).toBe(JSON.stringify(parameters))
    }
  })

  it('a declaration that is not an object is refused by its place, not read', () => {
    for (const d of [null, 7, 'f', true])
      expect(() => toolSchemas([{ functionDeclarations: [{ name: 'ok' }, d] }] as never)).toThrow(
        /option tools\.0\.functionDeclarations\.1: expected a function declaration/,
      )
  })
})

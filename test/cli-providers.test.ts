import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { main } from '../src/cli/main.js'
import { geminiViolations } from './oracle/gemini.js'
import { responsesViolations } from './oracle/responses.js'

const example = (name: string) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url))

async function run(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), color: false })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('the CLI reads and writes Responses and Gemini files in their own shape', () => {
  it('fit --out on a Responses request: the other request fields stay, the input passes the oracle', async () => {
    const source = JSON.parse(readFileSync(example('airline-booking.responses.json'), 'utf8'))
    const out = join(mkdtempSync(join(tmpdir(), 'cw-18-')), 'fitted.json')
    const r = await run(
      'fit',
      example('airline-booking.responses.json'),
      '--budget',
      '3000',
      '--out',
      out,
    )
    expect(r.code).toBe(0)
    const fitted = JSON.parse(readFileSync(out, 'utf8'))
    expect(fitted.model).toBe('gpt-5')
    expect(fitted.store).toBe(false)
    expect(fitted.instructions).toBe(source.instructions)
    expect(fitted.input.length).toBeLessThan(source.input.length)
    expect(responsesViolations(fitted.input, {}, source.input)).toEqual([])
  })

  it('fit --out on a Gemini request: system instruction kept, contents pass the oracle, signatures intact', async () => {
    const source = JSON.parse(readFileSync(example('airline-booking.gemini.json'), 'utf8'))
    const out = join(mkdtempSync(join(tmpdir(), 'cw-18-')), 'fitted.json')
    const r = await run(
      'fit',
      example('airline-booking.gemini.json'),
      '--budget',
      '3000',
      '--out',
      out,
    )
    expect(r.code).toBe(0)
    const fitted = JSON.parse(readFileSync(out, 'utf8'))
    expect(fitted.model).toBe('gemini-2.5-pro')
    expect(fitted.systemInstruction).toEqual(source.systemInstruction)
    expect(fitted.contents.length).toBeLessThan(source.contents.length)
    expect(geminiViolations(fitted, source.contents)).toEqual([])
  })

  it("validate uses the file format's own provider, and --provider names the new ones", async () => {
    const r = await run('validate', example('airline-booking.gemini.json'))
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/valid for gemini$/)
    const s = await run(
      'validate',
      example('airline-booking.responses.json'),
      '--provider',
      'openai-responses',
      '--json',
    )
    expect(JSON.parse(s.out).provider).toBe('openai-responses')
    const bad = await run('validate', example('airline-booking.gemini.json'), '--provider', 'bard')
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/openai-responses, gemini/)
  })

  it('a malformed Responses or Gemini file is one line naming file, item and field, exit 2, nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-18-'))
    const cases: [string, unknown, RegExp][] = [
      [
        'gemini.json',
        { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] },
        /gemini.json, message 0, field role/,
      ],
      [
        'responses.json',
        { input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: 1 }] },
        /responses.json, message 0, field arguments/,
      ],
    ]
    for (const [name, json, message] of cases) {
      const file = join(dir, name)
      writeFileSync(file, JSON.stringify(json))
      const out = join(dir, `${name}.out`)
      const r = await run('fit', file, '--budget', '1000', '--out', out)
      expect(r.code).toBe(2)
      expect(r.err.split('\n')).toHaveLength(1)
      expect(r.err).toMatch(message)
      expect(existsSync(out)).toBe(false)
    }
  })

  it('count on a Gemini file with no model uses the Gemini estimate, the counter fit uses', async () => {
    const r = await run('count', example('airline-booking.gemini.json'), '--json')
    expect(r.code).toBe(0)
    const report = JSON.parse(r.out)
    expect(report.counter).toMatch(/^estimate:piecesx1.2:gemini/)
    expect(report.exact).toBe(false)
  })
})

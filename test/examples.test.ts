import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshCopy, runIn, runLine } from './helpers/fresh-copy.js'

/**
 * Each example's own "Run:" line, run by a shell in a copy of the repository: no vitest,
 * no setup file, so what a user on a fresh clone types is what is tested.
 */
describe('examples run as their Run: line says', () => {
  let copy: ReturnType<typeof freshCopy>
  beforeAll(() => {
    copy = freshCopy()
  })
  afterAll(() => copy.remove())

  async function run(path: string): Promise<string[]> {
    const ran = await runIn(copy.dir, runLine(path))
    expect(ran.stderr).toBe('')
    expect(ran.code).toBe(0)
    return ran.stdout.split('\n').filter((l) => l !== '')
  }

  it('examples/strategies.ts prints one valid fit per strategy', async () => {
    const lines = await run('examples/strategies.ts')
    const fits = lines.filter((l) => /kept\s+\d+\/36/.test(l))
    expect(fits).toHaveLength(9)
    for (const l of fits) expect(l).toMatch(/valid: true$/)
    expect(lines.join('\n')).toMatch(/placeholder: "Skipped \d+ messages\."/)
    expect(lines.join('\n')).toMatch(/sends \d+ of 36 messages/)
  })

  it('examples/openai-responses.ts fits a Responses history at three budgets, valid, more kept with more room', async () => {
    const lines = await run('examples/openai-responses.ts')
    expect(lines[0]).toBe('52 items read as 36 messages')
    const fits = lines
      .slice(1)
      .map((l) =>
        /^budget (\d+): (\d+) items \((\d+) reasoning\), (\d+) tokens, not sent: (\d+), valid: (\w+)$/.exec(
          l,
        ),
      )
    expect(fits).toHaveLength(3)
    let before = 0
    for (const m of fits) {
      expect(m).not.toBeNull()
      const [, budget, items, , tokens, , valid] = m as RegExpExecArray
      expect(Number(tokens)).toBeLessThanOrEqual(Number(budget))
      expect(Number(items)).toBeGreaterThan(before)
      expect(valid).toBe('true')
      before = Number(items)
    }
  })

  it('examples/gemini.ts fits a Gemini history at three budgets: user first, system kept, signatures sent', async () => {
    const lines = await run('examples/gemini.ts')
    expect(lines[0]).toBe('35 turns read as 36 messages')
    const fits = lines
      .slice(1)
      .map((l) =>
        /^budget (\d+): (\d+) turns \(first: (\w+)\), (\d+) signed parts, system kept: (\w+), (\d+) tokens, valid: (\w+)$/.exec(
          l,
        ),
      )
    expect(fits).toHaveLength(3)
    for (const m of fits) {
      expect(m).not.toBeNull()
      const [, budget, turns, first, signed, system, tokens, valid] = m as RegExpExecArray
      expect(Number(tokens)).toBeLessThanOrEqual(Number(budget))
      expect(Number(signed)).toBeGreaterThan(0)
      expect(Number(signed)).toBeLessThanOrEqual(Number(turns))
      expect([first, system, valid]).toEqual(['user', 'true', 'true'])
    }
  })
})

import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshCopy, runIn, runLine } from './helpers/fresh-copy.js'

/**
 * Each example's own "Run:" line, run by a shell in a copy of the repository: no vitest, no
 * setup file and no provider key in the environment (the shell gets PATH, HOME, TMPDIR and
 * LANG only), so what a user on a fresh clone types is what is tested. The examples that call
 * a model start the loopback provider of examples/loopback/ themselves; each must exit 0
 * with nothing on standard error (no stack of a rejection it expects) and say what it did.
 */
const LOOPBACK_WINDOW = 4200
const OFFLINE = /^\(no OPENAI_API_KEY: the loopback provider at http:\/\/127\.0\.0\.1:\d+ answers/
const SERVED =
  /^\(loopback provider: (\d+) requests, (\d+) refused as too long; the largest prompt it accepted: (\d+) tokens\)$/

/** The loopback's own account: one rejection, and no accepted prompt past the window less `reserve`. */
function servedOnce(lines: string[], reserve: number): void {
  expect(lines[0]).toMatch(OFFLINE)
  const served = SERVED.exec(lines.at(-1) ?? '')
  expect(served, lines.join('\n')).not.toBeNull()
  const [, requests, refused, largest] = (served as RegExpExecArray).map(Number)
  expect(requests).toBeGreaterThanOrEqual(8)
  expect(refused).toBe(1)
  expect((largest as number) + reserve).toBeLessThanOrEqual(LOOPBACK_WINDOW)
}

/** What each example must print, by the path its Run: line names. */
const CHECKS: Record<string, (lines: string[]) => void> = {
  'examples/strategies.ts': (lines) => {
    const fits = lines.filter((l) => /kept\s+\d+\/36/.test(l))
    expect(fits).toHaveLength(9)
    for (const l of fits) expect(l).toMatch(/valid: true$/)
    expect(lines.join('\n')).toMatch(/placeholder: "Skipped \d+ messages\."/)
    expect(lines.join('\n')).toMatch(/sends \d+ of 36 messages/)
  },

  'examples/openai-responses.ts': (lines) => {
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
  },

  'examples/gemini.ts': (lines) => {
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
  },

  'examples/recall.ts': (lines) => {
    const steps = lines.filter((l) => /^step \d: sent \d+ of \d+ messages/.test(l))
    expect(steps.length).toBeGreaterThanOrEqual(2)
    for (const l of steps) expect(l).toMatch(/valid for every provider: true$/)
    expect(lines.join('\n')).toMatch(/step 1: the model calls recall /)
    expect(lines.join('\n')).toMatch(/recall returned messages \d+/)
    // The ids recall brought back are in the call the model makes next.
    expect(lines.at(-1)).toMatch(/calls book_reservation .*gift_card_\d+.*credit_card_\d+/)
  },

  'examples/remembered-limit.ts': (lines) => {
    servedOnce(lines, 500)
    expect(lines.filter((l) => /^turn \d: (sent|rejected)/.test(l))).toHaveLength(8)
    expect(lines.filter((l) => l.includes('rejected, learnt a window of 4200'))).toHaveLength(1)
    expect(lines.join('\n')).toMatch(/saved limit: \{"window":4200\}/)
  },

  'examples/ai-sdk.ts': (lines) => {
    servedOnce(lines, 400)
    expect(
      lines.filter((l) => /^turn \d: \d steps, the last one's prompt \d+ tokens$/.test(l)),
    ).toHaveLength(8)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
    const [, prompt] = /prepareStep at 1500: prompt (\d+) tokens/.exec(lines.join('\n')) ?? []
    expect(Number(prompt)).toBeGreaterThan(0)
    expect(Number(prompt)).toBeLessThanOrEqual(1500)
  },

  'examples/langchain-agent.ts': (lines) => {
    servedOnce(lines, 400)
    expect(lines.filter((l) => /^turn \d: the agent holds \d+ messages/.test(l))).toHaveLength(8)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
  },

  'examples/openai-agents.ts': (lines) => {
    servedOnce(lines, 400)
    const turns = lines.filter((l) => /^turn \d: stored \d+ items, the model sees \d+/.test(l))
    expect(turns).toHaveLength(8)
    const [, stored, seen] = /stored (\d+) items, the model sees (\d+)/.exec(turns[7] ?? '') ?? []
    expect(Number(seen)).toBeLessThan(Number(stored))
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
  },

  'examples/mastra.ts': (lines) => {
    servedOnce(lines, 400)
    // One request's prompt each (not the sum over the turn's steps): all within the window.
    const turns = lines
      .map((l) => /^turn \d: (\d) steps, prompts ([\d ,and]+) tokens$/.exec(l))
      .filter((m) => m !== null)
    expect(turns).toHaveLength(8)
    for (const [, steps, prompts] of turns) {
      const each = (prompts as string).split(' and ').map(Number)
      expect(each).toHaveLength(Number(steps))
      for (const p of each) expect(p + 400).toBeLessThanOrEqual(LOOPBACK_WINDOW)
    }
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
  },
}

describe('examples run offline as their Run: line says', () => {
  let copy: ReturnType<typeof freshCopy>
  beforeAll(() => {
    copy = freshCopy()
  })
  afterAll(() => copy.remove())

  it('every example in examples/ is run here', () => {
    const dir = fileURLToPath(new URL('../examples/', import.meta.url))
    const found = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `examples/${f}`)
      .sort()
    expect(Object.keys(CHECKS).sort()).toEqual(found)
  })

  for (const [path, check] of Object.entries(CHECKS)) {
    it(`${path}: exit 0, nothing on standard error, its output`, async () => {
      const line = runLine(path)
      // As written: no placeholder for a key or a URL to fill in.
      expect(line).toBe(`npx tsx ${path}`)
      const ran = await runIn(copy.dir, line, {}, 170_000)
      expect(ran.stderr).toBe('')
      expect(ran.code).toBe(0)
      check(ran.stdout.split('\n').filter((l) => l !== ''))
    }, 180_000)
  }
})

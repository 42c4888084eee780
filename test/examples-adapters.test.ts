import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshCopy, runIn, runLine } from './helpers/fresh-copy.js'
import { type LimitedServer, startLimitedServer } from './helpers/limited-server.js'

/**
 * The adapter examples run as written against a loopback server whose window (4,200 tokens)
 * is smaller than the model table's: each sees at most one rejection in its 8-turn loop,
 * and no accepted request is over the window. Each runs as its "Run:" line says, by a shell
 * in a copy of the repository (no vitest, no setup file), with the line's `...` filled in.
 */
describe('adapter examples run as written against a 4,200-token server', () => {
  let server: LimitedServer
  let copy: ReturnType<typeof freshCopy>
  beforeAll(async () => {
    server = await startLimitedServer({ window: 4200 })
    copy = freshCopy()
  })
  afterAll(async () => {
    copy.remove()
    await server.close()
  })

  async function runExample(path: string): Promise<string[]> {
    server.requests.length = 0
    const ran = await runIn(copy.dir, runLine(path), {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: 'test',
    })
    // Mastra's logger writes the expected rejection to stderr; the exit code is the verdict.
    expect(ran.code, ran.stderr).toBe(0)
    return ran.stdout.split('\n').filter((l) => l !== '')
  }

  function withinWindow(reserve: number) {
    for (const r of server.requests.filter((r) => !r.rejected))
      expect(r.tokens + reserve).toBeLessThanOrEqual(4200)
  }

  it('examples/remembered-limit.ts', async () => {
    const lines = await runExample('examples/remembered-limit.ts')
    expect(lines.filter((l) => /^turn \d: /.test(l))).toHaveLength(8)
    expect(lines.filter((l) => l.includes('rejected, learnt'))).toHaveLength(1)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/saved limit: \{"window":\d+\}/)
    withinWindow(500)
  })

  it('examples/ai-sdk.ts', async () => {
    const lines = await runExample('examples/ai-sdk.ts')
    expect(lines.filter((l) => /^turn \d: \d steps/.test(l))).toHaveLength(8)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
    const last = server.requests[server.requests.length - 1]
    expect(last?.tokens).toBeLessThanOrEqual(1500)
    expect(lines.join('\n')).toMatch(/prepareStep at 1500: prompt \d+ tokens/)
    withinWindow(400)
  })

  it('examples/langchain-agent.ts', async () => {
    const lines = await runExample('examples/langchain-agent.ts')
    expect(lines.filter((l) => /^turn \d: the agent holds \d+ messages/.test(l))).toHaveLength(8)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
    withinWindow(400)
  })

  it('examples/openai-agents.ts', async () => {
    const lines = await runExample('examples/openai-agents.ts')
    const turns = lines.filter((l) => /^turn \d: stored \d+ items, the model sees \d+/.test(l))
    expect(turns).toHaveLength(8)
    const [, stored, seen] = /stored (\d+) items, the model sees (\d+)/.exec(turns[7] ?? '') ?? []
    expect(Number(seen)).toBeLessThan(Number(stored))
    expect(server.rejections).toBe(1)
    withinWindow(400)
  })

  it('examples/mastra.ts', async () => {
    const lines = await runExample('examples/mastra.ts')
    expect(lines.filter((l) => /^turn \d: \d steps/.test(l))).toHaveLength(8)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
    withinWindow(400)
  })
})

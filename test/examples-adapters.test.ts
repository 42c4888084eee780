import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshCopy, runIn, runLine } from './helpers/fresh-copy.js'
import { type LimitedServer, startLimitedServer } from './helpers/limited-server.js'

/**
 * The adapter examples with a key in the environment: they talk to the provider
 * `OPENAI_BASE_URL` names (here the test's own server, whose window of 4,200 tokens is
 * smaller than the model table's), not to a loopback of their own. Each sees one rejection in
 * its 8-turn loop, and no accepted request is over the window. Each runs as its "Run:" line
 * says, by a shell in a copy of the repository (no vitest, no setup file), with the key and
 * the base URL set as a user sets them. test/examples.test.ts runs them with no key.
 */
describe('adapter examples with a key set talk to the provider it names', () => {
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
    const ran = await runIn(copy.dir, runLine(path), {}, 170_000, {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: 'test',
    })
    expect(ran.stderr).toBe('')
    expect(ran.code).toBe(0)
    const lines = ran.stdout.split('\n').filter((l) => l !== '')
    // No loopback of its own: every request came here.
    expect(lines.join('\n')).not.toContain('loopback provider')
    expect(server.requests.length).toBeGreaterThanOrEqual(8)
    return lines
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
  }, 180_000)

  it('examples/ai-sdk.ts', async () => {
    const lines = await runExample('examples/ai-sdk.ts')
    expect(lines.filter((l) => /^turn \d: \d steps/.test(l))).toHaveLength(8)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
    const last = server.requests[server.requests.length - 1]
    expect(last?.tokens).toBeLessThanOrEqual(1500)
    expect(lines.join('\n')).toMatch(/prepareStep at 1500: prompt \d+ tokens/)
    withinWindow(400)
  }, 180_000)

  it('examples/langchain-agent.ts', async () => {
    const lines = await runExample('examples/langchain-agent.ts')
    expect(lines.filter((l) => /^turn \d: the agent holds \d+ messages/.test(l))).toHaveLength(8)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
    withinWindow(400)
  }, 180_000)

  it('examples/openai-agents.ts', async () => {
    const lines = await runExample('examples/openai-agents.ts')
    const turns = lines.filter((l) => /^turn \d: stored \d+ items, the model sees \d+/.test(l))
    expect(turns).toHaveLength(8)
    const [, stored, seen] = /stored (\d+) items, the model sees (\d+)/.exec(turns[7] ?? '') ?? []
    expect(Number(seen)).toBeLessThan(Number(stored))
    expect(server.rejections).toBe(1)
    withinWindow(400)
  }, 180_000)

  it('examples/mastra.ts', async () => {
    const lines = await runExample('examples/mastra.ts')
    expect(lines.filter((l) => /^turn \d: \d steps/.test(l))).toHaveLength(8)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
    withinWindow(400)
  }, 180_000)
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LimitedServer, startLimitedServer } from './helpers/limited-server.js'
import { printedBy } from './helpers/logged.js'

/**
 * The adapter examples run as written against a loopback server whose window (4,200 tokens)
 * is smaller than the model table's: each sees at most one rejection in its 8-turn loop,
 * and no accepted request is over the window.
 */
describe('adapter examples run as written against a 4,200-token server', () => {
  let server: LimitedServer
  const env = { ...process.env }
  beforeAll(async () => {
    server = await startLimitedServer({ window: 4200 })
    process.env.OPENAI_BASE_URL = server.url
    process.env.OPENAI_API_KEY = 'test'
  })
  afterAll(async () => {
    process.env = env
    await server.close()
  })

  async function runExample(path: string): Promise<string[]> {
    server.requests.length = 0
    return printedBy(new URL(path, import.meta.url))
  }

  function withinWindow(reserve: number) {
    for (const r of server.requests.filter((r) => !r.rejected))
      expect(r.tokens + reserve).toBeLessThanOrEqual(4200)
  }

  it('examples/remembered-limit.ts', async () => {
    const lines = await runExample('../examples/remembered-limit.js')
    expect(lines.filter((l) => /^turn \d: /.test(l))).toHaveLength(8)
    expect(lines.filter((l) => l.includes('rejected, learnt'))).toHaveLength(1)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/saved limit: \{"window":\d+\}/)
    withinWindow(500)
  })

  it('examples/ai-sdk.ts', async () => {
    const lines = await runExample('../examples/ai-sdk.js')
    expect(lines.filter((l) => /^turn \d: \d steps/.test(l))).toHaveLength(8)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
    const last = server.requests[server.requests.length - 1]
    expect(last?.tokens).toBeLessThanOrEqual(1500)
    expect(lines.join('\n')).toMatch(/prepareStep at 1500: prompt \d+ tokens/)
    withinWindow(400)
  })

  it('examples/langchain-agent.ts', async () => {
    const lines = await runExample('../examples/langchain-agent.js')
    expect(lines.filter((l) => /^turn \d: the agent holds \d+ messages/.test(l))).toHaveLength(8)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
    withinWindow(400)
  })

  it('examples/openai-agents.ts', async () => {
    const lines = await runExample('../examples/openai-agents.js')
    const turns = lines.filter((l) => /^turn \d: stored \d+ items, the model sees \d+/.test(l))
    expect(turns).toHaveLength(8)
    const [, stored, seen] = /stored (\d+) items, the model sees (\d+)/.exec(turns[7] ?? '') ?? []
    expect(Number(seen)).toBeLessThan(Number(stored))
    expect(server.rejections).toBe(1)
    withinWindow(400)
  })

  it('examples/mastra.ts', async () => {
    const lines = await runExample('../examples/mastra.js')
    expect(lines.filter((l) => /^turn \d: \d steps/.test(l))).toHaveLength(8)
    expect(server.rejections).toBe(1)
    expect(lines.join('\n')).toMatch(/learnt window: \d+/)
    withinWindow(400)
  })
})

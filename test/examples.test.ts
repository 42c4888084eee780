import { describe, expect, it, vi } from 'vitest'

describe('examples run as written', () => {
  it('examples/strategies.ts prints one valid fit per strategy', async () => {
    const lines: string[] = []
    const spy = vi.spyOn(console, 'log').mockImplementation((...args) => {
      lines.push(args.join(' '))
    })
    try {
      await import('../examples/strategies.js')
    } finally {
      spy.mockRestore()
    }
    const fits = lines.filter((l) => /kept\s+\d+\/36/.test(l))
    expect(fits).toHaveLength(9)
    for (const l of fits) expect(l).toMatch(/valid: true$/)
    expect(lines.join('\n')).toMatch(/placeholder: "Skipped \d+ messages\."/)
    expect(lines.join('\n')).toMatch(/sends \d+ of 36 messages/)
  })
})

import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))

describe('npm run size', () => {
  it('a browser app of fit + tokenLimited + the OpenAI codec loads at most 55 KB gzipped at start (53 KB before the credential prefilter; 51 KB before the dates and the co-occurring words of mostRelevant; 50 KB before one numbering across entry points, the recall notes on shortened results, the rule between a strategy limit and the budget and the ledger reading ahead; 49 KB before pinned messages: every strategy wrapped to send them, transforms leaving them alone; 45 KB before the credential filter read command lines, configuration forms, the newer token formats of services, connection strings part by part and published id forms; 44 KB before the variants in the model table, the rule for unlisted variants and the second Claude tokenizer; 43 KB before the ledger kept per cut: a tally of the window facts and its text counted piece by piece; 41 KB before the credential rules were kept as text gated by their literals; 40 KB before the recall option, the empty-message check and the PDF page limit; 30 KB before the credential filter, the record renderer and exact fact values; 38.5 before the plan check of what every request carries and the per-request media limits); the rank tables come only on demand', () => {
    // What `npm run size` runs, with --json to read the figures.
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/size.ts', '--max', '55', '--json'],
      { cwd: root, encoding: 'utf8' },
    )
    expect(r.status, r.stderr).toBe(0)
    const m = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as {
      gzip: number
      onDemandGzip: number
      inputs: Record<string, number>
    }
    expect(m.gzip).toBeLessThanOrEqual(55 * 1024)
    // The tables (over 1.5 MB gzipped) are split off, reached by loadEncoding only.
    expect(m.onDemandGzip).toBeGreaterThan(1024 * 1024)
    expect(Object.keys(m.inputs).filter((p) => p !== 'context-window' && p !== 'zod')).toEqual([])
  })
})

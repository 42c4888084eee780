/**
 * Cold start, side by side in one run: each system in `SYSTEMS` runs bench/cold-start.mjs in
 * five fresh Node processes, interleaved (one of each, five times over) so that a burst of
 * load on a shared machine touches them alike; the median of each is reported.
 * Standalone: `node --import tsx bench/cold-start-runs.ts` (after `npm run build`).
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const SYSTEMS = ['estimate', 'exact', 'ai-sdk', 'langchain'] as const
export type System = (typeof SYSTEMS)[number]

export interface ColdStart {
  system: System
  /** Milliseconds from process start to the end of the fit, median of the runs. */
  medianMs: number
  /** The same for the import alone (process start to the import done). */
  importMedianMs: number
  runs: number[]
  kept: number
}

const script = fileURLToPath(new URL('./cold-start.mjs', import.meta.url))

function once(system: System): { importMs: number; totalMs: number; kept: number } {
  const out = execFileSync(process.execPath, [script, system], {
    encoding: 'utf8',
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  })
  return JSON.parse(out.trim().split('\n').at(-1) ?? '')
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

export function coldStarts(runs = 5): ColdStart[] {
  const samples = new Map<System, { importMs: number; totalMs: number; kept: number }[]>(
    SYSTEMS.map((s) => [s, []]),
  )
  for (let k = 0; k < runs; k++) for (const s of SYSTEMS) samples.get(s)?.push(once(s))
  return SYSTEMS.map((system) => {
    const xs = samples.get(system) ?? []
    return {
      system,
      medianMs: median(xs.map((x) => x.totalMs)),
      importMedianMs: median(xs.map((x) => x.importMs)),
      runs: xs.map((x) => x.totalMs),
      kept: xs[0]?.kept ?? 0,
    }
  })
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  console.log(JSON.stringify(coldStarts(Number(process.argv[2] ?? 5))))

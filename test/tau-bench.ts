import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** τ-bench airline trajectories (sierra-research/tau-bench, MIT): real OpenAI chat histories. */
export const TAU_BENCH_PATH = fileURLToPath(
  new URL('../../shared/data/tau-bench/gpt-4o-airline.json', import.meta.url),
)

export interface TauRecord {
  task_id: number
  traj: Record<string, unknown>[]
}

let cached: TauRecord[] | undefined
export function tauBench(): TauRecord[] {
  cached ??= JSON.parse(readFileSync(TAU_BENCH_PATH, 'utf8')) as TauRecord[]
  return cached
}

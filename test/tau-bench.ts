import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'

/** τ-bench airline trajectories (sierra-research/tau-bench, MIT): real OpenAI chat histories, kept in the repository. */
export const TAU_BENCH_PATH = fileURLToPath(
  new URL('./data/tau-bench/gpt-4o-airline.json.gz', import.meta.url),
)

export interface TauRecord {
  task_id: number
  traj: Record<string, unknown>[]
}

let cached: TauRecord[] | undefined
export function tauBench(): TauRecord[] {
  cached ??= JSON.parse(gunzipSync(readFileSync(TAU_BENCH_PATH)).toString('utf8')) as TauRecord[]
  return cached
}

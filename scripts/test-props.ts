// npm run test:props -- --runs N [--seed S]: the property tests with more cases.
import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { runs: { type: 'string' }, seed: { type: 'string' } } })
const runs = values.runs ?? '1000'
if (!/^\d+$/.test(runs)) {
  process.stderr.write('test:props: --runs takes a whole number\n')
  process.exit(2)
}
const r = spawnSync('npx', ['vitest', 'run', 'test/properties'], {
  stdio: 'inherit',
  env: { ...process.env, PROPS_RUNS: runs, ...(values.seed && { PROPS_SEED: values.seed }) },
})
process.exit(r.status ?? 1)

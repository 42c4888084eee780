// Cold start of two builds of this package, side by side: each round runs one fresh Node
// process per build and system (estimate, exact), interleaved so that load on a shared machine
// touches both alike. A process imports the build's Node entry (dist/node/index.js, what
// `context-window` resolves to under Node) and fits the bundled example to 3,000 tokens once,
// as bench/cold-start.mjs does; it reports the wall time and the process's CPU time of the
// import and of the fit (CPU time moves less with other jobs' load than wall time does).
// Prints the medians and minimums of each, one line per build and system.
//   node bench/cold-start-compare.mjs <build dir> <other build dir> [rounds = 15]
// (each dir a checkout after `npm run build`; e.g. the main branch's and this one's)
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

if (process.argv[2] === '--once') {
  const [dir, which] = process.argv.slice(3)
  const example = JSON.parse(readFileSync(`${dir}/examples/airline-booking.json`, 'utf8')).messages
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  const { fit, fromOpenAIChat } = await import(pathToFileURL(`${dir}/dist/node/index.js`).href)
  const t1 = performance.now()
  const c1 = process.cpuUsage()
  const model = which === 'exact' ? 'gpt-4o' : 'claude-sonnet-4-5'
  const kept = fit(fromOpenAIChat(example), { model, budget: 3000 }).messages.length
  const t2 = performance.now()
  const c2 = process.cpuUsage()
  const cpu = (a, b) => (b.user + b.system - a.user - a.system) / 1000
  console.log(
    JSON.stringify({
      importMs: t1 - t0,
      fitMs: t2 - t1,
      importCpuMs: cpu(c0, c1),
      fitCpuMs: cpu(c1, c2),
      kept,
    }),
  )
} else {
  const dirs = process.argv.slice(2, 4).map((d) => resolve(d))
  const rounds = Number(process.argv[4] ?? 15)
  if (dirs.length !== 2 || !(rounds > 0)) {
    console.error('usage: node bench/cold-start-compare.mjs <build dir> <other build dir> [rounds]')
    process.exit(2)
  }
  const script = fileURLToPath(import.meta.url)
  const samples = new Map()
  for (let k = 0; k < rounds; k++)
    for (const which of ['estimate', 'exact'])
      for (const dir of dirs) {
        const out = execFileSync(process.execPath, [script, '--once', dir, which], {
          encoding: 'utf8',
        })
        const key = `${dir} ${which}`
        samples.set(key, [...(samples.get(key) ?? []), JSON.parse(out.trim().split('\n').at(-1))])
      }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const ms = (n) => `${n.toFixed(1)} ms`
  for (const [key, xs] of samples) {
    const line = ['importMs', 'fitMs', 'importCpuMs', 'fitCpuMs']
      .map(
        (f) =>
          `${f} ${ms(median(xs.map((x) => x[f])))} (min ${ms(Math.min(...xs.map((x) => x[f])))})`,
      )
      .join(', ')
    console.log(`${key}: ${line}; kept ${xs[0].kept}`)
  }
}

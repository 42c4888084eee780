// Test setup: with PROPS_TIME_LIMIT=<seconds>, each property stops taking new cases after
// that long and prints how many it ran, so a long run can be sized to the time at hand. A
// property that ran K cases at seed S ran the same K cases as `PROPS_RUNS=K PROPS_SEED=S`
// (fast-check draws case i from the seed and i alone). Unset, properties run PROPS_RUNS cases.
import fc from 'fast-check'

const seconds = Number(process.env.PROPS_TIME_LIMIT ?? 0)
if (seconds > 0)
  fc.configureGlobal({
    interruptAfterTimeLimit: seconds * 1000,
    markInterruptAsFailure: false,
    reporter: (out) => {
      const stop = out.interrupted ? `, stopped at ${seconds} s` : ''
      const failed = out.failed ? ', failed' : ''
      console.log(`property: ${out.numRuns} cases, seed ${out.seed}${stop}${failed}`)
      if (out.failed) throw new Error(fc.defaultReportMessage(out))
    },
  })

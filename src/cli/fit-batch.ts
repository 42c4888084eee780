/** The batch form of `fit`: a folder of conversations in, a folder of fitted ones out. */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { type FitResult, fit, fitAsync } from '../context/fit.js'
import { fitOptions } from './fit-options.js'
import { formatOption, type Output, type Values } from './flags.js'
import { type Input, readInput, UsageError, writeAtomic } from './io.js'

/** `fit DIR --out-dir OUT`: every JSON conversation in a folder; one bad file does not stop the rest. */
export function fitBatch(dir: string, values: Values, io: Output): number | Promise<number> {
  const outDir = values['out-dir']
  if (typeof outDir !== 'string')
    throw new UsageError(`fit: ${dir} is a folder: give --out-dir OUT`)
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
  // Only regular files (or links to one) are read: a pipe or a device named *.json would
  // block the read forever, and a folder cannot be read; each is reported and skipped.
  const files = names.filter((f) => statSync(join(dir, f), { throwIfNoEntry: false })?.isFile())
  const skipped = names.filter((f) => !files.includes(f))
  makeOutDir(outDir)
  for (const name of skipped) io.err(`context-window: ${name}: not a regular file, skipped`)
  let done = 0
  let failed = skipped.length
  let saved = 0
  const progress = (last: boolean) => {
    // --quiet: the summary line only.
    if (values.quiet) return
    const line = `[${done + failed}/${names.length}] ${done} fitted, ${failed} failed, ${saved} tokens saved`
    if (io.errTTY) io.errRaw?.(`\r${line}${last ? '\n' : ''}`)
    else io.err(line)
  }
  const fitted = (name: string, input: Input, result: FitResult) => {
    writeAtomic(join(outDir, name), `${JSON.stringify(input.encode(result.messages), null, 2)}\n`)
    saved += result.fates.reduce((n, f) => n + f.tokens, 0) - result.tokens.messages
    done++
  }
  const failedOne = (name: string, e: unknown) => {
    failed++
    if (io.errTTY) io.errRaw?.('\n')
    io.err(`context-window: ${name}: ${e instanceof Error ? e.message : String(e)}`)
  }
  const summary = () => {
    io.out(
      `fitted ${done} of ${names.length} files into ${outDir}${failed ? `; ${failed} failed` : ''}; ${saved} tokens saved`,
    )
    return failed ? 1 : 0
  }
  // A summarizing strategy may call a server: the asynchronous path, one file after another.
  if (values.strategy === 'summarizing') {
    return (async () => {
      for (const name of files) {
        try {
          const input = readInput(join(dir, name), formatOption(values))
          fitted(name, input, await fitAsync(input.messages, fitOptions(values, input, io)))
        } catch (e) {
          failedOne(name, e)
        }
        progress(done + failed === files.length)
      }
      return summary()
    })()
  }
  for (const name of files) {
    try {
      const input = readInput(join(dir, name), formatOption(values))
      fitted(name, input, fit(input.messages, fitOptions(values, input, io)))
    } catch (e) {
      failedOne(name, e)
    }
    progress(done + failed === files.length)
  }
  return summary()
}

/** The folder `--out-dir` names, made when missing; anything else there is a usage error. */
function makeOutDir(outDir: string): void {
  if (existsSync(outDir) && !statSync(outDir).isDirectory())
    throw new UsageError(`option --out-dir: ${outDir} exists and is not a folder`)
  try {
    mkdirSync(outDir, { recursive: true })
  } catch (e) {
    throw new UsageError(
      `option --out-dir: cannot make ${outDir} (${(e as NodeJS.ErrnoException)?.code ?? String(e)})`,
    )
  }
}

#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import '../tokens/node-encodings.js'
import { ContextWindowError, UnknownModelError } from '../errors.js'
import { redactCredentials } from '../messages/credentials.js'
import { closest } from '../options-check.js'
import { count, validateCommand } from './commands.js'
import { fitCommand } from './fit-command.js'
import { commandFlags, flagNamed, PARSER_OPTIONS, takesValue } from './flag-table.js'
import type { Output, Values } from './flags.js'
import { HELP } from './help.js'
import { UsageError } from './io.js'
import { useColor } from './render.js'

export { HELP } from './help.js'

/**
 * The command line checked in the tool's own words before Node's parser sees it: an
 * unknown flag named with the nearest known one, a flag of another command refused, a
 * missing value named, and a negative number kept as the value it is (`--budget -5`), for
 * the option's own range check to refuse.
 */
function checkedArgs(command: string, args: readonly string[]): string[] {
  const allowed = commandFlags(command)
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === '--') {
      out.push(...args.slice(i))
      break
    }
    if (arg === '-' || !arg.startsWith('-')) {
      out.push(arg)
      continue
    }
    const long = arg.startsWith('--')
    const name = long ? arg.slice(2).replace(/=[\s\S]*$/, '') : arg.slice(1)
    const option = flagNamed(name, !long)
    const shown = long ? `--${name}` : arg
    if (!option) {
      const near = closest(name, allowed)
      throw new UsageError(
        `${command}: unknown option ${shown}${near ? `; did you mean --${near}?` : ''} (see ${command} --help)`,
      )
    }
    if (!allowed.includes(option))
      // The tool's own words naming the flag go first, as written: the filter reads only the rest.
      throw new UsageError(
        `is not an option of ${command} (see ${command} --help)`,
        undefined,
        `${command}: --${option} `,
      )
    const valued = takesValue(option)
    const inline = long && arg.includes('=')
    if (!valued && inline)
      throw new UsageError('takes no value', undefined, `${command}: option --${option} `)
    if (valued && !inline) {
      const value = args[i + 1]
      if (value === undefined || (value.startsWith('--') && value !== '--'))
        throw new UsageError('needs a value', undefined, `${command}: option --${option} `)
      // `--budget -5`: the value, for the range check to name.
      out.push(`--${option}=${value}`)
      i++
      continue
    }
    out.push(arg)
  }
  return mergedPins(out)
}

/** `--pin 1 --pin 4` as `--pin=1,4`: the one flag that may be given more than once. */
function mergedPins(args: string[]): string[] {
  const end = args.indexOf('--')
  const head = end < 0 ? args : args.slice(0, end)
  const pins = head.filter((a) => a.startsWith('--pin='))
  if (pins.length < 2) return args
  const rest = args.filter((a, k) => (end >= 0 && k >= end) || !a.startsWith('--pin='))
  return [`--pin=${pins.map((a) => a.slice(6)).join(',')}`, ...rest]
}

const COMMANDS: Record<string, (p: string[], v: Values, io: Output) => number | Promise<number>> = {
  fit: fitCommand,
  count,
  validate: validateCommand,
}

/** Runs the command line; returns the exit code. Never throws for bad input. */
export function main(argv: string[], io: Output): number | Promise<number> {
  const [command, ...rest] = argv
  if (command === '--version' || command === '-V' || command === 'version') {
    io.out(version())
    return 0
  }
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.out(HELP.main as string)
    return command ? 0 : 2
  }
  const run = COMMANDS[command]
  if (!run) {
    io.err(`context-window: unknown command ${JSON.stringify(command)} (fit, count, validate)`)
    return 2
  }
  try {
    let parsed: ReturnType<
      typeof parseArgs<{ options: typeof PARSER_OPTIONS; allowPositionals: true }>
    >
    try {
      parsed = parseArgs({
        args: checkedArgs(command, rest),
        options: PARSER_OPTIONS,
        allowPositionals: true,
        strict: true,
      })
    } catch (e) {
      if (e instanceof UsageError) throw e
      throw new UsageError(`${command}: ${(e as Error).message.split('\n')[0]}`)
    }
    if (parsed.values.help) {
      io.out(HELP[command] as string)
      return 0
    }
    const code = run(parsed.positionals, parsed.values, io)
    return code instanceof Promise ? code.catch((e) => failure(e, io)) : code
  } catch (e) {
    return failure(e, io)
  }
}

/** The installed package's version (package.json sits two folders up from dist/cli and src/cli). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
  return String(pkg.version)
}

/** One line, whatever the error's message holds (a schema's report may span several). */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}

/** A model id as an error may show it: no credential, never a whole pasted value. */
function shownModel(id: string): string {
  const shown = redactCredentials(id)
  return shown.length > 80 ? `${shown.slice(0, 80)}…` : shown
}

function failure(e: unknown, io: Output): number {
  if (e instanceof UnknownModelError) {
    // The library's advice is a call; on the command line it is a flag.
    io.err(
      `context-window: unknown model ${JSON.stringify(shownModel(e.model))}: give its context window with --window N (and its output limit with --max-output N), or fit to --budget N`,
    )
    return 2
  }
  if (e instanceof ContextWindowError) {
    io.err(`context-window: ${oneLine(e.message)}`)
    return 2
  }
  io.err(
    `context-window: internal error: ${oneLine(redactCredentials(String((e as Error)?.message ?? e)))}`,
  )
  return 70
}

function isEntry(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isEntry()) {
  // A reader that stops early (`| head`) closes the pipe: that ends the command, quietly.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0)
      throw e
    })
  }
  const io: Output = {
    out: (t) => process.stdout.write(`${t}\n`),
    err: (t) => process.stderr.write(`${t}\n`),
    errRaw: (t) => process.stderr.write(t),
    errTTY: Boolean(process.stderr.isTTY) && !process.env.NO_COLOR,
    color: useColor(),
  }
  Promise.resolve(main(process.argv.slice(2), io)).then((code) => {
    process.exitCode = code
  })
}

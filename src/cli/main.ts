#!/usr/bin/env node
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { ContextWindowError } from '../errors.js'
import { count, fitCommand, type Output, type Values, validateCommand } from './commands.js'
import { UsageError } from './io.js'
import { useColor } from './render.js'

export const HELP: Record<string, string> = {
  main: `context-window: decide what part of a conversation goes into the model's context window.

Usage: context-window <command> FILE|- [options]

Commands:
  fit       fit a conversation to a token budget (the main job)
  count     tokens per message and in total
  validate  check a conversation against a provider's rules

Input: a conversation as JSON in any of these formats, detected (or --format F):
openai-chat, openai-responses, anthropic, gemini, ai-sdk, autogen, langchain. Output
keeps the input's format.
Run "context-window <command> --help" for a command's options and examples.`,
  fit: `Usage: context-window fit FILE|- [options]

Options:
  --budget N          tokens the request may use
  --model M           model id: its window is the budget when --budget is not given
  --reserve N         tokens kept free for the reply
  --strategy S        tokenLimited (default), buffered, headAndTail, userTurns, unbounded
  --size N            buffered: messages to keep
  --head N --tail N   headAndTail: oldest and newest messages to keep
  --turns N           userTurns: user turns to keep
  --drop-from WHERE   tokenLimited: oldest (default) or middle
  --query TEXT        what the next call is about (relevance strategies)
  --provider P        openai, anthropic, openai-responses or gemini: whose rules the output
                      passes (default: the input's own provider, else openai)
  --format F          auto (default), openai-chat, openai-responses, anthropic, gemini,
                      ai-sdk, autogen, langchain
  --out FILE          write the fitted conversation, in the input's shape
  --report FILE       write a self-contained HTML report of what was kept and why
  --clear-tool-results N       replace the results of all but the newest N tool exchanges
  --max-tokens-per-message N   cut any longer message to N tokens, with a marker
  --strategy summarizing       summarize old history (options below)
    --summarizer S             extractive (default, offline) or openai (any compatible server)
    --base-url URL --summary-model M --api-key-env VAR   for --summarizer openai
    --trigger X                a fraction of the budget (0.8) or a token count
    --leave-last N             the newest N units are never summarized (default 2)
  --json              print the full result as JSON

  FILE may be a folder: every *.json in it is fitted into --out-dir OUT, with progress
  on standard error; a bad file is reported and skipped (exit 1 when any failed).

Exit codes: 0 fitted, 1 some files of a folder failed, 2 bad input or options,
3 even the system prompt and newest turn do not fit.

Examples:
  context-window fit examples/airline-booking.json --budget 3000
  context-window fit examples/airline-booking.json --model gpt-4o-mini --reserve 1000 --out fitted.json
  context-window fit examples/airline-booking.json --strategy buffered --size 6 --json
  context-window fit examples/airline-booking.json --budget 3000 --report report.html
  context-window fit examples --budget 3000 --out-dir fitted
  context-window fit examples/airline-booking.json --budget 3000 --strategy summarizing --trigger 0.5
  context-window fit examples/airline-booking.json --budget 3000 --clear-tool-results 2`,
  count: `Usage: context-window count FILE|- [--model M] [--json]

Examples:
  context-window count examples/airline-booking.json
  context-window count examples/airline-booking.json --model claude-sonnet-4-5`,
  validate: `Usage: context-window validate FILE|- [--provider openai|anthropic|openai-responses|gemini] [--json]

Exit codes: 0 valid, 1 a rule is broken, 2 bad input.

Examples:
  context-window validate examples/airline-booking.json
  context-window validate examples/airline-booking.json --provider anthropic`,
}

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  model: { type: 'string' },
  budget: { type: 'string' },
  reserve: { type: 'string' },
  strategy: { type: 'string' },
  size: { type: 'string' },
  head: { type: 'string' },
  tail: { type: 'string' },
  turns: { type: 'string' },
  'drop-from': { type: 'string' },
  query: { type: 'string' },
  provider: { type: 'string' },
  out: { type: 'string' },
  format: { type: 'string' },
  report: { type: 'string' },
  'out-dir': { type: 'string' },
  'clear-tool-results': { type: 'string' },
  'max-tokens-per-message': { type: 'string' },
  summarizer: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  'summary-model': { type: 'string' },
  trigger: { type: 'string' },
  'leave-last': { type: 'string' },
} as const

const COMMANDS: Record<string, (p: string[], v: Values, io: Output) => number | Promise<number>> = {
  fit: fitCommand,
  count,
  validate: validateCommand,
}

/** Runs the command line; returns the exit code. Never throws for bad input. */
export function main(argv: string[], io: Output): number | Promise<number> {
  const [command, ...rest] = argv
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
    let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>
    try {
      parsed = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true })
    } catch (e) {
      throw new UsageError(`${command}: ${(e as Error).message.split('\n')[0]}`)
    }
    if (parsed.values.help) {
      io.out(HELP[command] as string)
      return 0
    }
    const code = run(parsed.positionals, parsed.values as Values, io)
    return code instanceof Promise ? code.catch((e) => failure(e, io)) : code
  } catch (e) {
    return failure(e, io)
  }
}

function failure(e: unknown, io: Output): number {
  if (e instanceof ContextWindowError) {
    io.err(`context-window: ${e.message}`)
    return 2
  }
  io.err(`context-window: internal error: ${(e as Error).message}`)
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

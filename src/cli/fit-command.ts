/** `fit`: one file or a folder of them, written out, with the account of every message. */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { type FitOptions, type FitResult, fit, fitAsync } from '../context/fit.js'
import { ContextOverflowError, InvalidOptionError, UnknownModelError } from '../errors.js'
import type { Message } from '../messages/message.js'
import { withContextManagement } from '../native/context-management.js'
import { isJson } from '../providers/codec-kit.js'
import { type ReportSettings, renderReport } from '../report/html.js'
import { exactCounter } from '../tokens/counters.js'
import { fitBatch } from './fit-batch.js'
import { fitOptions, nativePlan } from './fit-options.js'
import { file, formatOption, type Output, type Values } from './flags.js'
import { type Input, readInput, UsageError, writeAtomic } from './io.js'
import { type Colour, paint, preview, roleLabel, splitBar, table } from './render.js'

const FATE_COLOUR: Record<string, Colour> = {
  kept: 'green',
  changed: 'yellow',
  dropped: 'dim',
  summarized: 'magenta',
  invalid: 'red',
}

/** Standard output carries one thing: the fitted JSON, the report, or the result. */
function stdoutOnce(values: Values): void {
  const claims = [
    values.out === '-' && '--out -',
    values.report === '-' && '--report -',
    values.json === true && '--json',
  ].filter(Boolean)
  if (claims.length > 1)
    throw new UsageError(`fit: ${claims.join(' and ')} both write to standard output`)
  if (values['out-dir'] === '-')
    throw new UsageError('fit: --out-dir takes a folder (standard output holds one file)')
  const { out, report } = values
  if (typeof out === 'string' && typeof report === 'string' && out !== '-' && sameFile(out, report))
    throw new UsageError(`fit: --out and --report both name ${report}: give each its own file`)
}

/** Whether two paths name one file: the same path once resolved, links followed where they exist. */
function sameFile(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p)
    } catch {
      // Not there yet: its folder's real path and its name.
      try {
        return join(realpathSync(dirname(resolve(p))), basename(p))
      } catch {
        return resolve(p)
      }
    }
  }
  return real(a) === real(b)
}

/** `fit`: the main job. */
export function fitCommand(
  positionals: string[],
  values: Values,
  io: Output,
): number | Promise<number> {
  const path = file(positionals, 'fit', values)
  stdoutOnce(values)
  if (path !== '-' && existsSync(path) && statSync(path).isDirectory())
    return fitBatch(path, values, io)
  if (values['out-dir'] !== undefined)
    throw new UsageError(
      `option --out-dir applies to a folder of files; ${path} is one file: use --out`,
    )
  const input = readInput(path, formatOption(values))
  const options = fitOptions(values, input, io)
  const failed = (e: unknown): number => {
    if (e instanceof ContextOverflowError) {
      io.err(`context-window: ${input.source}: ${e.message}`)
      return 3
    }
    if (e instanceof UnknownModelError) throw e
    if (e instanceof InvalidOptionError) throw new UsageError(e.message)
    throw e
  }
  // A summarizing strategy may call a server: the one asynchronous path.
  if (options.strategy === 'summarizing') {
    return fitAsync(input.messages, options).then(
      (r) => finishFit(input, options, r, values, io),
      failed,
    )
  }
  let result: ReturnType<typeof fit>
  try {
    result = fit(input.messages, options)
  } catch (e) {
    return failed(e)
  }
  return finishFit(input, options, result, values, io)
}

function finishFit(
  input: Input,
  options: FitOptions,
  raw: FitResult,
  values: Values,
  io: Output,
): number {
  let result = raw
  const plan = nativePlan(values)
  if (plan) {
    const path = values['provider-response']
    let response: unknown
    if (typeof path === 'string') {
      try {
        response = JSON.parse(readFileSync(path, 'utf8'))
      } catch (e) {
        throw new UsageError(`option --provider-response: ${path}: ${(e as Error).message}`)
      }
    }
    try {
      result = withContextManagement(result, plan, response)
    } catch (e) {
      throw new UsageError(`option --provider-response: ${path}: ${(e as Error).message}`)
    }
  }
  const fitted = () => JSON.stringify(input.encode(result.messages), null, 2)
  // `-` is standard output: the data goes there, and the summary to standard error.
  const toStdout = values.out === '-' || values.report === '-'
  if (typeof values.out === 'string') {
    if (values.out === '-') io.out(fitted())
    else writeAtomic(values.out, `${fitted()}\n`)
  }
  if (typeof values.report === 'string') {
    const settings: ReportSettings = {
      source: input.source,
      strategy: result.strategy,
      budget: result.budget,
      ...(typeof options.model === 'string' && { model: options.model }),
      ...(typeof options.query === 'string' && { query: options.query }),
      options: Object.fromEntries(
        Object.entries(options)
          .filter(([k]) => !['strategy', 'budget', 'model', 'query'].includes(k))
          // A report is a file people share: the summarizer's API key never goes in it.
          .map(([k, v]) => [k, k === 'summarizer' ? withoutKey(v) : v]),
      ),
    }
    const html = renderReport(input.messages, result, settings)
    if (values.report === '-') io.out(html)
    else writeAtomic(values.report, html)
  }
  if (values.json) {
    // --quiet: the summary's fields, without a list per message.
    const summary = values.quiet
      ? {
          strategy: result.strategy,
          budget: result.budget,
          tokens: result.tokens,
          kept: result.kept.length,
          dropped: result.dropped.length,
          inserted: result.inserted.length,
          changed: result.changed.length,
          ...(result.notes && { notes: result.notes }),
        }
      : result
    io.out(JSON.stringify({ source: input.source, ...summary }, null, 2))
    return 0
  }
  const rows = [['#', 'role', 'tokens', 'fate', 'text']]
  // A message the fit wrote (the ledger, a placeholder, a summary) is listed where it is
  // sent: right after the message sent just before it.
  const insertedAt = new Map(result.inserted.map((ins) => [ins.position, ins]))
  const listed = new Set<number>()
  const insertedAfter = (position: number) => {
    for (let p = position + 1, ins = insertedAt.get(p); ins; ins = insertedAt.get(++p)) {
      listed.add(p)
      rows.push([
        '+',
        roleLabel(ins.message, io.color),
        String(counterTokens(result, ins.position)),
        paint(
          `inserted ${ins.reason} for ${ins.replaces.length}${spanOf(ins.replaces)}`,
          'magenta',
          io.color,
        ),
        preview(ins.message, 50),
      ])
    }
  }
  insertedAfter(-1)
  input.messages.forEach((m: Message, i) => {
    const f = result.fates[i]
    if (!f) return
    const label = f.reason && f.fate !== 'kept' ? `${f.fate} (${f.reason})` : f.fate
    rows.push([
      String(i),
      roleLabel(m, io.color),
      String(f.tokens),
      paint(label, FATE_COLOUR[f.fate] ?? 'dim', io.color),
      preview(m, 50),
    ])
    if (f.position !== undefined) insertedAfter(f.position)
  })
  // Any not placed above (none, when every position is accounted for) close the list.
  for (const p of [...insertedAt.keys()].sort((a, b) => a - b))
    if (!listed.has(p)) insertedAfter(p - 1)
  // With standard output taken by the data, only the summary line goes to standard error.
  const say = toStdout ? io.err : io.out
  if (!toStdout && !values.quiet) say(table(rows, new Set([0, 2])))
  const { tokens } = result
  let system = 0
  for (const f of result.fates)
    if (f.position !== undefined && result.messages[f.position]?.role === 'system')
      system += f.tokens
  const parts = [
    { n: system, ch: 'S' },
    { n: tokens.total - system, ch: '#' },
    { n: tokens.reserve, ch: 'r' },
  ]
  const of =
    result.budget === null
      ? 'no budget'
      : `of ${result.budget} ${splitBar(parts, result.budget, 30)} (S system, # messages and tools, r reserve, . free)`
  say(
    `${toStdout || values.quiet ? '' : '\n'}${result.strategy}: kept ${result.kept.length}, dropped ${result.dropped.length}` +
      (result.inserted.length ? `, inserted ${result.inserted.length}` : '') +
      (result.changed.length ? `, changed ${result.changed.length}` : '') +
      `; ${tokens.total} tokens sent${tokens.tools ? ` (${tokens.tools} of them tools)` : ''}${tokens.reserve ? ` + ${tokens.reserve} reserved` : ''} ${of}` +
      (typeof values.out === 'string' && values.out !== '-' ? `; written to ${values.out}` : ''),
  )
  for (const note of result.notes ?? []) say(`note: ${note}`)
  for (const ins of result.inserted) {
    const f = ins.facts
    if (!f) continue
    const shown = f.reinserted.slice(0, 12).map((x) => x.value)
    say(
      `facts of summary #${ins.position}: ${f.kept + f.reinserted.length} of ${f.total} sent (${(100 * f.rate).toFixed(1)}%), ${f.reinserted.length} re-inserted${shown.length ? `: ${shown.join(', ')}${f.reinserted.length > shown.length ? `, … (${f.reinserted.length - shown.length} more)` : ''}` : ''}${f.lost.length ? `; ${f.lost.length} lost for want of room` : ''}`,
    )
  }
  const cm = result.contextManagement
  if (cm) {
    const runs = Object.entries(cm.where)
      .map(([k, v]) => `${k} by the ${v}`)
      .join(', ')
    say(`\n${cm.target}: ${runs || 'nothing to run'}`)
    if (Object.keys(cm.request).length) say(`request fields: ${JSON.stringify(cm.request)}`)
    for (const [k, v] of Object.entries(cm.headers)) say(`header ${k}: ${v}`)
    for (const e of cm.provider?.applied ?? [])
      say(
        `provider applied ${e.type}: ${[
          e.clearedToolUses !== undefined && `${e.clearedToolUses} tool uses`,
          e.clearedThinkingTurns !== undefined && `${e.clearedThinkingTurns} thinking turns`,
          e.clearedInputTokens !== undefined && `${e.clearedInputTokens} tokens`,
        ]
          .filter(Boolean)
          .join(', ')} cleared`,
      )
    for (const c of cm.provider?.compactions ?? [])
      say(
        `provider compacted${c.id ? ` (${c.id})` : ''}: ${c.summary ?? (c.encrypted ? 'encrypted' : 'no summary')}`,
      )
  }
  return 0
}

function withoutKey(spec: unknown): unknown {
  if (!isJson(spec)) return spec
  const { apiKey: _key, ...rest } = spec
  return rest
}

function counterTokens(result: ReturnType<typeof fit>, position: number): number {
  const m = result.messages[position]
  return m ? exactCounter().countMessage(m) : 0
}

/** ` (messages 3 to 9)` when the indices run without a gap, else nothing: the numbers `kept` and `fates` use. */
function spanOf(indices: readonly number[]): string {
  const first = indices[0]
  const last = indices[indices.length - 1]
  if (first === undefined || last === undefined || last - first + 1 !== indices.length) return ''
  return ` (messages ${first} to ${last})`
}

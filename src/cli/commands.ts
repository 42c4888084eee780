/** `count` and `validate`. */
import { providerApi } from '../providers/index.js'
import { toolSchemas } from '../providers/tool-shapes.js'
import { validate } from '../providers/validate.js'
import { counterFor, exactCounter } from '../tokens/counters.js'
import {
  file,
  formatOption,
  modelChoice,
  type Output,
  providerOf,
  providerOption,
  toolsOption,
  type Values,
} from './flags.js'
import { readInput } from './io.js'
import { bar, paint, preview, roleLabel, table } from './render.js'

/** `count`: tokens per message, the total, and the model's window. */
export function count(positionals: string[], values: Values, io: Output): number {
  const input = readInput(file(positionals, 'count', values), formatOption(values))
  const chosen = modelChoice(values, providerOf(input.format))
  // A Gemini file with no model is counted by Gemini's estimate, as fit counts it.
  const counter =
    chosen.counter ??
    (chosen.model
      ? counterFor(chosen.model)
      : (providerApi(providerOf(input.format))?.counter() ?? exactCounter()))
  const tokens = input.messages.map((m) => counter.countMessage(m))
  const tools = toolsOption(values)
  const toolTokens = tools ? counter.countTools(toolSchemas(tools)) : 0
  // As countMessages counts it, from the counts above: each message is counted once.
  const total = tokens.reduce((n, t) => n + t, counter.replyPriming + toolTokens)
  if (values.json) {
    io.out(
      JSON.stringify(
        {
          source: input.source,
          counter: counter.name,
          exact: counter.exact,
          // --quiet: the totals only.
          ...(!values.quiet && {
            messages: tokens.map((t, i) => ({
              index: i,
              role: input.messages[i]?.role,
              tokens: t,
            })),
          }),
          ...(tools && { tools: { count: tools.length, tokens: toolTokens } }),
          total,
          contextWindow: chosen.contextWindow ?? null,
        },
        null,
        2,
      ),
    )
    return 0
  }
  // --quiet: the total only, for files too long to list.
  if (!values.quiet) {
    const rows = [['#', 'role', 'tokens', 'text']]
    input.messages.forEach((m, i) => {
      rows.push([String(i), roleLabel(m, io.color), String(tokens[i]), preview(m)])
    })
    if (tools)
      rows.push([
        '',
        'tools',
        String(toolTokens),
        `${tools.length} definitions from ${values.tools}`,
      ])
    io.out(table(rows, new Set([0, 2])))
  }
  const window =
    chosen.contextWindow !== undefined
      ? ` of ${chosen.contextWindow} (${values.model}) ${bar(total, chosen.contextWindow, 30)}`
      : ''
  const withTools = tools ? ` and ${tools.length} tool definitions` : ''
  io.out(
    `${values.quiet ? '' : '\n'}${total} tokens in ${input.messages.length} messages${withTools}${window}, counted by ${counter.name}${counter.exact ? '' : ' (estimate)'}`,
  )
  return 0
}

/** `validate`: the provider's rules; exit 1 when a rule is broken. */
export function validateCommand(positionals: string[], values: Values, io: Output): number {
  const input = readInput(file(positionals, 'validate', values), formatOption(values))
  const provider = providerOption(values) ?? providerOf(input.format)
  const checked = validate(input.messages, { provider })
  const { errors, warnings, valid } = checked
  if (values.json) {
    // --quiet: the counts only.
    const lists = values.quiet
      ? { errors: errors.length, warnings: warnings.length }
      : { errors, warnings }
    io.out(JSON.stringify({ source: input.source, provider, valid, ...lists }, null, 2))
  } else {
    // --quiet: the count line only.
    for (const p of values.quiet ? [] : checked) {
      const tag = paint(p.severity, p.severity === 'error' ? 'red' : 'yellow', io.color)
      io.out(`${input.source}: message ${p.index}: ${tag} ${p.code}: ${p.message}`)
    }
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`
    io.out(
      valid
        ? `${input.source}: ${input.messages.length} messages, valid for ${provider}${warnings.length ? ` (${count(warnings.length, 'warning')}: changes ${provider} makes, not refusals)` : ''}`
        : `${input.source}: not valid for ${provider}: ${count(errors.length, 'error')}, ${count(warnings.length, 'warning')}`,
    )
  }
  return valid ? 0 : 1
}

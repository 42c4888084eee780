import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { main } from './main.js'

const EXAMPLE = fileURLToPath(new URL('../../examples/airline-booking.json', import.meta.url))

async function run(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), color: false })
  return { code, out, err }
}

const dir = mkdtempSync(join(tmpdir(), 'cw-cli-errors-'))
function temp(name: string, text: string): string {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

/**
 * Every misuse a new user met: exit 2, one line on standard error in the tool's own words
 * (`context-window: …`), naming the flag or the file at fault, and nothing on standard output.
 */
describe('one voice for misuse: exit 2 and one line naming the flag', () => {
  const files = {
    emptyList: temp('empty-list.json', '[]'),
    emptyObject: temp('empty-object.json', '{"messages":[]}'),
    emptyFile: temp('empty.json', ''),
    blankFile: temp('blank.json', ' \n\t\n'),
    noContentUser: temp('no-content-user.json', '[{"role":"user"}]'),
    nullContentSystem: temp(
      'null-system.json',
      '[{"role":"system","content":null},{"role":"user","content":"hi"}]',
    ),
    nothingAssistant: temp(
      'nothing-assistant.json',
      '[{"role":"user","content":"hi"},{"role":"assistant","content":null}]',
    ),
    requestEmpty: temp('request-empty.json', '{"model":"gpt-4o","messages":[]}'),
  }
  const table: [string[], RegExp][] = [
    // Misspelt and unknown flags: the nearest known one.
    [['fit', EXAMPLE, '--budgte', '3000'], /unknown option --budgte; did you mean --budget\?/],
    [
      ['fit', EXAMPLE, '--stratgy', 'buffered'],
      /unknown option --stratgy; did you mean --strategy\?/,
    ],
    [['count', EXAMPLE, '--modle', 'gpt-4o'], /unknown option --modle; did you mean --model\?/],
    [['fit', EXAMPLE, '-x'], /unknown option -x/],
    // A negative or missing value.
    [['fit', EXAMPLE, '--budget', '-5'], /option --budget: expected a whole number >= 1, got "-5"/],
    [['fit', EXAMPLE, '--budget'], /option --budget needs a value/],
    [['fit', EXAMPLE, '--budget', '--json'], /option --budget needs a value/],
    [['fit', EXAMPLE, '--json=yes', '--budget', '9'], /option --json takes no value/],
    // Required strategy flags, named as flags.
    [['fit', EXAMPLE, '--strategy', 'buffered'], /--strategy buffered needs --size N/],
    [
      ['fit', EXAMPLE, '--strategy', 'headAndTail'],
      /--strategy headAndTail needs --head N and --tail N/,
    ],
    [['fit', EXAMPLE, '--strategy', 'userTurns'], /--strategy userTurns needs --turns N/],
    // A strategy's flag with another strategy.
    [
      ['fit', EXAMPLE, '--budget', '3000', '--size', '4'],
      /option --size applies to --strategy buffered, not tokenLimited/,
    ],
    [
      ['fit', EXAMPLE, '--budget', '3000', '--query', 'bags'],
      /option --query applies to --strategy scoreBased or mostRelevant, not tokenLimited/,
    ],
    [
      ['fit', EXAMPLE, '--budget', '3000', '--trigger', '0.5'],
      /option --trigger applies to --strategy summarizing, not tokenLimited/,
    ],
    [
      ['fit', EXAMPLE, '--strategy', 'buffered', '--size', '4', '--turns', '2'],
      /option --turns applies to --strategy userTurns, not buffered/,
    ],
    [
      ['fit', EXAMPLE, '--budget', '3000', '--compact-at', '100'],
      /option --compact-at needs --native/,
    ],
    [
      ['fit', EXAMPLE, '--budget', '3000', '--out-dir', dir],
      /option --out-dir applies to a folder/,
    ],
    // A flag of another command.
    [['count', EXAMPLE, '--budget', '3000'], /--budget is not an option of count/],
    [['validate', EXAMPLE, '--strategy', 'buffered'], /--strategy is not an option of validate/],
    [['count', EXAMPLE, '--provider', 'anthropic'], /--provider is not an option of count/],
    [['validate', EXAMPLE, '--model', 'gpt-4o'], /--model is not an option of validate/],
    // Empty means empty, in every command.
    ...(['fit', 'count', 'validate'] as const).flatMap((c): [string[], RegExp][] => {
      const budget = c === 'fit' ? ['--budget', '3000'] : []
      return [
        [[c, files.emptyList, ...budget], /empty-list.json, field messages: no messages/],
        [[c, files.emptyObject, ...budget], /empty-object.json, field messages: no messages/],
        [[c, files.emptyFile, ...budget], /empty.json: the file is empty/],
        [[c, files.blankFile, ...budget], /blank.json: the file is empty/],
        [
          [c, files.noContentUser, ...budget],
          /message 0, field content: a user message without content/,
        ],
        [
          [c, files.nullContentSystem, ...budget],
          /message 0, field content: a system message without content/,
        ],
        [
          [c, files.nothingAssistant, ...budget],
          /message 1, field content: an assistant message without content/,
        ],
        [[c, files.requestEmpty, ...budget], /request-empty.json, field messages: no messages/],
      ]
    }),
  ]
  it.each(table)('%j', async (argv, pattern) => {
    const r = await run(...argv)
    expect(r.code).toBe(2)
    expect(r.err).toHaveLength(1)
    expect(r.err[0]).toMatch(/^context-window: /)
    expect(r.err[0]).toMatch(pattern)
    expect(r.out).toEqual([])
  })

  it('the same flags are taken where they apply', async () => {
    for (const argv of [
      ['fit', EXAMPLE, '--strategy', 'buffered', '--size', '4', '--quiet'],
      ['fit', EXAMPLE, '--strategy', 'headAndTail', '--head', '1', '--tail', '4', '-q'],
      ['fit', EXAMPLE, '--strategy', 'mostRelevant', '--budget', '3000', '--query', 'bags', '-q'],
      ['count', EXAMPLE, '--model', 'gpt-4o', '--quiet'],
      ['validate', EXAMPLE, '--provider', 'anthropic', '--quiet'],
    ]) {
      const r = await run(...argv)
      expect(r.err).toEqual([])
      expect(r.code).toBe(0)
    }
  })
})

describe('--quiet: a summary, not a row per message', () => {
  const big = temp(
    'big.json',
    JSON.stringify(
      Array.from({ length: 5000 }, (_, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        content: `message ${i}`,
      })),
    ),
  )
  it('count prints the total line only', async () => {
    const loud = await run('count', big)
    const quiet = await run('count', big, '--quiet')
    expect(loud.out.join('\n').split('\n').length).toBeGreaterThan(5000)
    expect(quiet.out).toHaveLength(1)
    expect(quiet.out[0]).toMatch(/^\n?\d+ tokens in 5000 messages/)
    expect(quiet.out[0]?.trim()).toBe(loud.out.at(-1)?.trim())
  })
  it('fit prints the summary line only', async () => {
    const quiet = await run('fit', big, '--budget', '2000', '-q')
    expect(quiet.code).toBe(0)
    expect(quiet.out).toHaveLength(1)
    expect(quiet.out[0]).toMatch(/tokenLimited: kept \d+, dropped \d+/)
  })
})

import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { HELP, main } from './main.js'

const EXAMPLE = fileURLToPath(new URL('../../examples/airline-booking.json', import.meta.url))

function run(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), color: false })
  // Outputs are read after the code settles (only a summarizing fit is asynchronous).
  return {
    code,
    get out() {
      return out.join('\n')
    },
    get err() {
      return err.join('\n')
    },
  }
}

function temp(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cw-cli-'))
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

describe('context-window count', () => {
  it('prints a row per message and the total against the model window', () => {
    const r = run('count', EXAMPLE, '--model', 'gpt-4o')
    expect(r.code).toBe(0)
    expect(
      r.out.split('\n').filter((l) => /^\s*\d+\s+(system|user|assistant|tool)/.test(l)),
    ).toHaveLength(36)
    expect(r.out).toMatch(/\d+ tokens in 36 messages of 128000 \(gpt-4o\)/)
  })
  it('--json gives per-message counts that add up with the reply priming', () => {
    const r = run('count', EXAMPLE, '--json')
    const json = JSON.parse(r.out)
    const sum = json.messages.reduce((n: number, m: { tokens: number }) => n + m.tokens, 0)
    expect(json.total).toBe(sum + 3)
  })
})

describe('context-window validate', () => {
  it('passes the example and exits 1 with indexed problems for a broken file', () => {
    expect(run('validate', EXAMPLE).code).toBe(0)
    const bad = temp(
      'bad.json',
      JSON.stringify([
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'x', content: 'r' },
      ]),
    )
    const r = run('validate', bad)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/message 1: error orphan-tool-result/)
  })
})

describe('context-window fit', () => {
  it('fits the example to a budget with a table and a summary line', () => {
    const r = run('fit', EXAMPLE, '--budget', '3000')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(
      /tokenLimited: kept \d+, dropped \d+, inserted 1; \d+ tokens sent of 3000/,
    )
    expect(r.out).toMatch(/summarized \(ledger\)/)
  })
  it('naming the default strategy sends the same request as leaving it out (the ledger included), and the inserted row names the messages by index', () => {
    const asJson = (...extra: string[]) =>
      JSON.parse(run('fit', EXAMPLE, '--budget', '3000', '--json', ...extra).out)
    const plain = asJson()
    const named = asJson('--strategy', 'tokenLimited')
    expect(named.messages).toEqual(plain.messages)
    expect(plain.inserted.map((i: { reason: string }) => i.reason)).toEqual(['ledger'])
    expect(asJson('--no-ledger').inserted).toEqual([])
    const r = run(
      'fit',
      EXAMPLE,
      '--budget',
      '3000',
      '--strategy',
      'headAndTail',
      '--head',
      '1',
      '--tail',
      '4',
    )
    expect(r.code).toBe(0)
    // A placeholder for a run of messages names them as kept and fates do: by index.
    expect(r.out).toMatch(/inserted placeholder for 30 \(messages 2 to 31\)/)
  })
  it('--out writes the fitted conversation in the input shape, and --json the full result', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-out-'))
    const out = join(dir, 'fitted.json')
    const r = run('fit', EXAMPLE, '--budget', '2500', '--out', out, '--json')
    const result = JSON.parse(r.out)
    const written = JSON.parse(readFileSync(out, 'utf8'))
    expect(written.messages).toHaveLength(result.kept.length + result.inserted.length)
    expect(written.messages[0].role).toBe('system')
    expect(readdirSync(dir)).toEqual(['fitted.json'])
  })
  it('exits 3 with the numbers when even the system prompt does not fit', () => {
    const r = run('fit', EXAMPLE, '--budget', '500')
    expect(r.code).toBe(3)
    expect(r.err).toMatch(/needs? \d+ tokens but the budget is 500 \(system \d+/)
  })
  it.each([
    [
      ['fit', EXAMPLE, '--budget', 'lots'],
      /option --budget: expected a whole number >= 1, got "lots"/,
    ],
    [['fit', EXAMPLE, '--budget=-5'], /option --budget: expected a whole number >= 1, got "-5"/],
    [['fit', EXAMPLE, '--budget', '-5'], /option --budget: expected a whole number >= 1, got "-5"/],
    [['fit', EXAMPLE, '--budget', '100', '--provider', 'x'], /option --provider/],
    [['fit', EXAMPLE, '--model', 'mistral-99-ultra'], /unknown model "mistral-99-ultra"/],
    [['fit', EXAMPLE, '--budget', '100', '--strategy', 'magic'], /unknown strategy "magic"/],
    [['fit', EXAMPLE, '--bogus'], /unknown option --bogus \(see fit --help\)/],
    [['fit', '/nonexistent.json', '--budget', '10'], /nonexistent.json: no such file/],
    [['frobnicate'], /unknown command/],
  ])('bad usage is one line and exit 2: %j', (argv, pattern) => {
    const r = run(...argv)
    expect(r.code).toBe(2)
    expect(r.err).toMatch(pattern)
    expect(r.err.split('\n')).toHaveLength(1)
  })
  it('bad input names the file, the message and the field', () => {
    const broken = temp('broken.json', '{"messages": [')
    expect(run('fit', broken, '--budget', '100').err).toMatch(/broken.json: invalid JSON/)
    const role = temp(
      'role.json',
      JSON.stringify([
        { role: 'user', content: 'a' },
        { role: 'robot', content: 'b' },
      ]),
    )
    expect(run('count', role).err).toMatch(/role.json, message 1, field role: unknown role "robot"/)
    const args = temp(
      'args.json',
      JSON.stringify([
        {
          role: 'assistant',
          tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: {} } }],
        },
      ]),
    )
    const r = run('validate', args)
    expect(r.code).toBe(2)
    expect(r.err).toMatch(
      /args.json, message 0, field tool_calls.0.function.arguments: expected a string/,
    )
  })
  it('leaves no half-written --out file when fitting fails', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-fail-'))
    const r = run('fit', EXAMPLE, '--budget', '400', '--out', join(dir, 'x.json'))
    expect(r.code).toBe(3)
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('formats', () => {
  const anthropic = fileURLToPath(
    new URL('../../test/fixtures/formats/anthropic.json', import.meta.url),
  )
  it('detects the input format, checks its provider rules, and writes the output in the same format', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-fmt-'))
    const out = join(dir, 'fitted.json')
    const r = run('fit', anthropic, '--budget', '2000', '--out', out)
    expect(r.code).toBe(0)
    const written = JSON.parse(readFileSync(out, 'utf8'))
    expect(written.system).toEqual([
      {
        type: 'text',
        text: 'You are a careful airline agent.',
        cache_control: { type: 'ephemeral' },
      },
    ])
    expect(written.messages[0].role).toBe('user')
    expect(run('validate', anthropic).out).toMatch(/valid for anthropic/)
  })
  it('refuses an unknown --format in one line', () => {
    const r = run('count', EXAMPLE, '--format', 'yaml')
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/option --format: expected auto or one of openai-chat/)
  })
})

describe('compression and pruning options', () => {
  it('--strategy summarizing inserts a summary that says what it replaces', async () => {
    const out: string[] = []
    const err: string[] = []
    const code = await main(
      [
        'fit',
        EXAMPLE,
        '--budget',
        '3000',
        '--strategy',
        'summarizing',
        '--trigger',
        '0.5',
        '--json',
      ],
      {
        out: (t) => out.push(t),
        err: (t) => err.push(t),
        color: false,
      },
    )
    expect(code).toBe(0)
    // What the compression did is said where the command's messages go, in the tool's voice.
    expect(err.join('\n')).toMatch(/^context-window: compressed \d+ messages/m)
    const result = JSON.parse(out.join('\n'))
    expect(result.inserted).toHaveLength(1)
    expect(result.inserted[0].message.content).toMatch(/^\[Summary of messages 1 to \d+/)
    expect(result.tokens.total).toBeLessThanOrEqual(3000)
  })
  it('a summarizing fit says how many facts of the summarized messages are sent and which were re-inserted', async () => {
    const r = run(
      'fit',
      EXAMPLE,
      '--budget',
      '3000',
      '--strategy',
      'summarizing',
      '--trigger',
      '0.5',
    )
    expect(await r.code).toBe(0)
    const line = r.out.split('\n').find((l) => l.startsWith('facts of summary #1:'))
    expect(line).toMatch(
      /^facts of summary #1: (\d+) of (\d+) sent \(\d+\.\d%\), (\d+) re-inserted/,
    )
    const json = run(
      'fit',
      EXAMPLE,
      '--budget',
      '3000',
      '--strategy',
      'summarizing',
      '--trigger',
      '0.5',
      '--json',
    )
    expect(await json.code).toBe(0)
    const facts = JSON.parse(json.out).inserted[0].facts
    expect(line).toContain(`${facts.kept + facts.reinserted.length} of ${facts.total} sent`)
    for (const f of facts.reinserted.slice(0, 12)) expect(line).toContain(f.value)
  })
  it('--native anthropic prints the context_management edits and beta header; --provider-response says what the provider did', async () => {
    const response = temp(
      'response.json',
      JSON.stringify({
        type: 'message',
        content: [{ type: 'compaction', content: 'Booked HAT123.' }],
        context_management: {
          applied_edits: [
            { type: 'clear_tool_uses_20250919', cleared_tool_uses: 3, cleared_input_tokens: 1200 },
          ],
        },
      }),
    )
    const r = run(
      'fit',
      EXAMPLE,
      '--budget',
      '3000',
      '--native',
      'anthropic',
      '--clear-tool-results',
      '2',
      '--clear-thinking',
      'all',
      '--compact-at',
      '90000',
      '--provider-response',
      response,
    )
    expect(r.code).toBe(0)
    const fields = r.out.split('\n').find((l) => l.startsWith('request fields: '))
    expect(JSON.parse(fields?.slice('request fields: '.length) ?? 'null')).toEqual({
      context_management: {
        edits: [
          { type: 'clear_thinking_20251015', keep: 'all' },
          {
            type: 'clear_tool_uses_20250919',
            trigger: { type: 'input_tokens', value: 100000 },
            keep: { type: 'tool_uses', value: 2 },
          },
          { type: 'compact_20260112', trigger: { type: 'input_tokens', value: 90000 } },
        ],
      },
    })
    expect(r.out).toContain(
      'header anthropic-beta: context-management-2025-06-27,compact-2026-01-12',
    )
    expect(r.out).toContain(
      'provider applied clear_tool_uses_20250919: 3 tool uses, 1200 tokens cleared',
    )
    expect(r.out).toContain('provider compacted: Booked HAT123.')
    // Nothing cleared on the client: the provider does it.
    expect(
      run(
        'fit',
        EXAMPLE,
        '--budget',
        '100000',
        '--native',
        'anthropic',
        '--clear-tool-results',
        '0',
        '--json',
      ).out,
    ).not.toMatch(/"reason": "cleared"/)
    const bad = run(
      'fit',
      EXAMPLE,
      '--budget',
      '3000',
      '--native',
      'anthropic',
      '--provider-response',
      temp('r.json', '{"context_management":{"applied_edits":[{}]}}'),
    )
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/^context-window: option --provider-response: .*applied_edits\.0\.type/)
    expect(run('fit', EXAMPLE, '--budget', '3000', '--native', 'bedrock').code).toBe(2)
  })
  it('--clear-tool-results and --max-tokens-per-message change old results and long messages', () => {
    const r = run(
      'fit',
      EXAMPLE,
      '--budget',
      '100000',
      '--clear-tool-results',
      '1',
      '--max-tokens-per-message',
      '200',
      '--json',
    )
    expect(r.code).toBe(0)
    const result = JSON.parse(r.out)
    const reasons = new Set(result.changed.map((c: { reason: string }) => c.reason))
    expect(reasons).toEqual(new Set(['cleared', 'truncated']))
  })
  it('--summarizer openai without its settings, or with an unset key variable, is a usage error', () => {
    expect(
      run('fit', EXAMPLE, '--budget', '3000', '--strategy', 'summarizing', '--summarizer', 'openai')
        .err,
    ).toMatch(/needs --base-url/)
    const r = run(
      'fit',
      EXAMPLE,
      '--budget',
      '3000',
      '--strategy',
      'summarizing',
      '--summarizer',
      'openai',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--summary-model',
      'm',
      '--api-key-env',
      'CW_SURELY_UNSET',
    )
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/CW_SURELY_UNSET is not set/)
  })
  it('--report never writes the summarizer API key taken from --api-key-env', async () => {
    const report = join(mkdtempSync(join(tmpdir(), 'cw-key-')), 'r.html')
    process.env.CW_TEST_SUMMARY_KEY = 'sk-never-in-a-report'
    try {
      const code = await main(
        [
          'fit',
          EXAMPLE,
          '--budget',
          '3000',
          '--strategy',
          'summarizing',
          '--summarizer',
          'openai',
          // Nothing listens on port 9: the fit falls back, the report is still written.
          '--base-url',
          'http://127.0.0.1:9/v1',
          '--summary-model',
          'm',
          '--api-key-env',
          'CW_TEST_SUMMARY_KEY',
          '--trigger',
          '0.5',
          '--report',
          report,
        ],
        { out: () => {}, err: () => {}, color: false },
      )
      expect(code).toBe(0)
      const html = readFileSync(report, 'utf8')
      expect(html).toMatch(/127\.0\.0\.1:9\/v1/)
      expect(html).not.toMatch(/sk-never-in-a-report/)
    } finally {
      delete process.env.CW_TEST_SUMMARY_KEY
    }
  })
})

describe('batch: a folder of conversations', () => {
  it('fits every file into --out-dir, reports and skips a broken one, exits 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cw-batch-'))
    const out = join(dir, 'out')
    const example = readFileSync(EXAMPLE, 'utf8')
    writeFileSync(join(dir, 'a.json'), example)
    writeFileSync(join(dir, 'b.json'), '{"messages": [')
    writeFileSync(join(dir, 'c.json'), example)
    writeFileSync(join(dir, 'notes.txt'), 'ignored')
    const r = run('fit', dir, '--budget', '3000', '--out-dir', out)
    expect(r.code).toBe(1)
    expect(readdirSync(out).sort()).toEqual(['a.json', 'c.json'])
    expect(r.err).toMatch(/b.json: .*invalid JSON/)
    expect(r.err).toMatch(/\[3\/3\] 2 fitted, 1 failed, \d+ tokens saved/)
    expect(r.out).toMatch(/fitted 2 of 3 files/)
    expect(run('fit', dir, '--budget', '3000').err).toMatch(/give --out-dir/)
  })
})

describe('--help', () => {
  it('every example in every help text runs as written', async () => {
    // An empty folder: the examples need nothing beside them (they use --example).
    const dir = mkdtempSync(join(tmpdir(), 'cw-help-'))
    const cwd = process.cwd()
    process.chdir(dir)
    try {
      const lines = Object.values(HELP).flatMap((h) =>
        (h.split('Examples:\n')[1] ?? '')
          .split('\n')
          .filter((l) => l.trim().startsWith('context-window ')),
      )
      expect(lines.length).toBeGreaterThanOrEqual(8)
      for (const line of lines) {
        // A pipe: the first command's standard output is the second one's input.
        let input: string | undefined
        for (const part of line.split(' | ')) {
          let argv = part.trim().split(/\s+/).slice(1)
          if (input !== undefined)
            argv = argv.map((a) => (a === '-' ? temp('in.json', input as string) : a))
          const r = run(...argv)
          expect(await r.code, `${line}\n${r.err}`).toBe(0)
          input = r.out
        }
      }
      expect(readdirSync(dir).sort()).toEqual(['fitted.json', 'report.html'])
    } finally {
      process.chdir(cwd)
    }
    expect(run('fit', '--help').out).toMatch(/--report FILE/)
  })
})

describe('the installed command', () => {
  it('runs as a process: exit codes and no stack trace on bad input', () => {
    const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url))
    const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
    expect(execFileSync(tsx, [cli, 'validate', EXAMPLE], { encoding: 'utf8' })).toMatch(
      /valid for openai/,
    )
    const bad = spawnSync(tsx, [cli, 'fit', EXAMPLE, '--budget', 'x'], { encoding: 'utf8' })
    expect(bad.status).toBe(2)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    expect(bad.stderr).not.toMatch(/at .*\.ts:\d+/)
  })
})

describe('command-line conventions', () => {
  it('--version and -V print the package version', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    for (const flag of ['--version', '-V']) {
      const r = run(flag)
      expect(r.code).toBe(0)
      expect(r.out).toBe(pkg.version)
    }
  })

  it('--out - writes the fitted conversation to standard output, the summary to standard error, no file named -', () => {
    const before = readdirSync(process.cwd())
    const r = run('fit', '--example', '--budget', '3000', '--out', '-')
    expect(r.code).toBe(0)
    const fitted = JSON.parse(r.out)
    expect(Array.isArray(fitted.messages ?? fitted)).toBe(true)
    expect(r.err).toMatch(/^tokenLimited: kept \d+, dropped \d+/)
    expect(readdirSync(process.cwd())).toEqual(before)
    // and what it wrote reads back through `-`... as a file here, standard input below.
    const again = run('count', temp('fitted.json', r.out))
    expect(again.code).toBe(0)
  })

  it('--report - writes the HTML to standard output', () => {
    const r = run('fit', '--example', '--budget', '3000', '--report', '-')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^<!doctype html>/i)
    expect(r.err).toMatch(/kept \d+/)
  })

  it('refuses two things on standard output, and --out-dir -', () => {
    for (const argv of [
      ['--out', '-', '--json'],
      ['--out', '-', '--report', '-'],
      ['--report', '-', '--json'],
    ]) {
      const r = run('fit', '--example', '--budget', '3000', ...argv)
      expect(r.code).toBe(2)
      expect(r.err).toMatch(/both write to standard output/)
      expect(r.out).toBe('')
    }
    expect(run('fit', '--example', '--budget', '3000', '--out-dir', '-').code).toBe(2)
    expect(run('fit', EXAMPLE, '--example').err).toMatch(/not both/)
  })

  it('--example works for every command, from any folder', () => {
    expect(run('count', '--example').out).toMatch(/tokens in 36 messages/)
    expect(run('validate', '--example').code).toBe(0)
    expect(run('fit', '--example', '--budget', '3000').out).toMatch(/kept \d+/)
  })

  it('reads standard input and writes standard output through a pipe; a closed pipe ends quietly with exit 0', () => {
    const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url))
    const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
    const big = temp(
      'big.json',
      JSON.stringify(
        Array.from({ length: 3000 }, (_, i) => ({
          role: i % 2 ? 'assistant' : 'user',
          content: `message ${i} `.repeat(40),
        })),
      ),
    )
    const piped = spawnSync(
      'bash',
      [
        '-c',
        `set -o pipefail; "$TSX" "$CLI" fit - --budget 2000 --out - < "$BIG" | "$TSX" "$CLI" count -`,
      ],
      { encoding: 'utf8', env: { ...process.env, TSX: tsx, CLI: cli, BIG: big } },
    )
    expect(piped.status).toBe(0)
    expect(piped.stdout).toMatch(/tokens in \d+ messages/)
    // `head` reads one line and closes the pipe while fit is still writing a large output.
    const closed = spawnSync(
      'bash',
      [
        '-c',
        `"$TSX" "$CLI" fit "$BIG" --budget 100000000 --out - 2>"$ERR" | head -c 20 >/dev/null; echo "\${PIPESTATUS[0]}"`,
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, TSX: tsx, CLI: cli, BIG: big, ERR: `${big}.err` },
      },
    )
    expect(closed.stdout.trim()).toBe('0')
    expect(readFileSync(`${big}.err`, 'utf8')).not.toMatch(/EPIPE|Error|at /)
  })
})

describe('a model the table does not list', () => {
  it("of a known provider: fitted by its provider's most conservative figures, and the output says so", async () => {
    const out: string[] = []
    const err: string[] = []
    const code = await main(['fit', EXAMPLE, '--model', 'gpt-99-ultra'], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      color: false,
    })
    expect(code).toBe(0)
    expect(out.join('\n')).toMatch(/note: model "gpt-99-ultra" is not in the model table/)
  })
})

describe('the second hour', () => {
  const TOOLS = fileURLToPath(new URL('../../examples/airline-tools.json', import.meta.url))

  it('a model the table does not know: refused naming --window and --max-output, in one line; fitted with them', () => {
    const unknown = run('fit', EXAMPLE, '--model', 'my-finetune')
    expect(unknown.code).toBe(2)
    expect(unknown.err.split('\n')).toHaveLength(1)
    expect(unknown.err).toMatch(
      /unknown model "my-finetune": give its context window with --window N \(and its output limit with --max-output N\), or fit to --budget N/,
    )
    expect(unknown.err).not.toMatch(/registerModel/)
    expect(run('count', EXAMPLE, '--model', 'my-finetune').err).toMatch(/--window N/)
    const fitted = run(
      'fit',
      EXAMPLE,
      '--model',
      'my-finetune',
      '--window',
      '3000',
      '--max-output',
      '500',
      '--json',
    )
    expect(fitted.code).toBe(0)
    const r = JSON.parse(fitted.out)
    expect(r.budget).toBe(3000)
    expect(r.tokens.reserve).toBe(500)
    expect(r.tokens.total + r.tokens.reserve).toBeLessThanOrEqual(3000)
    // The output limit defaults to a quarter of the window.
    const quarter = JSON.parse(
      run('fit', EXAMPLE, '--model', 'my-finetune', '--window', '4000', '--json').out,
    )
    expect(quarter.tokens.reserve).toBe(1000)
    // A known model's window overridden (a smaller deployment).
    const small = JSON.parse(
      run('fit', EXAMPLE, '--model', 'gpt-4o', '--window', '3000', '--json').out,
    )
    expect(small.budget).toBe(3000)
    const counted = run('count', EXAMPLE, '--model', 'my-finetune', '--window', '8000')
    expect(counted.out).toMatch(/ of 8000 \(my-finetune\)/)
    for (const [argv, message] of [
      [['--window', '3000'], /--window describes the model: give --model M/],
      [['--model', 'my-finetune', '--max-output', '500'], /unknown model/],
      [['--model', 'my-finetune', '--window', '500', '--max-output', '500'], /leaves no room/],
      [['--model', 'gpt-4o', '--window', 'lots'], /option --window: expected a whole number/],
    ] as const) {
      const bad = run('fit', EXAMPLE, ...argv)
      expect(bad.code, argv.join(' ')).toBe(2)
      expect(bad.err).toMatch(message)
      expect(bad.err.split('\n')).toHaveLength(1)
    }
  })

  it('--tools counts tool definitions: against the budget in fit, beside the messages in count', () => {
    const without = JSON.parse(run('fit', EXAMPLE, '--budget', '3000', '--json').out)
    const withTools = JSON.parse(
      run('fit', EXAMPLE, '--budget', '3000', '--tools', TOOLS, '--json').out,
    )
    expect(without.tokens.tools).toBe(0)
    expect(withTools.tokens.tools).toBeGreaterThan(100)
    expect(withTools.tokens.total).toBeLessThanOrEqual(3000)
    expect(withTools.kept.length).toBeLessThan(without.kept.length)
    expect(run('fit', EXAMPLE, '--budget', '3000', '--tools', TOOLS).out).toMatch(
      /tokens sent \(\d+ of them tools\)/,
    )
    const plain = JSON.parse(run('count', EXAMPLE, '--json').out)
    const counted = JSON.parse(run('count', EXAMPLE, '--tools', TOOLS, '--json').out)
    expect(counted.tools).toEqual({ count: 5, tokens: withTools.tokens.tools })
    expect(counted.total).toBe(plain.total + counted.tools.tokens)
    // A request holding `tools` is read too; anything else is one line and exit 2.
    const request = temp(
      'request.json',
      JSON.stringify({ model: 'x', tools: JSON.parse(readFileSync(TOOLS, 'utf8')) }),
    )
    expect(JSON.parse(run('count', EXAMPLE, '--tools', request, '--json').out).tools.count).toBe(5)
    for (const [file, message] of [
      [temp('not.json', '{"tool": []}'), /expected a list of tool definitions/],
      [temp('bad.json', '[{"type": "function"'), /invalid JSON/],
      [join(tmpdir(), 'no-such-tools.json'), /no such file/],
      [temp('num.json', '[3]'), /tools\.0: expected a tool definition/],
    ] as const) {
      const r = run('fit', EXAMPLE, '--budget', '3000', '--tools', file)
      expect(r.code, file).toBe(2)
      expect(r.err).toMatch(/^context-window: option --tools: /)
      expect(r.err).toMatch(message)
      expect(r.err.split('\n')).toHaveLength(1)
    }
  })

  it('--quiet holds with --json and with every command: the summary, no list per message', () => {
    const fit = JSON.parse(run('fit', EXAMPLE, '--budget', '3000', '--json', '--quiet').out)
    expect(fit).not.toHaveProperty('fates')
    expect(fit).not.toHaveProperty('messages')
    expect(fit.kept).toBeTypeOf('number')
    expect(fit.tokens.total).toBeLessThanOrEqual(3000)
    const count = JSON.parse(run('count', EXAMPLE, '--json', '-q').out)
    expect(count).not.toHaveProperty('messages')
    expect(count.total).toBeGreaterThan(0)
    const validate = JSON.parse(run('validate', EXAMPLE, '--json', '--quiet').out)
    expect(validate).toMatchObject({ valid: true, errors: 0, warnings: 0 })
    expect(run('fit', EXAMPLE, '--budget', '3000', '--quiet').out.split('\n')).toHaveLength(1)
  })

  it('the ledger is listed where it is sent: right after the system prompt', () => {
    const rows = run('fit', EXAMPLE, '--budget', '3000').out.split('\n')
    const ledger = rows.findIndex((l) => /^\s*\+\s+user .*inserted ledger/.test(l))
    expect(ledger).toBeGreaterThan(0)
    expect(rows[ledger - 1]).toMatch(/^\s*0\s+system\s/)
    // headAndTail's placeholder: after the head it follows, before the first it stands for.
    const ht = run('fit', EXAMPLE, '--strategy', 'headAndTail', '--head', '2', '--tail', '6')
    const lines = ht.out.split('\n')
    const placeholder = lines.findIndex((l) =>
      /inserted placeholder for 27 \(messages 3 to/.test(l),
    )
    expect(lines[placeholder - 1]).toMatch(/^\s*2\s+assistant\s+\d+\s+kept/)
    expect(lines[placeholder + 1]).toMatch(/^\s*3\s+user\s+\d+\s+summarized/)
  })

  it('validate: warnings alone are valid (exit 0), and said apart from errors', () => {
    const twoUsers = temp(
      'two.json',
      JSON.stringify({
        system: 'Be brief.',
        messages: [
          { role: 'user', content: 'Move ZFA04Y.' },
          { role: 'user', content: 'And the bags?' },
        ],
      }),
    )
    const r = run('validate', twoUsers, '--provider', 'anthropic')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/warning consecutive-same-role/)
    expect(r.out).toMatch(
      /valid for anthropic \(1 warning: changes anthropic makes, not refusals\)/,
    )
    const json = JSON.parse(run('validate', twoUsers, '--provider', 'anthropic', '--json').out)
    expect(json.valid).toBe(true)
    expect(json.errors).toEqual([])
    expect(json.warnings.map((p: { code: string }) => p.code)).toEqual(['consecutive-same-role'])
  })

  it('fit with neither --budget nor --model names both, and the strategies that need neither', () => {
    for (const argv of [[], ['--strategy', 'tokenLimited'], ['--strategy', 'mostRelevant']]) {
      const r = run('fit', EXAMPLE, ...argv)
      expect(r.code).toBe(2)
      expect(r.err).toMatch(
        /give --budget N or --model M .*buffered, headAndTail, userTurns, unbounded/,
      )
    }
    expect(run('fit', EXAMPLE, '--strategy', 'unbounded').code).toBe(0)
  })
})

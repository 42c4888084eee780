import { describe, expect, it } from 'vitest'
import { strategyNames, strategyOptionNames } from '../context/options/registry.js'
import { commandFlags, FLAGS, isFlag, requiredFlags, STRATEGY_FLAGS } from './flag-table.js'
import { HELP } from './help.js'
import { main } from './main.js'

const io = () => {
  const out: string[] = []
  const err: string[] = []
  return {
    out: (t: string) => out.push(t),
    err: (t: string) => err.push(t),
    color: false,
    outs: out,
    errs: err,
  }
}

describe('the flag table', () => {
  it("every flag a command reads is named in that command's help (--help aside)", () => {
    for (const command of ['fit', 'count', 'validate']) {
      const text = HELP[command] as string
      const missing = commandFlags(command).filter(
        (f) => f !== 'help' && !new RegExp(`--${f}(?![\\w-])`).test(text),
      )
      expect(missing, command).toEqual([])
    }
  })

  it('each command refuses the flags it does not read, and takes those it does', async () => {
    for (const command of ['count', 'validate']) {
      const takes = new Set(commandFlags(command))
      for (const flag of Object.keys(FLAGS).filter(isFlag)) {
        if (takes.has(flag)) continue
        const o = io()
        const value = FLAGS[flag].type === 'string' ? ['1'] : []
        expect(
          await main([command, '--example', `--${flag}`, ...value], o),
          `${command} --${flag}`,
        ).toBe(2)
        expect(o.errs.join('\n')).toContain(`--${flag} is not an option of ${command}`)
      }
    }
  })

  it('a flag given without its value is named as written, whatever its name (no word of the message taken for a credential)', async () => {
    for (const command of ['fit', 'count', 'validate'])
      for (const flag of commandFlags(command).filter((f) => FLAGS[f].type === 'string')) {
        const o = io()
        expect(await main([command, '--example', `--${flag}`], o), `${command} --${flag}`).toBe(2)
        expect(o.errs.join('\n')).toBe(`context-window: ${command}: option --${flag} needs a value`)
      }
  })

  it("a strategy's own flags name strategies the registry knows, and each is refused with another strategy", async () => {
    const known = strategyNames()
    for (const { flag, strategies } of STRATEGY_FLAGS) {
      for (const s of strategies) expect(known, `--${flag}`).toContain(s)
      const other = known.find((s) => !strategies.includes(s) && requiredFlags(s).length === 0)
      const o = io()
      const value = FLAGS[flag].type === 'string' ? ['1'] : []
      const code = await main(
        [
          'fit',
          '--example',
          '--budget',
          '3000',
          '--strategy',
          other as string,
          `--${flag}`,
          ...value,
        ],
        o,
      )
      expect(code, `--${flag} with ${other}`).toBe(2)
      expect(o.errs.join('\n')).toContain(`option --${flag} applies to --strategy`)
    }
  })

  it("a flag a strategy needs is one of that strategy's options in the registry", () => {
    // --turns sets userTurns' maxTurns: the flag's name is the CLI's, the option the registry's.
    const option: Record<string, string> = { turns: 'maxTurns' }
    for (const s of strategyNames())
      for (const flag of requiredFlags(s))
        expect(strategyOptionNames(s), `${s} --${flag}`).toContain(option[flag] ?? flag)
  })
})

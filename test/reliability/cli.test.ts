import { execFileSync } from 'node:child_process'
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'

const EXAMPLE = fileURLToPath(new URL('../../examples/airline-booking.json', import.meta.url))

async function run(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), color: false })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

const temp = () => mkdtempSync(join(tmpdir(), 'cw-rel-'))

describe('--out-dir naming a file that exists', () => {
  it('one line, exit 2, the file untouched', async () => {
    const dir = temp()
    const inputs = join(dir, 'in')
    mkdirSync(inputs)
    writeFileSync(join(inputs, 'a.json'), readFileSync(EXAMPLE))
    const file = join(dir, 'taken')
    writeFileSync(file, 'keep me')
    const r = await run('fit', inputs, '--budget', '3000', '--out-dir', file)
    expect(r.code).toBe(2)
    expect(r.err.split('\n')).toHaveLength(1)
    expect(r.err).toMatch(/--out-dir: .*taken exists and is not a folder/)
    expect(r.err).not.toMatch(/internal error/)
    expect(readFileSync(file, 'utf8')).toBe('keep me')
  })
})

describe('writes never replace what is not a regular file', () => {
  it('a symbolic link to a device stays a link; the text goes to the device', async () => {
    const dir = temp()
    const link = join(dir, 'out.json')
    symlinkSync('/dev/null', link)
    const r = await run('fit', EXAMPLE, '--budget', '3000', '--out', link)
    expect(r.code).toBe(0)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readlinkSync(link)).toBe('/dev/null')
  })
  it('a symbolic link to a regular file stays a link; the file it names gets the output', async () => {
    const dir = temp()
    const target = join(dir, 'real.json')
    writeFileSync(target, 'old')
    const link = join(dir, 'out.json')
    symlinkSync(target, link)
    const r = await run('fit', EXAMPLE, '--budget', '3000', '--out', link)
    expect(r.code).toBe(0)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(JSON.parse(readFileSync(target, 'utf8')).messages.length).toBeGreaterThan(0)
    expect(readdirSync(dir).sort()).toEqual(['out.json', 'real.json'])
  })
})

describe('a folder fitted with --strategy summarizing', () => {
  it('takes the asynchronous path: every file is fitted', async () => {
    const dir = temp()
    const inputs = join(dir, 'in')
    mkdirSync(inputs)
    for (const name of ['a.json', 'b.json'])
      writeFileSync(join(inputs, name), readFileSync(EXAMPLE))
    const out = join(dir, 'out')
    const r = await run(
      'fit',
      inputs,
      '--budget',
      '3000',
      '--strategy',
      'summarizing',
      '--out-dir',
      out,
    )
    expect(r.err).not.toMatch(/asynchronous/)
    expect(r.code).toBe(0)
    expect(readdirSync(out).sort()).toEqual(['a.json', 'b.json'])
    expect(r.out).toMatch(/fitted 2 of 2 files/)
  })
})

describe('a message nested 5,000 deep', () => {
  it('is bad input (exit 2), not an internal error (exit 70)', async () => {
    let deep = '{}'
    for (let k = 0; k < 5000; k++) deep = `{"x":${deep}}`
    const dir = temp()
    const file = join(dir, 'deep.json')
    writeFileSync(file, `[{"role":"user","content":"hi","metadata":${deep}}]`)
    const r = await run('fit', file, '--budget', '3000')
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/nested deeper than 100 levels/)
  })
})

describe('a folder entry that is not a regular file', () => {
  it('a pipe named *.json is reported and skipped, never opened; the others are fitted', async () => {
    const dir = temp()
    const inputs = join(dir, 'in')
    mkdirSync(inputs)
    writeFileSync(join(inputs, 'a.json'), readFileSync(EXAMPLE))
    execFileSync('mkfifo', [join(inputs, 'b.json')])
    mkdirSync(join(inputs, 'c.json'))
    const r = await run('fit', inputs, '--budget', '3000', '--out-dir', join(dir, 'out'))
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/b\.json: not a regular file, skipped/)
    expect(r.err).toMatch(/c\.json: not a regular file, skipped/)
    expect(readdirSync(join(dir, 'out'))).toEqual(['a.json'])
    expect(r.out).toMatch(/fitted 1 of 3 files/)
  })
})

describe('--out and --report naming one file', () => {
  for (const spell of ['same', 'dot', 'link'] as const) {
    it(`is refused in one line with exit 2 and nothing written (${spell})`, async () => {
      const dir = temp()
      const out = join(dir, 'fitted.json')
      let report = out
      if (spell === 'dot') report = join(dir, '.', 'sub', '..', 'fitted.json')
      if (spell === 'link') {
        writeFileSync(out, 'keep me')
        symlinkSync(out, join(dir, 'link.json'))
        report = join(dir, 'link.json')
      }
      const r = await run('fit', EXAMPLE, '--budget', '3000', '--out', out, '--report', report)
      expect(r.code).toBe(2)
      expect(r.err.split('\n')).toHaveLength(1)
      expect(r.err).toMatch(/--out and --report both name/)
      if (spell === 'link') expect(readFileSync(out, 'utf8')).toBe('keep me')
      else expect(readdirSync(dir)).toEqual([])
    })
  }
})

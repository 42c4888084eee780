/**
 * Adding a provider API: a copy of `src/` whose `providers/provider.ts` names one more API
 * ('toy', with a wire format 'toy') is type-checked, and the files the type check names are
 * the places to edit. They must be exactly the files listed below, and `docs/extending.md`
 * must name each of them: a table or a list of names that does not follow the `Provider`
 * union is a place a new API would be silently missing from.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'toy-provider-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The places the type check names once a provider name is added, by file. */
const PLACES = [
  'src/cli/fit-options.ts',
  'src/context/result.ts',
  'src/formats/detect.ts',
  'src/providers/checks.ts',
  'src/providers/index.ts',
  'src/providers/replies.ts',
  'src/providers/table.ts',
]

/** The type check's errors over a copy of `src/` with `provider.ts` rewritten by `edit`. */
function typeErrors(edit: (source: string) => string): string[] {
  rmSync(join(dir, 'src'), { recursive: true, force: true })
  cpSync(join(root, 'src'), join(dir, 'src'), {
    recursive: true,
    filter: (f) => !f.endsWith('.test.ts'),
  })
  const file = join(dir, 'src/providers/provider.ts')
  writeFileSync(file, edit(readFileSync(file, 'utf8')))
  const config = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'))
  config.compilerOptions.paths = undefined
  config.include = ['src']
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config))
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }')
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  } catch {
    // Linked by an earlier call.
  }
  const tsc = join(root, 'node_modules/typescript/bin/tsc')
  try {
    execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--noEmit'], {
      encoding: 'utf8',
      cwd: dir,
    })
    return []
  } catch (e) {
    const out = e instanceof Error && 'stdout' in e ? String(e.stdout) : ''
    return out.split('\n').filter((l) => /error TS\d+/.test(l))
  }
}

function withToy(source: string): string {
  const names = "'gemini'] as const"
  const formats = "| 'gemini'\n"
  if (!source.includes(names) || !source.includes(formats))
    throw new Error('provider.ts no longer lists its names as this test edits them')
  return source.replace(names, "'gemini', 'toy'] as const").replace(formats, "| 'gemini' | 'toy'\n")
}

describe('adding a provider API', () => {
  it('the copy type-checks as it is (the errors below are the toy’s alone)', () => {
    expect(typeErrors((s) => s)).toEqual([])
  }, 120_000)

  it('makes the type check name every place to edit, and docs/extending.md names them all', () => {
    const errors = typeErrors(withToy)
    const files = [...new Set(errors.map((l) => l.slice(0, l.indexOf('('))))].sort()
    expect(files).toEqual(PLACES)
    // Each error is about the new name or its format, not something else broken.
    for (const line of errors) expect(line).toMatch(/toy|WireFormat|ContextTarget/)
    const doc = readFileSync(join(root, 'docs/extending.md'), 'utf8')
    for (const place of [
      ...PLACES,
      'src/providers/provider.ts',
      'src/native/context-management.ts',
    ])
      expect(doc).toContain(`\`${place}\``)
  }, 120_000)
})

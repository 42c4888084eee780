/**
 * A consumer project at its strictest: the package's declaration files (as `tsc` writes them
 * for the published package) with `strict`, `exactOptionalPropertyTypes`,
 * `noUncheckedIndexedAccess` and `skipLibCheck: false`. `strict/consumer.ts` hands each SDK's
 * messages to the library and the library's output to each SDK with no cast, and its
 * `@ts-expect-error` lines (a misspelt message, a message of another shape) must each be an
 * error: an unused one fails the compile. `strict/langchain.ts` does the same for LangChain
 * with `skipLibCheck: true` (LangChain's own declarations fail under these options).
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')

function compile(dir: string, project: string): string {
  try {
    execFileSync(process.execPath, [tsc, '-p', join(dir, project)], {
      cwd: dir,
      encoding: 'utf8',
      stdio: 'pipe',
    })
    return ''
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string }
    return `${err.stdout ?? ''}${err.stderr ?? ''}`
  }
}

describe('a strict consumer project compiles the SDK hand-offs with no cast', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cw-strict-'))
    // The declarations the package ships, written from src/ as the build writes them.
    execFileSync(
      process.execPath,
      [
        tsc,
        '-p',
        join(root, 'tsconfig.build.json'),
        '--emitDeclarationOnly',
        '--declaration',
        '--outDir',
        join(dir, 'dist'),
      ],
      { cwd: root, stdio: 'pipe' },
    )
    for (const f of ['consumer.ts', 'langchain.ts'])
      copyFileSync(join(root, 'test', 'types', 'strict', f), join(dir, f))
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }')
    const options = {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: false,
      noEmit: true,
      target: 'ES2022',
      lib: ['ES2023', 'DOM'],
      module: 'nodenext',
      moduleResolution: 'nodenext',
      types: ['node'],
      // The package's `types` for each entry it uses.
      paths: {
        'context-window': ['./dist/node/index.d.ts'],
        'context-window/langchain': ['./dist/node/langchain.d.ts'],
      },
    }
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: options, files: ['consumer.ts'] }),
    )
    writeFileSync(
      join(dir, 'tsconfig.langchain.json'),
      JSON.stringify({
        compilerOptions: { ...options, skipLibCheck: true },
        files: ['langchain.ts'],
      }),
    )
  }, 180_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('OpenAI chat and Responses, Anthropic, Gemini and the library’s own messages: skipLibCheck off', () => {
    expect(compile(dir, 'tsconfig.json')).toBe('')
  }, 180_000)

  it('LangChain (its own declarations need skipLibCheck)', () => {
    expect(compile(dir, 'tsconfig.langchain.json')).toBe('')
  }, 180_000)

  it('a misspelt message is an error the compiler names', () => {
    writeFileSync(
      join(dir, 'misspelt.ts'),
      `import { ChatContext } from 'context-window'
const ctx = new ChatContext({ budget: 1000, format: 'openai-chat' })
export const added = ctx.addMessage({ rol: 'user', content: 'x' })
`,
    )
    writeFileSync(
      join(dir, 'tsconfig.misspelt.json'),
      JSON.stringify({ extends: './tsconfig.json', files: ['misspelt.ts'] }),
    )
    const out = compile(dir, 'tsconfig.misspelt.json')
    expect(out).toMatch(/'rol' does not exist in type/)
    expect(out).toMatch(/Did you mean to write 'role'\?/)
  }, 180_000)
})
